"""What a watched run's page reads (`perflab run LAB --live`): the run's list of live sources.

A watched run's list is ``<run dir>/live.jsonl``; whatever writes as it goes adds a line there naming
what it writes, and the page (perflab.run.live) reads what is listed. The writer is handed the list's
path (``live=``: the run's Topology.live_list, from its options; None when unwatched). Four kinds:

- ``fio-status``: fio's JSON report once a second (``path``), written by :mod:`perflab.fio.jobs`;
- ``device-logs``: a directory (``dir``) of slowdisk's per-I/O device logs, one ``<disk>.log`` a disk,
  flushed once a second, with ``mount.epoch_ms`` (their time 0 on the wall clock); written by the
  emulated disks (perflab.infra.slowdisk, and the ZFS server's disks in perflab.infra.zfs);
- ``counters``: a file (``path``) of cumulative counters sampled once a second, a line a key per
  sample, ``<epoch s> <key> <value> [<value> ...]`` (a server's per-client operation counters, a
  link's byte counters); the page draws each key's rate of one value (``column``, 0 for the first
  after the key) times ``scale``, in ``unit``, keys renamed by ``names`` (JSON: key -> name); a file
  of one key's samples, ``<epoch s> <value> ...``, is listed with that ``key``;
- ``events``: a log (``path``) of a line an event, each beginning with its time (epoch s): the lines
  the regular expression ``pattern`` matches, counted each second by its group ``key`` (a server's
  requests by file name).
Sources listed with the same label are drawn in one panel (a client's counters beside another's).

An unwatched run has no list: :func:`announce` then does nothing, and nothing is written for it.
"""
from __future__ import annotations

import json
from pathlib import Path

__all__ = ["KINDS", "announce"]

KINDS = ("fio-status", "device-logs", "counters", "events")


def announce(kind: str, label: str, *, live: Path | None, **where: str) -> bool:
    """List a source in `live`, the page's list of a watched run (a line appended whole); False when
    unwatched (None)."""
    if kind not in KINDS:
        raise ValueError(f"a live source is one of {', '.join(KINDS)}, not {kind!r}")
    if live is None:
        return False
    with open(live, "a") as fh:
        fh.write(json.dumps({"kind": kind, "label": label, **{k: str(v) for k, v in where.items()}}) + "\n")
    return True
