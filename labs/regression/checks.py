"""The regression chapter's claims, each declared once (perflab.analysis.checks).

What each asks of the machine (the chapter's audit table says it too):
- that every fio read reached the pool's device, that each device read was one whole record, and that
  the change multiplied the bytes per read by the record sizes' ratio: nothing of its speed. They
  follow from ZFS's policy (`primarycache=metadata`, whole-record reads) and are counted in the
  device's own log, the same on a fast or a slow, an idle or a busy machine;
- the device's time per read against its model (a command plus a record over `device_mbps`) asks for
  timing precision and CPU time: slowdisk sleeps for each read's modelled time (at the defaults 0.13 ms
  before the change, 1.2 ms after) and must be woken on time and run when woken, and the real read of
  its backing file (on the host's disk, under Docker's volume) must be shorter than the model's time,
  as it is when the file is in the host's page cache. A host that wakes it late, a CPU limit that
  holds back the ZFS container, or a slow disk under a backing file that fell out of the page cache
  would lengthen it. The run measures none of these apart from
  the device's time itself, so this check has no "not shown here": it passes or fails;
- that the comparison finds the record-size change, and that reads are slower in every round: these
  are held to this run's own round-to-round noise, and the device model makes the change cost the
  same device time on any machine (at the defaults a 128 KiB record costs it about 9 times a 4 KiB
  one). A busy machine widens the noise, but the run measures that noise and holds the change to it;
  no other measurement of the run could say that a machine cannot show the change, so neither has a
  "not shown here". These two are made only when the change is the record size (the default), whose
  effect is known in advance.
"""
from __future__ import annotations

from perflab.analysis.checks import Check

from .analysis import LATE_OVER
from .experiment import TIMED_MIN_US, record_bytes

#: device reads per fio read, in every run: each fio read is one device read (the ARC keeps no data)
READS_PER_READ = (0.98, 1.05)
#: the device's time per read over its model's, on each side whose model time is at least TIMED_MIN_US
MODEL_SHARE = (0.9, 1.15)
#: the change's bytes per read may differ from the record sizes' ratio by this share, no more
BYTES_SLACK = 0.05
#: the change whose effect is known in advance, and the one the comparison must find
KNOWN_CHANGE = "recordsize=128K"
#: the comparison's verdict when both distances exceed the noise's (perflab.analysis.difference)
DIFFERS = "differs"


def _worst(values, bounds) -> float:
    """The value furthest outside (low, high), or the one nearest an edge when all lie inside: it lies
    inside exactly when they all do. NaN when any is missing (a side the device log has no reads for),
    which fails the check."""
    if any(x is None or x != x for x in values):
        return float("nan")
    lo, hi = bounds
    return max(values, key=lambda x: max(lo - x, x - hi))


def _reads_per_read(m) -> list[float]:
    return [m["device_reads_per_read_min"], m["device_reads_per_read_max"]]


def _timed(m) -> list[str]:
    """The sides whose model time is long enough to be held to the model."""
    return [x for x in ("before", "after") if m[f"{x}_device_model_us"] >= TIMED_MIN_US]


def _model_shares(m) -> list[float | None]:
    """Each timed side's device time per read over its model's (None where the run has no time: run.json
    keeps NaN as null)."""
    return [None if m[f"{x}_device_us_per_read"] is None else m[f"{x}_device_us_per_read"] / m[f"{x}_device_model_us"]
            for x in _timed(m)]


def _late_wakeups(m, p) -> str | None:
    """On every timed side the device's typical read (its median time) took its model's time, within
    {MODEL_SHARE[0]}-{MODEL_SHARE[1]}, and only reads this machine's timers held up (late wake-ups of
    slowdisk) took the mean out (and the lab did its part: every fio read reached the device)."""
    if not READS_PER_READ[0] <= _worst(_reads_per_read(m), READS_PER_READ) <= READS_PER_READ[1]:
        return None      # (NaN, a side without device reads, is not between them either)
    # a side without device time (no reads in its windows) is the lab's failure, never excused
    if any(m[f"{x}_device_us_per_read"] is None or m[f"{x}_device_us_per_read"] != m[f"{x}_device_us_per_read"]
           for x in _timed(m)):
        return None
    # the sides whose mean is out of the band: each must have had its typical read in it
    sides = [x for x in _timed(m)
             if not MODEL_SHARE[0] <= m[f"{x}_device_us_per_read"] / m[f"{x}_device_model_us"] <= MODEL_SHARE[1]]
    typical = {x: (m.get(f"{x}_device_us_median") or float("nan")) / m[f"{x}_device_model_us"] for x in sides}
    if not sides or not all(MODEL_SHARE[0] <= t <= MODEL_SHARE[1] for t in typical.values()):
        return None
    return "; ".join(
        f"{x}: the device's typical read took {typical[x]:.3f} x its model's {m[f'{x}_device_model_us']:,.0f} us, "
        f"but this machine's timers woke slowdisk late often enough that {m[f'{x}_device_late_share']:.0%} of its "
        f"reads took over {LATE_OVER:g} x the typical time" for x in sides)


def _record_sizes(m, p) -> list[list[int]]:
    return [[record_bytes("before", p["change"])], [record_bytes("after", p["change"])]]


def _known_change(m, p) -> bool:
    return p.get("change") == KNOWN_CHANGE


CHECKS = [
    Check("every fio read reached the pool's device (no data cached)",
          lambda m, p: _worst(_reads_per_read(m), READS_PER_READ), "between", READS_PER_READ,
          about="device reads per fio read, in every run",
          show=lambda m, p: _reads_per_read(m),
          asks="nothing of its speed: ZFS keeps no data in the ARC (primarycache=metadata) on any machine"),
    Check("each device read is one whole record",
          lambda m, p: [m["before_read_sizes"], m["after_read_sizes"]], "==", _record_sizes,
          about="the device reads' sizes, before and after", unit="bytes",
          bound_about="each side's record size",
          asks="nothing of its speed: ZFS reads and checksums whole records on any machine"),
    Check("the device's time per read is its model's (command + a record over device_mbps)",
          lambda m, p: _worst(_model_shares(m), MODEL_SHARE), "between", MODEL_SHARE, unit="x",
          about=f"the device's time per read / the model's (each side whose model time is at least {TIMED_MIN_US} us)",
          show=lambda m, p: [None if x is None else round(x, 4) for x in _model_shares(m)],
          only_if=lambda m, p: bool(_timed(m)), unless=_late_wakeups,
          asks="timing precision and CPU time: slowdisk woken on time at the end of each read's modelled "
               "time, no CPU limit holding the ZFS container back, and its backing file read faster than the "
               "model (from the host's page cache)"),
    Check("the change multiplies the bytes per read by the record sizes' ratio", "device_bytes_ratio", "between",
          lambda m, p: ((1 - BYTES_SLACK) * m["expected_bytes_ratio"], (1 + BYTES_SLACK) * m["expected_bytes_ratio"]),
          unit="x", about="device bytes per fio read, after / before",
          bound_about=f"the record sizes' ratio, after's / before's, within {BYTES_SLACK:.0%}",
          asks="nothing of its speed: counted in the device's own log"),
    Check("the comparison finds the change: both distances beyond the noise", "verdict", "==",
          lambda m, p: DIFFERS,
          about="the verdict on KS {ks} and W1 {w1_octaves} octaves, against the noise's KS {noise_ks} "
                "and W1 {noise_w1_octaves} octaves",
          show=lambda m, p: [m["ks"], m["w1_octaves"]], only_if=_known_change,
          asks="nothing of its speed: held to this run's own round-to-round noise; the emulated device "
               "makes the change cost the same device time on any machine"),
    Check("the reads are slower after the change, in every round", "rounds_slower", "==", "rounds",
          about="rounds in which after's median is above before's", bound_about="every round",
          show=lambda m, p: m["round_median_ratios"], only_if=_known_change,
          asks="nothing of its speed: each round's sides against each other, the emulated device's cost "
               "the same on any machine"),
]
