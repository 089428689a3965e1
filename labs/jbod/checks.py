"""The jbod chapter's claims, each declared once (perflab.analysis.checks).

The disks, paths and chains are emulated in RAM (loop devices on /dev/shm, blkio write limits), so
no check asks anything of the disk under Docker's volume. What they ask of the machine (the chapter's
audit table says it too):
- fio's pace: every disk is written at `disk_rate`, and a writer that does not keep that pace falls
  behind without any limit to blame. The run measures the pace: the share of `disk_rate` that the
  disks no limit holds back reached in each phase (free_disk_reached_*). The throughput checks hold
  the pool to the cabling model at that pace, so a busy CPU or a CPU limit that slows fio is measured
  there, not assumed away. Where the pace itself rules a claim out, the check says "not shown here"
  with the pace: under FELL_BEHIND of the set rate every JBOD counts as fallen behind (the detection,
  the outliers' share, the long chain against a missing path); at a pace where no chain is asked for
  more than it carries there is no chain shortage to queue on, nor a gain from balancing the chains.
  Each of these says so only where the pool agreed with the cabling model in that phase, within
  POOL_TOL: the limits were in force, so what is left to blame is the pace;
- the kernel's blkio throttle to hold each limit (paths, chains) as Docker sets it; of the image, only
  fio's per-I/O latency log, which perflab.fio.logs reads in fio 3.33's form and in newer fio's;
- latency: a device no limit holds back answers in well under a millisecond (it is RAM), and the
  slow band is hundreds of milliseconds; only a stall of fio longer than `outlier_ms` would put a
  write of a free disk in the band;
- the even balanced chains: a JBOD's queue there is a fraction of a millisecond times its rate, so a
  CPU that stalls some JBODs' writers more than others' shows in it. The run does not measure how
  evenly fio was scheduled, so this check has no "not shown here".
"""
from __future__ import annotations

from perflab.analysis.checks import Check

from .analysis import FELL_BEHIND
from .model import MiB, chain_needs, chain_oversubscribed, layout, oversubscribed_jbods

POOL_TOL = 0.05          # the pool within 5% of the cabling model
GAIN_TOL = 0.03          # the second path's gain within 3 points of the model's
BAND_GONE = 0.001        # balanced: at most 0.1% of the writes in the slow band
LITTLE = (0.8, 1.25)     # the band's median latency / (iodepth over its disks' writes per second)
CHAIN_QUEUE = 1.5        # the long chain's queue per disk at least this times the short chain's
EVEN = 1.5               # balanced: highest / lowest queue per disk at most this
BALANCE_GAIN = 0.02      # balancing the chains raises the pool's throughput by at least 2%


def _planted(p) -> list[int]:
    return sorted(p["single_path"])


def _oversubscribed(p, phase: str) -> bool:
    """The cabling model's prediction from the parameters: some chain asked for more than it carries."""
    return chain_oversubscribed(layout(p), phase)


def _model_held(m, k: str) -> bool:
    """The lab did its part in phase `k`: the pool wrote within POOL_TOL of the cabling model at the
    pace the run measured, so the path and chain limits were in force as cabled."""
    got, model = m.get(f"pool_mib_s_{k}"), m.get(f"pool_model_mib_s_{k}")
    return got is not None and bool(model) and abs(got / model - 1) <= POOL_TOL


PHASE_OF = {"cabled": "as cabled", "dual": "second path", "balanced": "balanced"}


def _behind(m, keys) -> str | None:
    """The first phase of `keys` whose free disks fell short of FELL_BEHIND while its limits held."""
    for k in keys:
        r = m.get(f"free_disk_reached_{k}")
        if r is not None and r < FELL_BEHIND and _model_held(m, k):
            return (f"this machine's fio wrote the disks that no limit holds back at {r:.0%} of the set rate "
                    f"({PHASE_OF[k]}), under the {FELL_BEHIND:.0%} below which a JBOD counts as fallen behind: "
                    f"every JBOD falls behind, single path or not")
    return None


def _fio_behind_as_cabled(m, p) -> str | None:
    """fio wrote the disks that no limit holds back at less than {FELL_BEHIND:.0%} of the set rate as cabled,
    so every JBOD fell behind (and the pool agreed with the cabling model: the limits were in force)."""
    return _behind(m, ("cabled",))


def _fio_behind_with_two_paths(m, p) -> str | None:
    """fio wrote the disks that no limit holds back at less than {FELL_BEHIND:.0%} of the set rate with both
    paths cabled (and the pool agreed with the cabling model: the limits were in force)."""
    return _behind(m, ("dual",))


def _fio_behind_either(m, p) -> str | None:
    """fio wrote the disks that no limit holds back at less than {FELL_BEHIND:.0%} of the set rate as cabled
    or with both paths (and the pool agreed with the cabling model in that phase)."""
    return _behind(m, ("cabled", "dual"))


def _chain_not_short(m, p) -> str | None:
    """at the pace fio kept with both paths cabled (the share of the set rate the disks no limit holds
    back reached), no chain was asked for more than its HBA carries (and the pool agreed with the
    cabling model: the limits were in force)."""
    pace = m.get("free_disk_reached_dual")
    if pace is None or not _model_held(m, "dual") or chain_oversubscribed(layout(p), "second path", pace):
        return None
    need = max(chain_needs(layout(p), "second path", pace)) / MiB
    return (f"this machine's fio kept {pace:.1%} of the set rate on the disks that no limit holds back (second "
            f"path); at that pace the busiest chain asked for {need:.1f} MiB/s, no more than the "
            f"{p['chain_bw'] / MiB:g} MiB/s its HBA carries: no shortage for writes to queue on")


def _no_gain_at_this_pace(m, p) -> str | None:
    """the cabling model, at the pace fio kept in each phase, predicts a gain under {BALANCE_GAIN:.0%} from
    balancing the chains (and the pool agreed with the model in both phases)."""
    dual, bal = m.get("pool_model_mib_s_dual"), m.get("pool_model_mib_s_balanced")
    if not dual or bal is None or not (_model_held(m, "dual") and _model_held(m, "balanced")):
        return None
    gain = bal / dual - 1
    if gain >= BALANCE_GAIN or m.get("free_disk_reached_dual") is None or m.get("free_disk_reached_balanced") is None:
        return None
    return (f"at the pace this machine's fio kept (free disks at {m['free_disk_reached_dual']:.1%} of the set rate "
            f"with both paths, {m['free_disk_reached_balanced']:.1%} balanced) the cabling model gives "
            f"{gain:+.1%} from balancing the chains: the long chain was hardly short of its HBA")


def _pool(k: str, phase: str) -> Check:
    return Check(f"{phase}: the pool writes at the rate the cabling model allows", f"pool_mib_s_{k}", "between",
                 lambda m, p: ((1 - POOL_TOL) * m[f"pool_model_mib_s_{k}"], (1 + POOL_TOL) * m[f"pool_model_mib_s_{k}"]),
                 unit="MiB/s", about="the pool's write rate", bound_about=f"within {POOL_TOL:.0%} of the cabling model's",
                 show=lambda m, p: f"{m[f'pool_mib_s_{k}']} of {m[f'pool_model_mib_s_{k}']} MiB/s",
                 only_if=lambda m, p: m.get(f"pool_mib_s_{k}") is not None,
                 asks="the kernel's blkio throttle holding each limit; nothing of the machine's speed: the model "
                      "takes the pace fio kept from the same phase")


def _band_height(k: str) -> Check:
    return Check(f"{k}: the band's height is iodepth / the disk's write rate",
                 lambda m, p: m[f"band_ms_{k}"] / m[f"band_little_ms_{k}"], "between", LITTLE,
                 about="median latency in the band / iodepth over its disks' writes per second",
                 show=lambda m, p: round(m[f"band_ms_{k}"] / m[f"band_little_ms_{k}"], 3),
                 only_if=lambda m, p: m.get(f"band_ms_{k}") is not None and m.get(f"band_little_ms_{k}") is not None,
                 asks="nothing of its speed: Little's law on the run's own rates and latencies")


CHECKS = [
    Check("the detected single-path JBODs are the planted ones", "detected_single_path", "==",
          lambda m, p: _planted(p), unless=_fio_behind_as_cabled,
          bound_about=f"the planted ones; found from the data: disks under {FELL_BEHIND:.0%} of their set rate",
          asks=f"fio keeping its pace: a JBOD that writes under {FELL_BEHIND:.0%} of the set rate counts as fallen "
               f"behind (the run measures the pace of the disks no limit holds back)"),
    Check("the single-path JBODs hold more than their share of the outliers", "slow_outlier_share", ">",
          lambda m, p: len(_planted(p)) / p["jbods"], about="the detected JBODs' share of the outliers",
          bound_about="their share of the JBODs", unless=_fio_behind_as_cabled,
          only_if=lambda m, p: bool(_planted(p)) and bool(m["outliers_cabled"]),
          asks="fio keeping its pace, as above: the pace decides which JBODs are found"),
    _pool("cabled", "as cabled"),
    _pool("dual", "second path"),
    _pool("balanced", "balanced"),
    Check("the second path changes throughput by what the cabling model predicts", "recable_gain", "between",
          lambda m, p: (None if m["recable_gain_model"] is None
                        else (m["recable_gain_model"] - GAIN_TOL, m["recable_gain_model"] + GAIN_TOL)),
          about="the pool's gain", bound_about=f"within {100 * GAIN_TOL:g} points of the cabling model's gain",
          show=lambda m, p: f"{m['recable_gain']:+.4f} (model {m['recable_gain_model']:+.4f})",
          asks="the kernel's blkio throttle, as above; the model takes fio's pace from each phase"),
    Check("as cabled, the slow band comes from the single-path JBODs only", "outlier_jbods_cabled", "==",
          lambda m, p: _planted(p), about="the JBODs with writes slower than {outlier_ms} ms",
          bound_about="the planted ones",
          only_if=lambda m, p: (bool(_planted(p)) and not _oversubscribed(p, "as cabled")
                                and bool(m["outliers_cabled"])),
          asks="no stall of fio longer than outlier_ms: a write no limit holds back takes well under a "
               "millisecond here (the devices are in RAM)"),
    Check("as cabled, the disks with slow writes are every disk of the single-path JBODs", "disks_with_outliers", "==",
          lambda m, p: len(_planted(p)) * p["disks_per_jbod"],
          about="the disks with writes slower than {outlier_ms} ms (as cabled)",
          bound_about="all the disks of the planted JBODs; with the check above, no other disk",
          only_if=lambda m, p: (bool(_planted(p)) and not _oversubscribed(p, "as cabled")
                                and bool(m["outliers_cabled"]) and m.get("disks_with_outliers") is not None),
          asks="no stall of fio longer than outlier_ms, as above; a missing path holds back every disk of its JBOD"),
    Check("second path: the slow band stays, on the oversubscribed chain's JBODs", "outlier_jbods_dual", "==",
          lambda m, p: oversubscribed_jbods(layout(p), "second path"),
          about="the JBODs with writes slower than {outlier_ms} ms",
          bound_about="the JBODs on the chains the model says are asked for more than their HBA carries",
          show=lambda m, p: f"{m['outliers_dual']:,} writes from JBODs {m['outlier_jbods_dual']}",
          only_if=lambda m, p: _oversubscribed(p, "second path"), unless=_chain_not_short,
          asks="fio keeping nearly its full pace: the long chain is asked for only a little more than its HBA "
               "carries, so writers a few percent short of their pace ask for no more than it gives"),
    Check("balanced: the slow band is gone", "outlier_share_balanced", "<=", BAND_GONE,
          about="share of the writes slower than {outlier_ms} ms",
          only_if=lambda m, p: not _oversubscribed(p, "balanced"),
          asks="no stall of fio longer than outlier_ms, as above"),
    _band_height("cabled"),
    _band_height("dual"),
    Check("in throughput the long chain costs less than a missing path", "chain_long_reached", ">", "slow_reached",
          about="share of the set rate: the long chain's JBODs (second path)",
          bound_about="the single-path JBODs' share, as cabled",
          show=lambda m, p: f"{m['chain_long_reached']} vs {m['slow_reached']}", unless=_fio_behind_either,
          only_if=lambda m, p: (m.get("chain_long_reached") is not None and m.get("slow_reached") is not None
                                and bool(_planted(p))),
          asks="fio keeping its pace, as for the detection"),
    Check("the long chain's JBODs stay above the single-path threshold", "chain_long_reached", ">=", FELL_BEHIND,
          about="share of the set rate the long chain's JBODs reached (second path)",
          only_if=lambda m, p: _oversubscribed(p, "second path") and m.get("chain_long_reached") is not None,
          unless=_fio_behind_with_two_paths,
          asks=f"fio keeping its pace: {FELL_BEHIND:.0%} of the set rate or more on the disks no limit holds back"),
    Check("the long chain queues more than the short one", "chain_queue_ratio", ">=", CHAIN_QUEUE, unit="x",
          about="queue per disk, long / short chain (second path)",
          only_if=lambda m, p: _oversubscribed(p, "second path") and m.get("chain_queue_ratio") is not None,
          unless=_chain_not_short, asks="fio keeping nearly its full pace, as for the band on the long chain"),
    Check("balanced chains: no JBOD stands out", "jbod_spread_balanced", "<=", EVEN, unit="x",
          about="highest / lowest queue per disk (balanced)",
          only_if=lambda m, p: not _oversubscribed(p, "balanced"),
          asks="fio's writers scheduled alike: a queue here is a fraction of a millisecond times the rate, so "
               "stalls that hit some JBODs' writers more than others' set them apart"),
    Check("balancing the chains raises throughput again", "pool_mib_s_balanced", ">=",
          lambda m, p: (1 + BALANCE_GAIN) * m["pool_mib_s_dual"], unit="MiB/s", about="the pool's write rate balanced",
          bound_about=f"{BALANCE_GAIN:.0%} above the second path's",
          show=lambda m, p: (f"{m['pool_mib_s_balanced']:.2f} MiB/s "
                             f"({m['pool_mib_s_balanced'] / m['pool_mib_s_dual'] - 1:+.1%} on the second path's)"),
          only_if=lambda m, p: not _oversubscribed(p, "balanced") and _oversubscribed(p, "second path"),
          unless=_no_gain_at_this_pace,
          asks="fio keeping nearly its full pace, as for the band on the long chain"),
]
