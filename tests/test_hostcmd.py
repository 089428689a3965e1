"""Every host command perflab runs has a time limit and fails in one line naming it (issue 27)."""
import time

import pytest

from perflab.errors import EXIT_FAILED
from perflab.infra import hostcmd


def test_a_failing_command_is_named_with_its_last_stderr_line():
    with pytest.raises(hostcmd.HostCommandFailed) as e:
        hostcmd.run(["sh", "-c", "echo starting >&2; echo 'RTNETLINK answers: No such device' >&2; exit 2"], 10)
    assert str(e.value) == ("'sh -c echo starting >&2; echo 'RTNETLINK answers: No such device' >&2; exit 2' "
                            "failed (exit 2): RTNETLINK answers: No such device")
    assert e.value.exit_status == EXIT_FAILED


def test_a_hung_command_is_stopped_at_its_time():
    t0 = time.monotonic()
    with pytest.raises(hostcmd.HostCommandFailed, match=r"'sleep 30' still ran after 0.5 s and was stopped"):
        hostcmd.run(["sleep", "30"], 0.5)
    assert time.monotonic() - t0 < 5


def test_a_missing_tool_says_so():
    with pytest.raises(hostcmd.HostCommandFailed, match="'no-such-tool-x' is not installed"):
        hostcmd.run(["no-such-tool-x"], 5)


def test_ok_never_raises():
    assert hostcmd.ok(["true"], 5) and not hostcmd.ok(["false"], 5)
    assert not hostcmd.ok(["sleep", "30"], 0.2) and not hostcmd.ok(["no-such-tool-x"], 5)
    assert hostcmd.run(["sh", "-c", "exit 3"], 5, check=False).returncode == 3
