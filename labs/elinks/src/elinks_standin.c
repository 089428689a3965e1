/*
 * elinks-standin: a small program that misbehaves the way elinks did in 2009 (perflab lab
 * "elinks", chapter chapters/elinks.md).
 *
 * elinks redrew its status "LEDs" from a timer; every redraw went down through the view and the
 * forms code into load_formhist_from_file(), which called fopen() on ~/.elinks/formhist. When that
 * file did not exist, nothing remembered the failure, so the next redraw tried again: an idle
 * browser made dozens of failed opens a second, and with a home directory on NFS each one became a
 * request to the file server.
 *
 * This program keeps that shape and nothing else: a select() loop with one timer, and a call chain
 * named after the frames of the 2009 stack trace (main -> select_loop -> check_timers ->
 * redraw_leds -> redraw_terminal -> term_send_event -> tabwin_func -> draw_formatted ->
 * refresh_view -> draw_doc -> draw_view_status -> draw_forms -> get_form_history_value ->
 * load_formhist_from_file -> fopen). Build it with -O0 -g -fno-omit-frame-pointer so that every
 * frame stays a real frame that strace -k and bpftrace's ustack can walk.
 *
 *   elinks-standin [--rate N] [--fixed] [--formhist PATH] [--pidfile PATH]
 *     --rate N        LED redraws per second (default 63, the rate measured in 2009)
 *     --fixed         the later behaviour: remember that the file is missing and stop looking
 *     --formhist PATH the form-history file (default $HOME/.elinks/formhist)
 *     --pidfile PATH  write the process id there (so that it can be stopped by its id)
 *
 * On SIGTERM or SIGINT it prints one summary line on stderr (redraws, fopen calls, failures) and
 * exits 0. The timer runs on absolute deadlines, so slow opens do not lower the rate.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#define FRAME __attribute__((noinline))

enum formhist_state { FORMHIST_UNKNOWN, FORMHIST_LOADED, FORMHIST_MISSING };

static char formhist_path[4096];
static int fixed_version;
static enum formhist_state formhist_state = FORMHIST_UNKNOWN;
static double led_interval_s = 1.0 / 63.0;
static volatile sig_atomic_t stopping;
static unsigned long n_redraws, n_fopen, n_fopen_failed, n_entries;

struct timer {
	double deadline; /* CLOCK_MONOTONIC seconds */
	void (*fn)(struct timer *);
};
static struct timer led_timer;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The form history: one "url name value" line per remembered form field. */
FRAME int load_formhist_from_file(void)
{
	char line[1024];
	FILE *f = fopen(formhist_path, "r");

	n_fopen++;
	if (!f) {
		n_fopen_failed++;
		return -1;
	}
	while (fgets(line, sizeof line, f))
		n_entries++;
	fclose(f);
	return 0;
}

FRAME const char *get_form_history_value(const char *url, const char *name)
{
	(void)url;
	(void)name;
	/* The bug: the old code loaded whenever it had nothing loaded, and a missing file never
	 * counts as loaded. The fixed version also remembers "missing". */
	if (formhist_state == FORMHIST_UNKNOWN || (!fixed_version && formhist_state == FORMHIST_MISSING))
		formhist_state = load_formhist_from_file() == 0 ? FORMHIST_LOADED : FORMHIST_MISSING;
	return NULL;
}

FRAME void draw_forms(void) { get_form_history_value("http://www.osnews.com/", "search"); }
FRAME void draw_view_status(void) { draw_forms(); }
FRAME void draw_doc(void) { draw_view_status(); }
FRAME void refresh_view(void) { draw_doc(); }
FRAME void draw_formatted(void) { refresh_view(); }
FRAME void tabwin_func(void) { draw_formatted(); }
FRAME void term_send_event(void) { tabwin_func(); }
FRAME void redraw_terminal(void) { term_send_event(); }

FRAME void redraw_leds(struct timer *t)
{
	n_redraws++;
	redraw_terminal();
	t->deadline += led_interval_s; /* install the timer again, on the absolute schedule */
}

FRAME void check_timers(void)
{
	double now = now_s();

	if (led_timer.deadline <= now) {
		/* Far behind (the process was stopped): start the schedule again from now. */
		if (now - led_timer.deadline > 1.0)
			led_timer.deadline = now;
		led_timer.fn(&led_timer);
	}
}

FRAME void select_loop(void)
{
	while (!stopping) {
		double wait = led_timer.deadline - now_s();
		struct timeval tv = {0, 0};

		if (wait > 0) {
			tv.tv_sec = (time_t)wait;
			tv.tv_usec = (suseconds_t)((wait - tv.tv_sec) * 1e6);
		}
		if (select(0, NULL, NULL, NULL, &tv) < 0 && errno != EINTR) {
			perror("select");
			return;
		}
		check_timers();
	}
}

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--rate N] [--fixed] [--formhist PATH] [--pidfile PATH]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	double rate = 63.0;
	const char *path = NULL, *pidfile = NULL;
	struct sigaction sa;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rate") && i + 1 < argc)
			rate = atof(argv[++i]);
		else if (!strcmp(argv[i], "--fixed"))
			fixed_version = 1;
		else if (!strcmp(argv[i], "--formhist") && i + 1 < argc)
			path = argv[++i];
		else if (!strcmp(argv[i], "--pidfile") && i + 1 < argc)
			pidfile = argv[++i];
		else
			usage(argv[0]);
	}
	if (!(rate > 0 && rate <= 10000)) {
		fprintf(stderr, "%s: --rate must be in (0, 10000]\n", argv[0]);
		return 2;
	}
	if (path)
		snprintf(formhist_path, sizeof formhist_path, "%s", path);
	else
		snprintf(formhist_path, sizeof formhist_path, "%s/.elinks/formhist",
			 getenv("HOME") ? getenv("HOME") : ".");

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal; /* no SA_RESTART: select() returns and the loop sees `stopping` */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	if (pidfile) {
		FILE *pf = fopen(pidfile, "w");

		if (!pf || fprintf(pf, "%d\n", (int)getpid()) < 0 || fclose(pf) != 0) {
			perror(pidfile);
			return 1;
		}
	}
	led_interval_s = 1.0 / rate;
	led_timer.fn = redraw_leds;
	led_timer.deadline = now_s();
	fprintf(stderr, "elinks-standin: pid %d, %s version, %.3g LED redraws/s, form history %s\n",
		(int)getpid(), fixed_version ? "fixed" : "buggy", rate, formhist_path);
	select_loop();
	fprintf(stderr, "elinks-standin: %lu redraws, %lu fopen calls, %lu failed, %lu history entries\n",
		n_redraws, n_fopen, n_fopen_failed, n_entries);
	return 0;
}
