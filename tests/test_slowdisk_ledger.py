"""slowdisk's ledger entries are released only once the mount and the process are gone (issue 27): an
unmount that failed or a process that would not stop stays in the run's ledger for `perflab clean`."""
import contextlib
import subprocess
from types import SimpleNamespace

from perflab.infra.ledger import Ledger
from perflab.infra.slowdisk import mount


def _fake_mounted(pid):
    @contextlib.contextmanager
    def mounted(backing, mp, model=None, **kw):
        yield SimpleNamespace(pid=pid)
    return mounted


def _open(ledger):
    return sorted((e["kind"], e["id"]) for e in ledger.open_entries())


def test_entries_stay_while_the_mount_and_process_are_still_there(tmp_path, monkeypatch):
    alive = subprocess.Popen(["sleep", "60"])
    try:
        monkeypatch.setattr(mount, "mounted", _fake_mounted(alive.pid))
        monkeypatch.setattr(mount, "is_mounted", lambda p: True)      # the unmount failed
        ledger = Ledger(tmp_path)
        with mount.recorded(ledger, tmp_path / "b", tmp_path / "mp"):
            pass
        assert _open(ledger) == [("mount", str(tmp_path / "mp")), ("process", str(alive.pid))]
    finally:
        alive.kill()
        alive.wait()


def test_entries_are_released_once_both_are_gone(tmp_path, monkeypatch):
    done = subprocess.Popen(["true"])
    done.wait()
    monkeypatch.setattr(mount, "mounted", _fake_mounted(done.pid))
    monkeypatch.setattr(mount, "is_mounted", lambda p: False)
    ledger = Ledger(tmp_path)
    with mount.recorded(ledger, tmp_path / "b", tmp_path / "mp"):
        assert len(_open(ledger)) == 2
    assert _open(ledger) == []
