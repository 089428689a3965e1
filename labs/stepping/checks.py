"""The stepping chapter's claims, each declared once (perflab.analysis.checks).

What each asks of the machine (the chapter's "What each check asks of the machine" table says it too):
- the limit must be the throttle's, not the disk's: a disk that, one read at a time, serves at least
  twice the limit, so that reads queue at the throttle and not at the disk. The run measures the
  disk's time per read with one reader alone (the first step, where that reader asks for at most half
  the limit and the throttle does not delay it). A slower disk (a 7200 RPM disk under the Docker
  volume) stops the staircase at its own limit, queues reads before it, and leaves Little's law with
  the wrong limit: the prediction, the plateau at the limit, each reader adding its rate below it, the
  flat plateau, small latency before it and Little's law say "not shown here", with the disk's measured
  time, and only when the lab did its part (one reader alone asked for at most half the limit, and the
  staircase stopped no lower than the disk or the limit allow, so the throttle was not tighter than
  asked and the readers overlapped);
- a latency rise of 2x needs a queue long enough to double one read's time: Little's law, from the
  parameters, gives the last step's wait; where that is under twice the disk's measured time, and the
  last step waited what the law says, it is "not shown here";
- the prediction uses one reader's measured rate, not its think time alone, so a busier CPU or a
  slower timer that stretches each think moves the prediction with it;
- the throttle on the device that holds the volume (perflab.infra.containers.volumes_disk: Docker's
  data root's disk, or the `--scratch` directory's). A throttle that did not hold is the lab's failure,
  not the machine's, so no check excuses it.
"""
from __future__ import annotations

from perflab.analysis.checks import Check

PLATEAU_RANGE = (0.85, 1.1)   # the plateau / the limit: the throttle's own wobble, no more
LINEAR_MIN = 0.85             # below the limit: throughput / (readers x one reader's rate)
CLAT_RISE = 2                 # latency at the last step / at the first, once saturated
FLAT_MIN = 0.95               # lowest / highest saturated step
ROOM_MAX = 2                  # latency before saturation / one reader's alone
MODEL_RANGE = (0.8, 1.25)     # the last step's latency / Little's law's
DISK_ROOM = 2                 # the disk, one read at a time, serves at least this many times the limit
PLATEAU_FLOOR = 0.9           # the plateau reaches this share of what the disk or the limit allow
ALONE_SHARE = 0.5             # one reader alone asks for at most this share of the limit


def _disk_iops(m) -> float:
    """Reads a second the disk serves one at a time: one over one reader's time per read, alone."""
    return 1e6 / m["clat_us_first"]


def _lab_did_its_part(m, p) -> bool:
    """One reader alone asked for at most half the limit (so the throttle did not delay it, and its
    time per read is the disk's), and the staircase stopped no lower than the disk, one read at a
    time, or the limit allow (so the throttle was not tighter than asked, and the readers overlapped)."""
    if m.get("clat_us_first") is None or m.get("plateau_iops") is None or m.get("one_reader_iops") is None:
        return False
    limit = p["limit_iops"]
    return (m["one_reader_iops"] <= ALONE_SHARE * limit
            and m["plateau_iops"] >= PLATEAU_FLOOR * min(_disk_iops(m), limit))


def _disk_queues(m, p) -> str | None:
    """One read at a time, the disk serves fewer than {DISK_ROOM}x the limit (its time per read, measured by
    one reader alone), so reads queue at the disk before the throttle (and the lab did its part: the
    staircase stopped no lower than the disk or the limit allow)."""
    if not _lab_did_its_part(m, p):
        return None
    disk, limit = _disk_iops(m), p["limit_iops"]
    if disk >= DISK_ROOM * limit:
        return None
    return (f"one reader alone took {m['clat_us_first']:,.0f} us per read on this machine's disk, so one read at "
            f"a time it serves at most {disk:,.0f} reads/s, less than {DISK_ROOM}x the limit of {limit:,}: the "
            f"disk's own queue, not the throttle, shaped the staircase "
            f"(it stopped at {m['plateau_iops']:,.0f} reads/s)")


def _queue_too_short(m, p) -> str | None:
    """Too few readers past the limit: Little's law gives the last step a wait under {CLAT_RISE}x the time
    one read took alone on this disk (and the last step waited what the law says)."""
    model, first, ratio = m.get("clat_model_last_us"), m.get("clat_us_first"), m.get("clat_last_vs_model")
    if model is None or first is None or ratio is None or not MODEL_RANGE[0] <= ratio <= MODEL_RANGE[1]:
        return None
    if model >= CLAT_RISE * first:
        return None
    return (f"{m['max_readers']} readers sharing {p['limit_iops']:,} reads/s wait about {model:,.0f} us per read "
            f"(Little's law; the last step measured {m['clat_us_last']:,.0f} us), under {CLAT_RISE}x the "
            f"{first:,.0f} us one read took alone on this disk")


DISK = "a disk that serves at least twice the limit one read at a time, so reads queue at the throttle"

CHECKS = [
    Check("a saturation step was found", "detected_step", ">=", 2,
          about="the first reader that added less than half of one reader's rate while latency rose",
          bound_about="the detector starts at the second reader",
          asks="readers that together ask for more than the limit (the parameters against one reader's measured "
               "rate), and the throttle on the device that holds the volume"),
    Check("it lands where limit / demand predicts", "detected_step", "==", "predicted_step",
          about="the detected step",
          bound_about="the first reader to find under half of one reader's rate left: limit against what each reader "
                      "asked for while there was clearly room",
          show=lambda m, p: f"{m['detected_step']} vs {m['predicted_step']}", unless=_disk_queues,
          asks=DISK + "; the readers' rate is measured, so a slower timer or a busier CPU moves the prediction "
                      "with it"),
    Check("the plateau is the disk's limit", "plateau_vs_limit", "between", PLATEAU_RANGE, unit="x",
          about="the plateau / limit_iops", unless=_disk_queues, asks=DISK),
    Check("below the limit each reader adds its own rate", "linear_fit", ">=", LINEAR_MIN,
          about="throughput / (readers x one reader's rate), the least before saturation", unless=_disk_queues,
          asks=DISK),
    Check("latency climbs once saturated", "clat_rise", ">=", CLAT_RISE, unit="x",
          about="mean latency at the last step / at the first", unless=_queue_too_short,
          asks="a read alone shorter than half the wait Little's law gives the last step (a disk's time per read "
               "against the parameters)"),
    Check("the plateau is flat", "plateau_flatness", ">=", FLAT_MIN,
          about="the lowest saturated step's throughput / the highest's", unless=_disk_queues, asks=DISK),
    Check("latency stays small while the disk has room", "clat_before_vs_one", "<=", ROOM_MAX, unit="x",
          about="mean latency at every step before saturation / one reader's alone", unless=_disk_queues,
          asks=DISK),
    Check("latency grows with every reader from saturation on", "clat_rises_each_step", "==", True,
          about="each step's mean latency above the step before's, from the last step with room on"),
    Check("the last step's latency is what Little's law predicts", "clat_last_vs_model", "between", MODEL_RANGE,
          unit="x", about="the last step's mean latency / (readers / limit - think)", unless=_disk_queues,
          asks=DISK + "; Little's law is written with the throttle's limit"),
]
