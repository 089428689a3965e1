"""The streaming chapter's claims, each declared once (perflab.analysis.checks).

What each asks of the machine (the chapter's "What each check asks of the machine" table says it too):
- byte counts: the amplification of each layout, the prediction from the disks' rate (the elapsed
  time cancels out of it), RAID-Z2's extra metadata and the cost of a read are the bytes fio moved
  beside the bytes slowdisk logged for every disk. They ask nothing of the machine's speed;
- timing, for fio's figure against payload over the lab's clock: the lab's clock also counts
  `docker exec` and fio's start-up, which a busy CPU or a CPU limit lengthens. The run measures that
  start-up (fio's first bandwidth-log stamp, which ends the first interval after its I/O began,
  against the lab's clock), so where it alone exceeds STARTUP_ALLOWANCE_S while the rest of the lab's
  time outside fio's clock fits the allowance (the check would pass but for the start-up: fio's clock
  took in the final fsync, the lab's part), the check says "not shown here" with the measured start-up;
- zfs-fuse's CPU: "the disks are the limit", RAID-Z2's lead and reads faster than writes hold only
  while zfs-fuse (and slowdisk, in the same container) keeps up with the emulated disks. A busy CPU or
  a CPU limit can make zfs-fuse the limit instead. The run does not measure zfs-fuse's CPU time nor
  how long a CPU limit held its container back, so these checks have no "not shown here";
- the busy fractions' prediction of the mirror's read/write ratio asks the emulated disks to take the
  same time per byte reading as writing. slowdisk ends an I/O no earlier than the real I/O on its
  backing file (Docker's volume), so a host disk slower than the emulated disks lengthens their
  service times; the run does not tell that apart from the model, so this check has no "not shown
  here" either.
"""
from __future__ import annotations

from perflab.analysis.checks import Check

from .experiment import LAYOUTS, expected_amplification

#: the slack the checks allow above the ideal back-end/front-end ratio for ZFS metadata (indirect
#: blocks, space maps, uberblocks: a few percent at 128 KiB records) and below it (rounding).
META_HIGH, META_LOW = 0.20, 0.03
#: fixed costs the lab's clock counts and fio's does not (docker exec, fio's start-up and file
#: layout): about a third of a second in the reference; the check on bytes / elapsed allows 1 s.
STARTUP_ALLOWANCE_S = 1.0
FIO_CLOCK_LOW = 0.99        # fio's figure / payload over the lab's clock, at least (millisecond clocks)
SAME_RATE = (0.8, 1.25)     # RAID-Z2's disk rate / the mirrors', when the disks are the limit
READ_AMP = (0.97, 1.15)     # disk bytes read / payload read: the window's edges, metadata read with the data
READ_MODEL = (0.85, 1.15)   # measured / predicted mirror read/write ratio: reads' and writes' I/O sizes differ


def raidz2_lead_floor(n_disks: int) -> float | None:
    """The least RAID-Z2 / mirror payload ratio to call a lead when the disks are the limit: half
    of the ideal lead 2 (n-2) / n - 1 (metadata, which RAID-Z2 pays three times per small block,
    and unequal busy fractions take part of it). None for 4 disks, where the ideal is no lead."""
    ideal = 2.0 / expected_amplification("raidz2", n_disks)
    return None if ideal <= 1.0 else 1.0 + (ideal - 1.0) / 2


def _ratio(a: str, b: str):
    return lambda m, p: m[a] / m[b]


def _ratio_shown(a: str, b: str):
    return lambda m, p: round(m[a] / m[b], 3)


def _clock_bounds(lay: str):
    """0.99 up to elapsed / (elapsed - allowance): fio's clock may miss only the start-up."""
    def bounds(m, p):
        el = m[f"{lay}_write_elapsed_s"]
        return FIO_CLOCK_LOW, el / (el - STARTUP_ALLOWANCE_S) if el > STARTUP_ALLOWANCE_S else float("inf")
    return bounds


def _slow_startup(lay: str):
    def unless(m, p) -> str | None:
        """fio's I/O began more than {STARTUP_ALLOWANCE_S:g} s after the lab started it (docker exec and
        fio's start-up on this machine, from fio's first bandwidth-log stamp), while the rest of the lab's
        time outside fio's clock fits the allowance: the check would pass but for the start-up."""
        start, after = m.get(f"{lay}_write_startup_s"), m.get(f"{lay}_write_after_fio_s")
        if start is None or after is None or start <= STARTUP_ALLOWANCE_S or after > STARTUP_ALLOWANCE_S:
            return None
        if m[f"{lay}_write_fio_mbps"] / m[f"{lay}_write_mbps"] < FIO_CLOCK_LOW:
            return None
        return (f"this machine took {start:.2f} s from the lab's `docker exec` to fio's first I/O ({lay} writes), "
                f"more than the {STARTUP_ALLOWANCE_S:g} s allowed for it; after fio's clock stopped the lab's ran "
                f"{after:.2f} s more")
    return unless


def _amplification(lay: str) -> Check:
    name = "mirror: disks receive 2.00x the payload" if lay == "mirror" else "raidz2: disks receive n/(n-2) times the payload"
    return Check(name, f"{lay}_write_amp", "between",
                 lambda m, p: (expected_amplification(lay, m["n_disks"]) * (1 - META_LOW),
                               expected_amplification(lay, m["n_disks"]) * (1 + META_HIGH)),
                 about=f"disk bytes / fio bytes (ideal {{{lay}_write_amp_expected}} for {{n_disks}} disks)",
                 bound_about=f"the ideal less {META_LOW:.0%}, plus up to {META_HIGH:.0%} for metadata",
                 show=lambda m, p: round(m[f"{lay}_write_amp"], 3),
                 asks="nothing of its speed: the bytes fio wrote beside the bytes the emulated disks received")


def _clock(lay: str) -> Check:
    return Check(f"{lay}: fio's bandwidth matches bytes / elapsed", _ratio(f"{lay}_write_fio_mbps", f"{lay}_write_mbps"),
                 "between", _clock_bounds(lay), show=_ratio_shown(f"{lay}_write_fio_mbps", f"{lay}_write_mbps"),
                 about="fio's figure / payload over the lab's wall clock",
                 bound_about=f"{STARTUP_ALLOWANCE_S:g} s of start-up: elapsed / (elapsed - {STARTUP_ALLOWANCE_S:g} s)",
                 unless=_slow_startup(lay),
                 asks=f"timing: the machine starting fio in its container (docker exec, fio's start-up) within "
                      f"{STARTUP_ALLOWANCE_S:g} s; a busy CPU or a CPU limit lengthens it, and the run measures it")


def _prediction(lay: str) -> Check:
    return Check(f"{lay}: disks' rate / ideal amplification predicts the payload rate",
                 _ratio(f"{lay}_write_predicted_mbps", f"{lay}_write_mbps"), "between", (1 - META_LOW, 1 + META_HIGH),
                 show=_ratio_shown(f"{lay}_write_predicted_mbps", f"{lay}_write_mbps"),
                 about="predicted / measured payload MB/s", bound_about="the metadata share",
                 asks="nothing of its speed: the disks' bytes while fio ran over the payload (the elapsed time cancels)")


def _read_amp(lay: str) -> Check:
    return Check(f"{lay}: reads cost the payload once", f"{lay}_read_amp", "between", READ_AMP,
                 about="disk read bytes / fio read bytes", show=lambda m, p: round(m[f"{lay}_read_amp"], 3),
                 only_if=lambda m, p: m.get(f"{lay}_read_amp") is not None,
                 asks="nothing of its speed: byte counts, on a cold ARC (the pool exported and imported)")


ZFS_KEEPS_UP = ("zfs-fuse's CPU (slowdisk's too, in the same container) keeping up with the 2 x `mirrors` emulated "
                "disks at `disk_mbps` each: on a busy CPU or under a CPU limit zfs-fuse can be the limit instead, and "
                "the run does not measure its CPU")

CHECKS = [
    _amplification("mirror"), _clock("mirror"), _amplification("raidz2"), _clock("raidz2"),
    Check("the disks are the limit: same disk rate for both layouts", "back_rate_ratio", "between", SAME_RATE,
          about="RAID-Z2 disk MB/s / mirror disk MB/s (busy ratio {disk_busy_ratio})", asks=ZFS_KEEPS_UP),
    *[_prediction(lay) for lay in LAYOUTS],
    Check("RAID-Z2 writes more metadata per payload byte than mirrors", "raidz2_meta_share", ">", "mirror_meta_share",
          about="RAID-Z2's share above its ideal", bound_about="the mirrors'",
          show=lambda m, p: f"{m['raidz2_meta_share']:.3f} vs {m['mirror_meta_share']:.3f}",
          asks="nothing of its speed: byte counts"),
    Check("RAID-Z2 accepts more payload than mirrors", "raidz2_over_mirror_write", ">=",
          lambda m, p: raidz2_lead_floor(m["n_disks"]),
          about="RAID-Z2 / mirror payload MB/s (ideal {raidz2_over_mirror_expected})", bound_about="half the ideal lead",
          only_if=lambda m, p: p.get("disk") == "streaming" and raidz2_lead_floor(m["n_disks"]) is not None,
          asks="the disks, not zfs-fuse's CPU, as the limit (see 'the disks are the limit'); made only on "
               "`streaming` disks (positioning nearly free), more than four of them"),
    *[_read_amp(lay) for lay in LAYOUTS],
    Check("mirror: streaming reads are faster than writes, short of 2x",
          lambda m, p: min(m["mirror_read_over_write"] - 1, 2 - m["mirror_read_over_write"]), ">", 0,
          about="the lesser of read/write - 1 and 2 - read/write (read MB/s / write MB/s; 2 if the disks were "
                "the only limit)",
          show=lambda m, p: m["mirror_read_over_write"],
          only_if=lambda m, p: m.get("mirror_read_over_write") is not None,
          asks="the disks as the limit while reading too: " + ZFS_KEEPS_UP),
    Check("mirror: the busy fractions predict the read/write ratio",
          _ratio("mirror_read_over_write", "mirror_read_over_write_model"), "between", READ_MODEL,
          show=_ratio_shown("mirror_read_over_write", "mirror_read_over_write_model"),
          about="measured / (busy read / busy write x write amp / read amp)",
          only_if=lambda m, p: m.get("mirror_read_over_write_model") is not None,
          asks="the emulated disks' time per byte alike reading and writing: the real I/O on their backing files "
               "(Docker's volume) no slower than the emulated disks, since slowdisk counts a slower one in its "
               "service times"),
]
