"""What a watched run's page reads (`perflab run LAB --live`): the run's list of live sources.

The run puts the path of its ``live.jsonl`` in the lab's environment (:data:`LIVE_ENV`); whatever
writes as it goes adds a line there naming what it writes, and the page (perflab.run.live) reads
what is listed. Four kinds:

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
import os
from pathlib import Path

__all__ = ["LIVE_ENV", "KINDS", "live_list", "announce"]

#: `perflab run --live` puts the run's live.jsonl here, in the environment of the lab's notebook
LIVE_ENV = "PERFLAB_LIVE"
KINDS = ("fio-status", "device-logs", "counters", "events")


def live_list() -> Path | None:
    """The run's live.jsonl when the run is watched, else None."""
    v = os.environ.get(LIVE_ENV)
    return Path(v) if v else None


def announce(kind: str, label: str, **where: str) -> bool:
    """List a source for the page of a watched run (a line appended whole); False when unwatched."""
    if kind not in KINDS:
        raise ValueError(f"a live source is one of {', '.join(KINDS)}, not {kind!r}")
    lst = live_list()
    if lst is None:
        return False
    with open(lst, "a") as fh:
        fh.write(json.dumps({"kind": kind, "label": label, **{k: str(v) for k, v in where.items()}}) + "\n")
    return True
