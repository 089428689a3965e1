"""Lab `jbod` (chapter "JBOD cabling: a hierarchy view finds two single-path JBODs", chapters/jbod.md).

The enclosures are block devices stacked on the host; the writers are fio in one container per phase.

    fio (one job per disk) --> /dev/loopJpX   a disk: partition X of JBOD J's loop device
                               /dev/loopJ     the JBOD: its SAS paths = a blkio write-bandwidth limit
                                              (`paths` x `path_bw`) on this device
                               /dev/loopCpJ   JBOD J's slot on the chain it is cabled to
                               /dev/loopC     the chain behind one HBA: a limit of `chain_bw` shared
                                              by every JBOD in the chain
                               /dev/shm/...   a sparse file in RAM (tmpfs) behind each chain

Both limits live in the fio container's blkio cgroup (Docker's --device-write-bps, made and removed
with the container): a limit on a parent device also holds its partitions, and the loop driver
charges the I/O it passes down to the cgroup of the process that issued it, so the chain's limit
holds the writes of all its JBODs together. Partitions are made with the BLKPG ioctl, as `addpart`
makes them (the kernel here has no partition-table parsers; perflab.infra.partitions). Every loop
device is written to the run's ledger before it is bound and released after its partitions are
deleted and it is detached (perflab clean does the same after a crash); the tmpfs directory is a
ledger `path`.

Phases, each a fresh fio container writing every disk at `disk_rate`:
  as cabled     JBODs in `single_path` have one path, the others two; the chains as cabled: the
                JBODs in `short_chain` behind HBA 1, the rest behind HBA 2
  second path   every JBOD has two paths; the chains unchanged
  balanced      every JBOD has two paths; the JBODs dealt round-robin over `hbas` chains
The pool is mirrored: disk X of JBOD J mirrors a disk in another JBOD (mirror_pairs); a mirror holds
a block once both sides have written it, so the pool's write throughput is the sum over mirrors of
the slower side's rate.

Collected: fio/<phase>/<job>_clat.N.log (per-I/O completion latency, epoch ms), fio/<phase>/*.json,
the job files as run, fio/<phase>/iostat.txt (`iostat -x` of the JBODs' and the chains' devices, on
the host), and timeline.json (layout, cabling per phase, device names, disk names).
load() reads them back, with the outlier threshold (`outlier_ms`) from run.json's parameters.

    experiment.py   plan(), the layout (disks, mirrors, chains, cabling per phase), the enclosures on
                    loop devices (Enclosures), the job file, run(): the tool
    model.py        the cabling model: what the limits let each disk and the pool write, and which
                    chains are asked for more than they carry
    analysis.py     load(), summary(): queues, outliers, the single-path JBODs found from the data, the
                    pool's throughput, the chain effect
    figures.py      the chapter's figures
    checks.py       CHECKS: the chapter's claims, each declared once

The layout and the analysis are tested in tests/test_jbod.py, the checks in tests/test_jbod_checks.py.
"""
from .analysis import (FELL_BEHIND, chain_effect, chain_of, detect_slow_jbods, disk_stats, iostat_by_jbod, iostat_view,
                       jbod_stats, load,
                       outliers_by_disk, phase_writes, pool_mib_s, share_by_jbod, slow_band, spread, summary,
                       windows)
from .checks import CHECKS
from .experiment import (JOB, KEYS, PHASES, SETTLE_S, Enclosures, add_partitions, as_cabled_chains,
                         balanced_chains, cabling, disk_name, jbod_bytes, job_file, job_name, mirror_pairs, plan,
                         run)
from .figures import (CALM, LONG_CHAIN, OTHER, PHASE_COLOURS, SINGLE_PATH, SLOW, fig_chains, fig_disk_queues,
                      fig_heatmap, fig_outliers_flat, fig_outliers_sunburst, fig_queues, fig_throughput, lat_paths)
from .model import (MiB, chain_needs, chain_oversubscribed, free_disk_mib_s, layout, model_disk_mib_s,
                    model_pool_mib_s, oversubscribed_jbods)

__all__ = ["CALM", "CHECKS", "Enclosures", "FELL_BEHIND", "JOB", "KEYS", "LONG_CHAIN", "MiB", "OTHER", "PHASES",
           "PHASE_COLOURS", "SETTLE_S", "SINGLE_PATH", "SLOW", "add_partitions", "as_cabled_chains",
           "balanced_chains", "cabling", "chain_effect", "chain_needs",
           "chain_of", "chain_oversubscribed", "detect_slow_jbods", "disk_name", "disk_stats", "fig_chains",
           "fig_disk_queues", "fig_heatmap", "fig_outliers_flat", "fig_outliers_sunburst", "fig_queues",
           "fig_throughput", "free_disk_mib_s", "iostat_by_jbod", "iostat_view", "jbod_bytes", "jbod_stats",
           "job_file", "job_name", "lat_paths",
           "layout", "load", "mirror_pairs", "model_disk_mib_s", "model_pool_mib_s", "outliers_by_disk",
           "oversubscribed_jbods", "phase_writes", "plan", "pool_mib_s", "run", "share_by_jbod", "slow_band",
           "spread", "summary", "windows"]
