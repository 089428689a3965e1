"""perflab.infra.cgroupio: one line reads a container's bytes read, on cgroup v1 and v2 alike."""
import subprocess

from perflab.infra import cgroupio


def _read(tmp_path, v1: str | None, v2: str | None) -> str:
    sh = cgroupio.READ_BYTES_SH
    for real, text, name in ((cgroupio.V1_SERVICE_BYTES, v1, "v1"), (cgroupio.V2_IO_STAT, v2, "v2")):
        f = tmp_path / name
        if text is not None:
            f.write_text(text)
        sh = sh.replace(real, str(f))
    return subprocess.run(["sh", "-c", sh], capture_output=True, text=True, timeout=10).stdout


def test_v1_lines_are_kept_as_they_are(tmp_path):
    v1 = "8:0 Read 4096\n8:0 Write 512\n8:0 Sync 0\n8:0 Total 4608\nTotal 4608\n"
    assert _read(tmp_path, v1, None) == "8:0 Read 4096\n"


def test_v2_io_stat_becomes_v1s_read_lines(tmp_path):
    v2 = "8:0 rbytes=4096 wbytes=512 rios=1 wios=1 dbytes=0 dios=0\n259:1 rbytes=100 wbytes=0 rios=2 wios=0\n"
    assert _read(tmp_path, None, v2) == "8:0 Read 4096\n259:1 Read 100\n"
