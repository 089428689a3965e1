/*
 * slowdisk: a FUSE pass-through file system in which every regular file of the
 * backing directory is one emulated mechanical disk with one actuator.
 *
 *   slowdisk BACKING_DIR MOUNTPOINT [-f] [-o option[,option...]]
 *
 * Every I/O on a file of the mount is served by the real file in BACKING_DIR and
 * then held until the emulated disk would have finished it: positioning (seek +
 * rotation, or nothing for a sequential I/O) + transfer.  One I/O at a time per
 * disk (one actuator); different disks run in parallel.  See README.md for the
 * model, the options and the per-I/O log format.
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE

#include <fuse.h>
#include <fuse_opt.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define SLOWDISK_VERSION "1.0"

enum { DDIR_READ = 0, DDIR_WRITE = 1, DDIR_SYNC = 3 };
enum { Q_FIFO = 0, Q_SPTF = 1 };

#define MIB (1024ULL * 1024ULL)
#define RING_CAP 4096          /* cached writes remembered per disk */
#define SPTF_MAX_PASS 16       /* an I/O passed over this often is served next */
#define LOG_BUF (256 * 1024)   /* buffer of each log file; only whole lines are written */

/* ------------------------------------------------------------------ model */

struct model {
    double rpm, seek_min_ms, seek_max_ms, near_ms, transfer_mbps, flush_ms,
        overhead_ms, cache_mbps;
    uint64_t near_bytes, cache_bytes, capacity, seed;
    int write_cache, queue, log_wait, real_fsync, nodelay;
    char *log_dir;
    /* derived, in ns */
    int64_t rot_ns, seek_min_ns, seek_max_ns, near_ns, flush_ns, overhead_ns;
};

static struct model M;
static int base_fd = -1;
static char *backing_path;
static int64_t t_mount;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
    struct timespec ts = { .tv_sec = t / 1000000000LL, .tv_nsec = t % 1000000000LL };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static int64_t xfer_ns(uint64_t len, double mbps)
{
    if (mbps <= 0)
        return 0;
    return (int64_t)((double)len * 1000.0 / mbps); /* MB/s = 1e6 B/s = 1e-3 B/ns */
}

/* ------------------------------------------------------------------ disks */

/* A log file written only in whole lines, so a killed run leaves no partial line. */
struct logbuf {
    int fd;
    size_t len;
    char buf[LOG_BUF];
};

static void lb_flush(struct logbuf *lb)
{
    size_t done = 0;
    while (done < lb->len) {
        ssize_t n = write(lb->fd, lb->buf + done, lb->len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* disk full or I/O error: drop this batch rather than block the disk */
        done += (size_t)n;
    }
    lb->len = 0;
}

static void lb_append(struct logbuf *lb, const char *line, size_t n)
{
    if (lb->len + n > LOG_BUF)
        lb_flush(lb);
    memcpy(lb->buf + lb->len, line, n);
    lb->len += n;
}

static void lb_close(struct logbuf *lb)
{
    lb_flush(lb);
    close(lb->fd);
    free(lb);
}

struct waiter {
    struct waiter *next;
    uint64_t offset;
    int granted, passed;
    pthread_cond_t cv;
};

struct centry {
    int64_t done;
    uint64_t bytes;
};

struct disk {
    struct disk *next;
    dev_t dev;
    ino_t ino;
    char name[NAME_MAX + 1];

    /* the actuator: one owner at a time, waiters queued */
    pthread_mutex_t q;
    int busy;
    struct waiter *qh;

    /* state below is only touched by the owner */
    uint64_t head_end;     /* end offset of the last mechanical transfer */
    int64_t prev_done;     /* modelled completion time of the previous I/O */
    int64_t prev_end;      /* when the previous I/O really completed (reply sent) */
    int have_prev;
    int64_t mech_free;     /* when the mechanism is done with destaging */
    uint64_t size;         /* file size (seek curve span unless capacity=) */
    uint64_t rng;
    struct centry *ring;   /* cached writes not yet destaged */
    unsigned rhead, rcount;
    uint64_t cache_used;
    uint64_t n[4];
    int64_t svc_ns[4];

    pthread_mutex_t lg;
    struct logbuf *log, *wlog;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct disk *disks;    /* live, looked up by (dev, ino) */
static struct disk *retired;  /* unlinked files: kept until unmount */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double rng_double(struct disk *d)
{
    return (double)(splitmix64(&d->rng) >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static struct logbuf *open_log(const char *name, const char *suffix)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s%s", M.log_dir, name, suffix) >= (int)sizeof path)
        return NULL;
    struct logbuf *lb = malloc(sizeof *lb);
    if (!lb)
        return NULL;
    lb->len = 0;
    lb->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (lb->fd < 0) {
        fprintf(stderr, "slowdisk: cannot open log %s: %s\n", path, strerror(errno));
        free(lb);
        return NULL;
    }
    return lb;
}

/* Find or create the disk of an open file.  Called with reg_lock free. */
static struct disk *disk_get(const char *path, const struct stat *st)
{
    pthread_mutex_lock(&reg_lock);
    for (struct disk *d = disks; d; d = d->next)
        if (d->dev == st->st_dev && d->ino == st->st_ino) {
            pthread_mutex_unlock(&reg_lock);
            return d;
        }
    struct disk *d = calloc(1, sizeof *d);
    if (!d) {
        pthread_mutex_unlock(&reg_lock);
        return NULL;
    }
    d->dev = st->st_dev;
    d->ino = st->st_ino;
    const char *p = path;
    while (*p == '/')
        p++;
    snprintf(d->name, sizeof d->name, "%s", *p ? p : "root");
    for (char *c = d->name; *c; c++)
        if (*c == '/')
            *c = '_';
    pthread_mutex_init(&d->q, NULL);
    pthread_mutex_init(&d->lg, NULL);
    d->size = (uint64_t)st->st_size;
    d->rng = M.seed ^ fnv1a(d->name);
    if (M.write_cache) {
        d->ring = calloc(RING_CAP, sizeof *d->ring);
        if (!d->ring) {
            free(d);
            pthread_mutex_unlock(&reg_lock);
            return NULL;
        }
    }
    if (M.log_dir) {
        /* a re-created file of the same name continues the same log */
        for (struct disk *r = retired; r; r = r->next)
            if (!strcmp(r->name, d->name) && r->log) {
                pthread_mutex_lock(&r->lg);
                d->log = r->log;
                d->wlog = r->wlog;
                r->log = r->wlog = NULL;
                pthread_mutex_unlock(&r->lg);
                break;
            }
        if (!d->log)
            d->log = open_log(d->name, ".log");
        if (M.log_wait && !d->wlog)
            d->wlog = open_log(d->name, ".wait.log");
    }
    d->next = disks;
    disks = d;
    pthread_mutex_unlock(&reg_lock);
    return d;
}

static struct disk *disk_find(const struct stat *st)
{
    struct disk *found = NULL;
    pthread_mutex_lock(&reg_lock);
    for (struct disk *d = disks; d; d = d->next)
        if (d->dev == st->st_dev && d->ino == st->st_ino) {
            found = d;
            break;
        }
    pthread_mutex_unlock(&reg_lock);
    return found;
}

/* The file is gone: a new file that reuses the inode number is a new disk. */
static void disk_retire(const struct stat *st)
{
    pthread_mutex_lock(&reg_lock);
    for (struct disk **pp = &disks; *pp; pp = &(*pp)->next)
        if ((*pp)->dev == st->st_dev && (*pp)->ino == st->st_ino) {
            struct disk *d = *pp;
            *pp = d->next;
            d->next = retired;
            retired = d;
            break;
        }
    pthread_mutex_unlock(&reg_lock);
}

/* ------------------------------------------------------------- actuator */

static void disk_acquire(struct disk *d, struct waiter *w, uint64_t offset)
{
    pthread_mutex_lock(&d->q);
    if (!d->busy) {
        d->busy = 1;
        pthread_mutex_unlock(&d->q);
        return;
    }
    w->next = NULL;
    w->offset = offset;
    w->granted = 0;
    w->passed = 0;
    pthread_cond_init(&w->cv, NULL);
    struct waiter **pp = &d->qh;
    while (*pp)
        pp = &(*pp)->next;
    *pp = w;
    while (!w->granted)
        pthread_cond_wait(&w->cv, &d->q);
    pthread_mutex_unlock(&d->q);
    pthread_cond_destroy(&w->cv);
}

static void disk_release(struct disk *d)
{
    pthread_mutex_lock(&d->q);
    if (!d->qh) {
        d->busy = 0;
        pthread_mutex_unlock(&d->q);
        return;
    }
    struct waiter **best = &d->qh;
    if (M.queue == Q_SPTF) {
        uint64_t bestdist = UINT64_MAX;
        for (struct waiter **pp = &d->qh; *pp; pp = &(*pp)->next) {
            struct waiter *w = *pp;
            if (w->passed >= SPTF_MAX_PASS) { /* oldest starving one wins */
                best = pp;
                break;
            }
            uint64_t dist = w->offset > d->head_end ? w->offset - d->head_end
                                                    : d->head_end - w->offset;
            if (dist < bestdist) {
                bestdist = dist;
                best = pp;
            }
        }
        for (struct waiter *w = d->qh; w; w = w->next)
            if (w != *best)
                w->passed++;
    }
    struct waiter *w = *best;
    *best = w->next;
    w->granted = 1; /* d->busy stays set: ownership passes to w */
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&d->q);
}

/* Positioning time before a mechanical transfer at `off`. */
static int64_t position_ns(struct disk *d, uint64_t off, int miss_rule, int queued,
                           int64_t start)
{
    if (off == d->head_end) {
        /* Sequential.  Reads stream from the drive's read-ahead.  A write with
         * the write cache off that was not already queued when the previous
         * I/O finished has missed its sector: wait for it to come round. */
        if (miss_rule && !queued && d->have_prev && M.rot_ns > 0) {
            int64_t idle = start - d->prev_done;
            if (idle < 0)
                idle = 0;
            return M.rot_ns - idle % M.rot_ns;
        }
        return 0;
    }
    uint64_t dist = off > d->head_end ? off - d->head_end : d->head_end - off;
    if (dist <= M.near_bytes) {
        if (off > d->head_end) { /* short forward skip: let the gap rotate by */
            int64_t skip = xfer_ns(dist, M.transfer_mbps);
            return skip < M.near_ns ? skip : M.near_ns;
        }
        return M.near_ns;
    }
    uint64_t cap = M.capacity ? M.capacity : d->size;
    double frac = cap ? (double)dist / (double)cap : 1.0;
    if (frac > 1.0)
        frac = 1.0;
    int64_t seek = M.seek_min_ns + (int64_t)((double)(M.seek_max_ns - M.seek_min_ns) * sqrt(frac));
    int64_t rot = M.rot_ns > 0 ? (int64_t)(rng_double(d) * (double)M.rot_ns) : 0;
    return seek + rot;
}

static void ring_clear(struct disk *d)
{
    d->rhead = d->rcount = 0;
    d->cache_used = 0;
}

static void ring_pop(struct disk *d)
{
    d->cache_used -= d->ring[d->rhead].bytes;
    d->rhead = (d->rhead + 1) % RING_CAP;
    d->rcount--;
}

/* Plan one I/O: update the disk state and return its completion time. */
static int64_t plan(struct disk *d, int ddir, uint64_t off, uint64_t len, int64_t t_arr,
                    int64_t t0, int fua)
{
    /* queued: issued before the previous I/O completed, so not in reaction to it
     * (queue depth > 1); a queue-depth-1 stream never is. */
    int queued = d->have_prev && t_arr < d->prev_end;
    int64_t done;

    if (ddir == DDIR_SYNC) {
        int64_t start = t0 > d->mech_free ? t0 : d->mech_free;
        done = start + M.flush_ns;
        d->mech_free = done;
        if (d->ring)
            ring_clear(d);
    } else if (ddir == DDIR_WRITE && M.write_cache && !fua && len <= M.cache_bytes) {
        while (d->rcount && d->ring[d->rhead].done <= t0)
            ring_pop(d);
        int64_t t_space = t0;
        while (d->rcount && (d->cache_used + len > M.cache_bytes || d->rcount == RING_CAP)) {
            t_space = d->ring[d->rhead].done;
            ring_pop(d);
        }
        done = t_space + M.overhead_ns + xfer_ns(len, M.cache_mbps);
        int64_t mstart = done > d->mech_free ? done : d->mech_free;
        int64_t mdone = mstart + position_ns(d, off, 0, 1, mstart) + xfer_ns(len, M.transfer_mbps);
        unsigned slot = (d->rhead + d->rcount) % RING_CAP;
        d->ring[slot].done = mdone;
        d->ring[slot].bytes = len;
        d->rcount++;
        d->cache_used += len;
        d->mech_free = mdone;
        d->head_end = off + len;
    } else {
        /* read, uncached write, or a write through the cache: larger than the cache, or
         * forced unit access (O_SYNC/O_DSYNC); the cache is drained first */
        int64_t start = t0 > d->mech_free ? t0 : d->mech_free;
        done = start + M.overhead_ns + position_ns(d, off, ddir == DDIR_WRITE, queued, start)
               + xfer_ns(len, M.transfer_mbps);
        d->mech_free = done;
        d->head_end = off + len;
        if (d->ring)
            ring_clear(d);
    }
    if (ddir == DDIR_WRITE && off + len > d->size)
        d->size = off + len;
    d->prev_done = done;
    d->have_prev = 1;
    return done;
}

static void log_io(struct disk *d, int64_t t_end, int64_t svc, int64_t wait, int ddir,
                   uint64_t len, uint64_t off)
{
    if (!d->log)
        return;
    uint64_t t_ms = (uint64_t)((t_end - t_mount) / 1000000LL);
    char line[128];
    int n = snprintf(line, sizeof line, "%" PRIu64 ", %" PRId64 ", %d, %" PRIu64 ", %" PRIu64 ", 0\n",
                     t_ms, svc, ddir, len, off);
    pthread_mutex_lock(&d->lg);
    if (d->log)
        lb_append(d->log, line, (size_t)n);
    if (d->wlog) {
        n = snprintf(line, sizeof line, "%" PRIu64 ", %" PRId64 ", %d, %" PRIu64 ", %" PRIu64 ", 0\n",
                     t_ms, wait, ddir, len, off);
        lb_append(d->wlog, line, (size_t)n);
    }
    pthread_mutex_unlock(&d->lg);
}

#define LATE_MAX 200000 /* ns: never compensate more than this */
static int64_t late_est;

struct fh {
    int kind; /* 1 = file */
    int fd;
    int sync; /* opened O_SYNC/O_DSYNC: writes are forced to the medium */
    struct disk *disk;
};

struct dh {
    int kind; /* 2 = directory */
    DIR *dp;
};

/* One emulated disk I/O: queue for the actuator, do the real I/O, hold until due. */
static ssize_t disk_io(struct fh *fh, int ddir, char *rbuf, const char *wbuf, size_t len,
                       off_t off, int datasync)
{
    struct disk *d = fh->disk;
    struct waiter w;
    int64_t t_arr = now_ns();
    disk_acquire(d, &w, ddir == DDIR_SYNC ? d->head_end : (uint64_t)off);
    int64_t t0 = now_ns();
    int64_t done = plan(d, ddir, (uint64_t)off, len, t_arr, t0, fh->sync);

    ssize_t res;
    if (ddir == DDIR_READ)
        res = pread(fh->fd, rbuf, len, off);
    else if (ddir == DDIR_WRITE)
        res = pwrite(fh->fd, wbuf, len, off);
    else
        res = M.real_fsync ? (datasync ? fdatasync(fh->fd) : fsync(fh->fd)) : 0;
    if (res < 0)
        res = -errno;

    /* Sleep to the deadline, less the usual wake-up lateness of this machine's timers
     * (an estimate kept across I/Os) so the mean service time matches the model. */
    int64_t target = done - __atomic_load_n(&late_est, __ATOMIC_RELAXED);
    int slept = 0;
    if (target > now_ns()) {
        sleep_until(target);
        slept = 1;
    }
    int64_t t_end = now_ns();
    if (slept) {
        /* track a low quantile of the lateness: down fast, up slowly, so that a few
         * very late wake-ups (a busy host) do not make every later I/O end early */
        int64_t late = t_end - target, est = __atomic_load_n(&late_est, __ATOMIC_RELAXED);
        if (late > LATE_MAX)
            late = LATE_MAX;
        est += late < est ? (late - est) / 4 : (late - est) / 64;
        __atomic_store_n(&late_est, est < 0 ? 0 : est, __ATOMIC_RELAXED);
    }
    if (ddir <= 3) {
        d->n[ddir]++;
        d->svc_ns[ddir] += t_end - t0;
    }
    d->prev_end = t_end;
    log_io(d, t_end, t_end - t0, t0 - t_arr, ddir, ddir == DDIR_SYNC ? 0 : len,
           ddir == DDIR_SYNC ? 0 : (uint64_t)off);
    disk_release(d);
    return res;
}

/* ------------------------------------------------------------ log flusher */

static pthread_t flusher;
static int flusher_started, flusher_stop;
static pthread_mutex_t flusher_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flusher_cv = PTHREAD_COND_INITIALIZER;

static void flush_logs(struct disk *list, int close_them)
{
    for (struct disk *d = list; d; d = d->next) {
        pthread_mutex_lock(&d->lg);
        if (close_them) {
            if (d->log)
                lb_close(d->log);
            if (d->wlog)
                lb_close(d->wlog);
            d->log = d->wlog = NULL;
        } else {
            if (d->log)
                lb_flush(d->log);
            if (d->wlog)
                lb_flush(d->wlog);
        }
        pthread_mutex_unlock(&d->lg);
    }
}

static void *flusher_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&flusher_lock);
    while (!flusher_stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&flusher_cv, &flusher_lock, &ts);
        pthread_mutex_unlock(&flusher_lock);
        pthread_mutex_lock(&reg_lock);
        flush_logs(disks, 0);
        flush_logs(retired, 0);
        pthread_mutex_unlock(&reg_lock);
        pthread_mutex_lock(&flusher_lock);
    }
    pthread_mutex_unlock(&flusher_lock);
    return NULL;
}

/* ------------------------------------------------------------ fuse ops */

static const char *rel(const char *path)
{
    while (*path == '/')
        path++;
    return *path ? path : ".";
}

static void *sd_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    conn->max_write = 1024 * 1024; /* libfuse caps it at its buffer size */
    conn->max_background = 64;
    conn->congestion_threshold = 48;
    cfg->use_ino = 1;
    cfg->direct_io = 1;     /* no page cache: every read reaches the disk */
    cfg->kernel_cache = 0;
    cfg->hard_remove = 1;
    cfg->nullpath_ok = 1;
    cfg->entry_timeout = 1.0;
    cfg->attr_timeout = 1.0;
    cfg->negative_timeout = 0;
    t_mount = now_ns();
    if (M.log_dir) {   /* the logs' time 0 as wall-clock time, to line them up with other logs */
        char path[4096];
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        if (snprintf(path, sizeof path, "%s/mount.epoch_ms", M.log_dir) < (int)sizeof path) {
            FILE *f = fopen(path, "w");
            if (f) {
                fprintf(f, "%lld\n", (long long)rt.tv_sec * 1000LL + rt.tv_nsec / 1000000LL);
                fclose(f);
            }
        }
    }
    if (M.log_dir && pthread_create(&flusher, NULL, flusher_main, NULL) == 0)
        flusher_started = 1;
    return NULL;
}

static void print_summary(struct disk *list)
{
    static const char *names[4] = { "reads", "writes", "", "flushes" };
    for (struct disk *d = list; d; d = d->next) {
        fprintf(stderr, "slowdisk: disk %s:", d->name);
        for (int i = 0; i < 4; i++) {
            if (i == 2)
                continue;
            fprintf(stderr, " %" PRIu64 " %s (mean %.3f ms)", d->n[i], names[i],
                    d->n[i] ? (double)d->svc_ns[i] / (double)d->n[i] / 1e6 : 0.0);
        }
        fputc('\n', stderr);
    }
}

static int destroyed;

static void sd_destroy(void *priv)
{
    (void)priv;
    destroyed = 1;
    if (flusher_started) {
        pthread_mutex_lock(&flusher_lock);
        flusher_stop = 1;
        pthread_cond_signal(&flusher_cv);
        pthread_mutex_unlock(&flusher_lock);
        pthread_join(flusher, NULL);
    }
    pthread_mutex_lock(&reg_lock);
    flush_logs(disks, 1);
    flush_logs(retired, 1);
    print_summary(disks);
    print_summary(retired);
    pthread_mutex_unlock(&reg_lock);
}

static int sd_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    int r;
    if (fi && fi->fh) {
        int kind = *(int *)(uintptr_t)fi->fh;
        if (kind == 1)
            r = fstat(((struct fh *)(uintptr_t)fi->fh)->fd, st);
        else
            r = fstat(dirfd(((struct dh *)(uintptr_t)fi->fh)->dp), st);
    } else if (path) {
        r = fstatat(base_fd, rel(path), st, AT_SYMLINK_NOFOLLOW);
    } else {
        return -ENOENT;
    }
    return r < 0 ? -errno : 0;
}

static int sd_access(const char *path, int mask)
{
    return faccessat(base_fd, rel(path), mask, 0) < 0 ? -errno : 0;
}

static int sd_readlink(const char *path, char *buf, size_t size)
{
    ssize_t n = readlinkat(base_fd, rel(path), buf, size - 1);
    if (n < 0)
        return -errno;
    buf[n] = '\0';
    return 0;
}

static int sd_opendir(const char *path, struct fuse_file_info *fi)
{
    int fd = openat(base_fd, rel(path), O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return -errno;
    struct dh *h = malloc(sizeof *h);
    if (!h) {
        close(fd);
        return -ENOMEM;
    }
    h->kind = 2;
    h->dp = fdopendir(fd);
    if (!h->dp) {
        int e = errno;
        close(fd);
        free(h);
        return -e;
    }
    fi->fh = (uintptr_t)h;
    return 0;
}

static int sd_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t offset,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)path;
    (void)offset;
    (void)flags;
    struct dh *h = (struct dh *)(uintptr_t)fi->fh;
    rewinddir(h->dp);
    struct dirent *de;
    while ((de = readdir(h->dp))) {
        struct stat st = { 0 };
        st.st_ino = de->d_ino;
        st.st_mode = (mode_t)DTTOIF(de->d_type);
        if (filler(buf, de->d_name, &st, 0, 0))
            break;
    }
    return 0;
}

static int sd_releasedir(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    struct dh *h = (struct dh *)(uintptr_t)fi->fh;
    closedir(h->dp);
    free(h);
    return 0;
}

static int sd_mkdir(const char *path, mode_t mode)
{
    return mkdirat(base_fd, rel(path), mode) < 0 ? -errno : 0;
}

static int sd_rmdir(const char *path)
{
    return unlinkat(base_fd, rel(path), AT_REMOVEDIR) < 0 ? -errno : 0;
}

static int sd_unlink(const char *path)
{
    struct stat st;
    int have = fstatat(base_fd, rel(path), &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (unlinkat(base_fd, rel(path), 0) < 0)
        return -errno;
    if (have && S_ISREG(st.st_mode) && st.st_nlink <= 1)
        disk_retire(&st);
    return 0;
}

static int sd_symlink(const char *from, const char *to)
{
    return symlinkat(from, base_fd, rel(to)) < 0 ? -errno : 0;
}

static int sd_link(const char *from, const char *to)
{
    return linkat(base_fd, rel(from), base_fd, rel(to), 0) < 0 ? -errno : 0;
}

static int sd_rename(const char *from, const char *to, unsigned int flags)
{
    if (flags)
        return -EINVAL;
    struct stat st;
    int have = fstatat(base_fd, rel(to), &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (renameat(base_fd, rel(from), base_fd, rel(to)) < 0)
        return -errno;
    if (have && S_ISREG(st.st_mode) && st.st_nlink <= 1)
        disk_retire(&st);
    return 0;
}

static int sd_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    int r;
    if (fi && fi->fh && *(int *)(uintptr_t)fi->fh == 1)
        r = fchmod(((struct fh *)(uintptr_t)fi->fh)->fd, mode);
    else
        r = fchmodat(base_fd, rel(path), mode, 0);
    return r < 0 ? -errno : 0;
}

static int sd_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
    int r;
    if (fi && fi->fh && *(int *)(uintptr_t)fi->fh == 1)
        r = fchown(((struct fh *)(uintptr_t)fi->fh)->fd, uid, gid);
    else
        r = fchownat(base_fd, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW);
    return r < 0 ? -errno : 0;
}

static int sd_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    int fd, own = 0;
    if (fi && fi->fh && *(int *)(uintptr_t)fi->fh == 1) {
        fd = ((struct fh *)(uintptr_t)fi->fh)->fd;
    } else {
        fd = openat(base_fd, rel(path), O_WRONLY);
        if (fd < 0)
            return -errno;
        own = 1;
    }
    int r = ftruncate(fd, size) < 0 ? -errno : 0;
    struct stat st;
    if (r == 0 && fstat(fd, &st) == 0) {
        struct disk *d = disk_find(&st);
        if (d) /* racy against an I/O in flight; only feeds the seek curve span */
            d->size = (uint64_t)size;
    }
    if (own)
        close(fd);
    return r;
}

static int sd_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    int r;
    if (fi && fi->fh && *(int *)(uintptr_t)fi->fh == 1)
        r = futimens(((struct fh *)(uintptr_t)fi->fh)->fd, tv);
    else
        r = utimensat(base_fd, rel(path), tv, AT_SYMLINK_NOFOLLOW);
    return r < 0 ? -errno : 0;
}

static int open_common(const char *path, int fd, int flags, struct fuse_file_info *fi)
{
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    struct fh *h = calloc(1, sizeof *h);
    if (!h) {
        close(fd);
        return -ENOMEM;
    }
    h->kind = 1;
    h->fd = fd;
    h->sync = (flags & (O_SYNC | O_DSYNC)) != 0;
    if (S_ISREG(st.st_mode)) {
        h->disk = disk_get(path, &st);
        if (!h->disk) {
            close(fd);
            free(h);
            return -ENOMEM;
        }
        if ((uint64_t)st.st_size > h->disk->size)
            h->disk->size = (uint64_t)st.st_size; /* only feeds the seek curve span */
    }
    fi->fh = (uintptr_t)h;
    fi->direct_io = 1;
    fi->keep_cache = 0;
    return 0;
}

/* The backing file is opened without O_DIRECT and O_SYNC: the emulated disk, not the
 * host's, decides how long an I/O takes; the kernel's sync requests arrive as fsync. */
static int backing_flags(int flags)
{
    return flags & ~(O_DIRECT | O_SYNC | O_DSYNC | O_NOFOLLOW | O_CREAT | O_EXCL | O_NOCTTY);
}

static int sd_open(const char *path, struct fuse_file_info *fi)
{
    int fd = openat(base_fd, rel(path), backing_flags(fi->flags));
    if (fd < 0)
        return -errno;
    return open_common(path, fd, fi->flags, fi);
}

static int sd_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    int fd = openat(base_fd, rel(path), backing_flags(fi->flags) | O_CREAT | (fi->flags & O_EXCL),
                    mode);
    if (fd < 0)
        return -errno;
    return open_common(path, fd, fi->flags, fi);
}

static int sd_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    struct fh *h = (struct fh *)(uintptr_t)fi->fh;
    if (!h->disk) {
        ssize_t n = pread(h->fd, buf, size, off);
        return n < 0 ? -errno : (int)n;
    }
    return (int)disk_io(h, DDIR_READ, buf, NULL, size, off, 0);
}

static int sd_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    (void)path;
    struct fh *h = (struct fh *)(uintptr_t)fi->fh;
    if (!h->disk) {
        ssize_t n = pwrite(h->fd, buf, size, off);
        return n < 0 ? -errno : (int)n;
    }
    return (int)disk_io(h, DDIR_WRITE, NULL, buf, size, off, 0);
}

static int sd_statfs(const char *path, struct statvfs *st)
{
    (void)path;
    return fstatvfs(base_fd, st) < 0 ? -errno : 0;
}

static int sd_flush(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    (void)fi;
    return 0; /* close(2), not a cache flush */
}

static int sd_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    struct fh *h = (struct fh *)(uintptr_t)fi->fh;
    close(h->fd);
    free(h);
    return 0;
}

static int sd_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    struct fh *h = (struct fh *)(uintptr_t)fi->fh;
    if (!h->disk)
        return (datasync ? fdatasync(h->fd) : fsync(h->fd)) < 0 ? -errno : 0;
    return (int)disk_io(h, DDIR_SYNC, NULL, NULL, 0, 0, datasync);
}

static int sd_fallocate(const char *path, int mode, off_t off, off_t len,
                        struct fuse_file_info *fi)
{
    (void)path;
    struct fh *h = (struct fh *)(uintptr_t)fi->fh;
    return fallocate(h->fd, mode, off, len) < 0 ? -errno : 0;
}

static const struct fuse_operations sd_ops = {
    .init = sd_init,
    .destroy = sd_destroy,
    .getattr = sd_getattr,
    .access = sd_access,
    .readlink = sd_readlink,
    .opendir = sd_opendir,
    .readdir = sd_readdir,
    .releasedir = sd_releasedir,
    .mkdir = sd_mkdir,
    .rmdir = sd_rmdir,
    .unlink = sd_unlink,
    .symlink = sd_symlink,
    .link = sd_link,
    .rename = sd_rename,
    .chmod = sd_chmod,
    .chown = sd_chown,
    .truncate = sd_truncate,
    .utimens = sd_utimens,
    .open = sd_open,
    .create = sd_create,
    .read = sd_read,
    .write = sd_write,
    .statfs = sd_statfs,
    .flush = sd_flush,
    .release = sd_release,
    .fsync = sd_fsync,
    .fallocate = sd_fallocate,
};

/* ------------------------------------------------------------ options */

struct raw {
    char *rpm, *seek_min_ms, *seek_avg_ms, *seek_max_ms, *near_bytes, *near_ms,
        *transfer_mbps, *flush_ms, *overhead_ms, *write_cache, *cache_bytes, *cache_mbps,
        *capacity, *seed, *queue, *log_dir, *log_wait, *real_fsync;
    int nodelay, help, version, nonopts, has_max_threads, has_max_idle;
    char *backing, *mountpoint;
};

#define OPT(name) { #name "=%s", offsetof(struct raw, name), 0 }
static const struct fuse_opt sd_opts[] = {
    OPT(rpm), OPT(seek_min_ms), OPT(seek_avg_ms), OPT(seek_max_ms), OPT(near_bytes),
    OPT(near_ms), OPT(transfer_mbps), OPT(flush_ms), OPT(overhead_ms), OPT(write_cache),
    OPT(cache_bytes), OPT(cache_mbps), OPT(capacity), OPT(seed), OPT(queue), OPT(log_dir),
    OPT(log_wait), OPT(real_fsync),
    { "nodelay", offsetof(struct raw, nodelay), 1 },
    FUSE_OPT_KEY("-h", 1), FUSE_OPT_KEY("--help", 1),
    FUSE_OPT_KEY("-V", 2), FUSE_OPT_KEY("--version", 2),
    FUSE_OPT_KEY("max_threads=", 3),
    FUSE_OPT_KEY("max_idle_threads=", 4),
    FUSE_OPT_END
};

static int opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
    (void)outargs;
    struct raw *r = data;
    if (key == 1) {
        r->help = 1;
        return 1;
    }
    if (key == 2) {
        r->version = 1;
        return 1;
    }
    if (key == 3) {
        r->has_max_threads = 1;
        return 1;
    }
    if (key == 4) {
        r->has_max_idle = 1;
        return 1;
    }
    if (key == FUSE_OPT_KEY_NONOPT) {
        r->nonopts++;
        if (!r->backing) {
            r->backing = strdup(arg);
            return 0; /* consumed: fuse only sees the mountpoint */
        }
        if (!r->mountpoint)
            r->mountpoint = strdup(arg);
        return 1;
    }
    return 1;
}

static void die_opt(const char *name, const char *value, const char *allowed)
{
    fprintf(stderr, "slowdisk: invalid option %s=%s: allowed: %s\n", name, value, allowed);
    exit(2);
}

static double get_num(const char *name, const char *v, double def, double lo, double hi,
                      const char *allowed)
{
    if (!v)
        return def;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || errno || !isfinite(x) || x < lo || x > hi)
        die_opt(name, v, allowed);
    return x;
}

/* bytes: integer with an optional k/m/g/t suffix (binary, optional "ib" or "b") */
static uint64_t get_size(const char *name, const char *v, uint64_t def, uint64_t lo,
                         uint64_t hi, const char *allowed)
{
    if (!v)
        return def;
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)v[0]))
        die_opt(name, v, allowed);
    unsigned long long x = strtoull(v, &end, 10);
    if (errno)
        die_opt(name, v, allowed);
    uint64_t mult = 1;
    switch (tolower((unsigned char)*end)) {
    case 'k': mult = 1ULL << 10; end++; break;
    case 'm': mult = 1ULL << 20; end++; break;
    case 'g': mult = 1ULL << 30; end++; break;
    case 't': mult = 1ULL << 40; end++; break;
    default: break;
    }
    if (mult > 1 && (!strcasecmp(end, "ib") || !strcasecmp(end, "b")))
        end += strlen(end);
    if (*end || (x && mult > UINT64_MAX / x))
        die_opt(name, v, allowed);
    uint64_t b = (uint64_t)x * mult;
    if (b < lo || b > hi)
        die_opt(name, v, allowed);
    return b;
}

static int get_bool(const char *name, const char *v, int def)
{
    if (!v)
        return def;
    if (!strcasecmp(v, "on") || !strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes"))
        return 1;
    if (!strcasecmp(v, "off") || !strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no"))
        return 0;
    die_opt(name, v, "on or off (also 1/0, true/false, yes/no)");
    return 0;
}

static void build_model(struct raw *r)
{
    M.rpm = get_num("rpm", r->rpm, 7200, 0, 30000, "0 (no rotational delay) or 600..30000");
    if (M.rpm > 0 && M.rpm < 600)
        die_opt("rpm", r->rpm, "0 (no rotational delay) or 600..30000");
    M.seek_min_ms = get_num("seek_min_ms", r->seek_min_ms, 0.5, 0, 100, "0..100 (ms)");
    if (r->seek_avg_ms && r->seek_max_ms) {
        fprintf(stderr, "slowdisk: invalid option seek_avg_ms=%s: allowed: give seek_avg_ms or "
                        "seek_max_ms, not both (seek_max_ms=%s)\n", r->seek_avg_ms, r->seek_max_ms);
        exit(2);
    }
    /* seek(d) = min + (max - min) * sqrt(d / capacity); over uniformly random pairs of
     * positions the mean of sqrt(d / capacity) is 8/15, so avg = min + (max - min) * 8/15 */
    if (r->seek_avg_ms) {
        char allowed[128];
        double hi = M.seek_min_ms + (1000.0 - M.seek_min_ms) * 8.0 / 15.0;
        snprintf(allowed, sizeof allowed, "seek_min_ms..%.3f (ms; seek_min_ms=%g)", hi, M.seek_min_ms);
        double avg = get_num("seek_avg_ms", r->seek_avg_ms, 0, M.seek_min_ms, hi, allowed);
        M.seek_max_ms = M.seek_min_ms + (avg - M.seek_min_ms) * 15.0 / 8.0;
    } else {
        char allowed[128];
        snprintf(allowed, sizeof allowed, "seek_min_ms..1000 (ms; seek_min_ms=%g)", M.seek_min_ms);
        M.seek_max_ms = get_num("seek_max_ms", r->seek_max_ms, 15.0 > M.seek_min_ms ? 15.0 : M.seek_min_ms,
                                M.seek_min_ms, 1000, allowed);
    }
    M.near_bytes = get_size("near_bytes", r->near_bytes, MIB, 0, 1ULL << 30,
                            "0..1G (bytes, suffix k/m/g allowed)");
    M.near_ms = get_num("near_ms", r->near_ms, 1.0, 0, 100, "0..100 (ms)");
    M.transfer_mbps = get_num("transfer_mbps", r->transfer_mbps, 120, 0, 1e6,
                              "0 (no transfer time) or a rate in MB/s (1 MB = 10^6 bytes) up to 1000000");
    M.flush_ms = get_num("flush_ms", r->flush_ms, 4.0, 0, 10000, "0..10000 (ms)");
    M.overhead_ms = get_num("overhead_ms", r->overhead_ms, 0.0, 0, 1000, "0..1000 (ms)");
    M.write_cache = get_bool("write_cache", r->write_cache, 0);
    M.cache_bytes = get_size("cache_bytes", r->cache_bytes, 16 * MIB, 4096, 1ULL << 32,
                             "4k..4G (bytes, suffix k/m/g allowed)");
    M.cache_mbps = get_num("cache_mbps", r->cache_mbps, 300, 0, 1e6,
                           "0 (instant) or a rate in MB/s up to 1000000");
    M.capacity = get_size("capacity", r->capacity, 0, 0, 1ULL << 50,
                          "0 (the file's size) or a size in bytes up to 1P (suffix k/m/g/t allowed)");
    if (M.capacity && M.capacity < 4096)
        die_opt("capacity", r->capacity, "0 (the file's size) or 4k..1P (bytes)");
    if (r->seed) {
        char *end;
        errno = 0;
        if (!isdigit((unsigned char)r->seed[0]))
            die_opt("seed", r->seed, "an integer 0..18446744073709551615");
        M.seed = strtoull(r->seed, &end, 0);
        if (errno || *end)
            die_opt("seed", r->seed, "an integer 0..18446744073709551615");
    } else {
        M.seed = 1;
    }
    M.queue = Q_FIFO;
    if (r->queue) {
        if (!strcmp(r->queue, "fifo"))
            M.queue = Q_FIFO;
        else if (!strcmp(r->queue, "sptf"))
            M.queue = Q_SPTF;
        else
            die_opt("queue", r->queue, "fifo or sptf");
    }
    M.log_wait = get_bool("log_wait", r->log_wait, 0);
    M.real_fsync = get_bool("real_fsync", r->real_fsync, 0);
    if (r->log_dir) {
        struct stat st;
        char *p = realpath(r->log_dir, NULL);
        if (!p || stat(p, &st) < 0 || !S_ISDIR(st.st_mode) || access(p, W_OK) < 0)
            die_opt("log_dir", r->log_dir, "an existing writable directory");
        M.log_dir = p;
    } else if (M.log_wait) {
        die_opt("log_wait", r->log_wait, "on only together with log_dir=DIR");
    }
    M.nodelay = r->nodelay;
    if (M.nodelay) {
        M.rpm = 0;
        M.seek_min_ms = M.seek_max_ms = M.near_ms = M.flush_ms = M.overhead_ms = 0;
        M.transfer_mbps = M.cache_mbps = 0;
    }
    M.rot_ns = M.rpm > 0 ? (int64_t)(60e9 / M.rpm) : 0;
    M.seek_min_ns = (int64_t)(M.seek_min_ms * 1e6);
    M.seek_max_ns = (int64_t)(M.seek_max_ms * 1e6);
    M.near_ns = (int64_t)(M.near_ms * 1e6);
    M.flush_ns = (int64_t)(M.flush_ms * 1e6);
    M.overhead_ns = (int64_t)(M.overhead_ms * 1e6);
}

static void usage(const char *prog)
{
    printf("usage: %s BACKING_DIR MOUNTPOINT [-f] [-o option[,option...]]\n\n"
           "Every regular file in BACKING_DIR is one emulated mechanical disk.\n\n"
           "slowdisk options (defaults in brackets):\n"
           "    -o rpm=N               spindle speed; 0 = no rotational delay [7200]\n"
           "    -o seek_min_ms=X       track-to-track seek [0.5]\n"
           "    -o seek_max_ms=X       full-stroke seek [15]\n"
           "    -o seek_avg_ms=X       alternative to seek_max_ms: mean random seek [8.23]\n"
           "    -o near_bytes=N        a jump up to N bytes is 'near' [1M]\n"
           "    -o near_ms=X           cost of a near jump (forward: min(gap transfer, X)) [1]\n"
           "    -o transfer_mbps=X     media rate, MB/s (10^6 B/s); 0 = instant [120]\n"
           "    -o flush_ms=X          cost of a cache flush (fsync) [4]\n"
           "    -o overhead_ms=X       fixed per-I/O command overhead [0]\n"
           "    -o write_cache=on|off  volatile write cache [off]\n"
           "    -o cache_bytes=N       write cache size [16M]\n"
           "    -o cache_mbps=X        rate into the write cache, MB/s [300]\n"
           "    -o capacity=N          span of the seek curve; 0 = file size [0]\n"
           "    -o seed=N              seed of the rotational-delay RNG [1]\n"
           "    -o queue=fifo|sptf     order of queued I/Os [fifo]\n"
           "    -o log_dir=DIR         per-I/O log per disk: DIR/<disk>.log\n"
           "    -o log_wait=on|off     also DIR/<disk>.wait.log with queue waits [off]\n"
           "    -o real_fsync=on|off   also fsync the backing file [off]\n"
           "    -o nodelay             no emulated delay at all (for overhead tests)\n\n",
           prog);
}

int main(int argc, char *argv[])
{
    struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
    struct raw r;
    memset(&r, 0, sizeof r);
    if (fuse_opt_parse(&args, &r, sd_opts, opt_proc) == -1)
        return 2;
    if (r.version) {
        printf("slowdisk %s (libfuse %s)\n", SLOWDISK_VERSION, fuse_pkgversion());
        return 0;
    }
    if (r.help) {
        usage(argv[0]);
        return fuse_main(args.argc, args.argv, &sd_ops, NULL);
    }
    if (!r.backing || !r.mountpoint) {
        fprintf(stderr, "slowdisk: need BACKING_DIR and MOUNTPOINT (see %s --help)\n", argv[0]);
        return 2;
    }
    if (r.nonopts > 2) {
        fprintf(stderr, "slowdisk: too many arguments: only BACKING_DIR and MOUNTPOINT\n");
        return 2;
    }
    build_model(&r);

    backing_path = realpath(r.backing, NULL);
    struct stat st;
    if (!backing_path || stat(backing_path, &st) < 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "slowdisk: BACKING_DIR %s: not an existing directory\n", r.backing);
        return 2;
    }
    char *mp = realpath(r.mountpoint, NULL);
    if (mp) {
        size_t n = strlen(mp);
        if (!strncmp(backing_path, mp, n) && (backing_path[n] == '/' || backing_path[n] == '\0')) {
            fprintf(stderr, "slowdisk: BACKING_DIR %s must not be MOUNTPOINT %s or inside it\n",
                    backing_path, mp);
            return 2;
        }
        free(mp);
    }
    base_fd = open(backing_path, O_RDONLY | O_DIRECTORY);
    if (base_fd < 0) {
        fprintf(stderr, "slowdisk: BACKING_DIR %s: %s\n", backing_path, strerror(errno));
        return 2;
    }

    char *fsopt = NULL, fsname[PATH_MAX + 32];
    snprintf(fsname, sizeof fsname, "fsname=slowdisk:%s", backing_path);
    fuse_opt_add_opt_escaped(&fsopt, fsname);
    fuse_opt_add_opt(&fsopt, "subtype=slowdisk");
    fuse_opt_add_arg(&args, "-o");
    fuse_opt_add_arg(&args, fsopt);
    if (!r.has_max_threads)
        fuse_opt_add_arg(&args, "-omax_threads=64");
    if (!r.has_max_idle)
        fuse_opt_add_arg(&args, "-omax_idle_threads=16"); /* also quiets a libfuse 3.14 warning */

    /* sleep to the ns; inherited by libfuse's worker threads */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    t_mount = now_ns();

    fprintf(stderr,
            "slowdisk %s: %s: rpm=%g seek_min_ms=%g seek_max_ms=%g near_bytes=%" PRIu64
            " near_ms=%g transfer_mbps=%g flush_ms=%g overhead_ms=%g write_cache=%s"
            " cache_bytes=%" PRIu64 " cache_mbps=%g capacity=%" PRIu64 " seed=%" PRIu64
            " queue=%s%s%s\n",
            SLOWDISK_VERSION, backing_path, M.rpm, M.seek_min_ms, M.seek_max_ms, M.near_bytes,
            M.near_ms, M.transfer_mbps, M.flush_ms, M.overhead_ms, M.write_cache ? "on" : "off",
            M.cache_bytes, M.cache_mbps, M.capacity, M.seed, M.queue == Q_SPTF ? "sptf" : "fifo",
            M.log_dir ? " log_dir=" : "", M.log_dir ? M.log_dir : "");

    int ret = fuse_main(args.argc, args.argv, &sd_ops, NULL);
    fuse_opt_free_args(&args);
    /* libfuse >= 3.12 reports a loop ended by SIGTERM/SIGINT/SIGHUP as an error (8) although
     * it unmounted cleanly and ran destroy(): that is our normal way out, so exit 0. */
    if (ret == 8 && destroyed)
        ret = 0;
    return ret;
}
