"""The dedup lab's logic without Docker: the planted ratio, the SHA-256 signature counter on
synthetic files with planted duplicates (and a control with none), zdb's DDT histograms and
`zpool list` parsed from real zfs-fuse output."""
import os
from pathlib import Path

import pytest

from perflab.config import manifest
from perflab.infra import zfs

ROOT = Path(__file__).resolve().parent.parent
BS = 128 * 1024


def lab():
    return manifest.load(ROOT).lab("dedup").load_module()


def test_planted_ratio():
    L = lab()
    assert L.planted_ratio(100 * BS, 1, 0) == pytest.approx(1.0)
    # 100 blocks, first new, 99 repeats with p = 0.5: 1 + 49.5 distinct
    assert L.planted_ratio(100 * BS, 1, 50) == pytest.approx(100 / 50.5)
    assert L.planted_ratio(768 * BS, 2, 50) == pytest.approx(768 / (2 * (1 + 383 * 0.5)))
    assert L.planted_ratio(10_000 * BS, 2, 75) == pytest.approx(4.0, rel=0.01)
    with pytest.raises(ValueError):
        L.planted_ratio(BS, 4, 50)


def _write(path, blocks):
    with open(path, "wb") as f:
        for b in blocks:
            f.write(b)


def test_signature_counter_finds_planted_duplicates(tmp_path):
    L = lab()
    a, b, c = (os.urandom(BS) for _ in range(3))
    # file 1: a a a b ; file 2: b c  -> 6 blocks, 3 distinct: a x3, b x2, c x1
    _write(tmp_path / "f1", [a, a, a, b])
    _write(tmp_path / "f2", [b, c])
    sig = L.block_signatures(sorted(tmp_path.iterdir()))
    s = L.signature_summary(sig)
    assert (s["blocks"], s["unique"]) == (6, 3)
    assert s["ratio"] == pytest.approx(2.0)
    assert s["dedupable_pct"] == pytest.approx(50.0)
    assert s["histogram"] == {"1": 1, "2": 1, "3": 1}
    assert L.pow2_buckets(s["histogram"]) == {1: 1, 2: 2}


def test_signature_counter_control_and_alignment(tmp_path):
    """Random blocks: ratio 1. The same content shifted by 4 KiB is not found (block-level
    matching), and a short last block counts as a block of its own."""
    L = lab()
    data = os.urandom(8 * BS)
    _write(tmp_path / "ctl", [data])
    assert L.signature_summary(L.block_signatures([tmp_path / "ctl"]))["ratio"] == 1.0
    _write(tmp_path / "shifted", [b"\0" * 4096 + data])
    s = L.signature_summary(L.block_signatures([tmp_path / "ctl", tmp_path / "shifted"]))
    assert s["unique"] == s["blocks"] == 17


def test_pow2_buckets():
    L = lab()
    assert L.pow2_buckets({"1": 5, "2": 3, "3": 2, "4": 1, "7": 1, "8": 2, "15": 1, "16": 1}) == \
        {1: 5, 2: 5, 4: 2, 8: 3, 16: 1}


ZDB_S = """Simulated DDT histogram:

bucket              allocated                       referenced          
______   ______________________________   ______________________________
refcnt   blocks   LSIZE   PSIZE   DSIZE   blocks   LSIZE   PSIZE   DSIZE
------   ------   -----   -----   -----   ------   -----   -----   -----
     1       98   12.2M   12.2M   12.2M       98   12.2M   12.2M   12.2M
     2      105   13.1M   13.1M   13.1M      246   30.8M   30.8M   30.8M
     4       31   3.88M   3.88M   3.88M      140   17.5M   17.5M   17.5M
     8        3    384K    384K    384K       28   3.50M   3.50M   3.50M
 Total      237   29.6M   29.6M   29.6M      512     64M     64M     64M

dedup = 2.16, compress = 1.00, copies = 1.00, dedup * compress / copies = 2.16

"""
ZDB_DD = """DDT-sha256-zap-duplicate: 139 entries, size 530 on disk, 147 in core
DDT-sha256-zap-unique: 98 entries, size 752 on disk, 208 in core

DDT histogram (aggregated over all DDTs):
""" + ZDB_S.split("\n", 1)[1]


def test_parse_zdb_simulated_and_real_ddt():
    L = lab()
    s = L.parse_zdb_ddt(ZDB_S)
    assert s["dedup"] == 2.16 and s["compress"] == 1.0
    assert [r["refcnt"] for r in s["rows"]] == ["1", "2", "4", "8"]
    assert s["total"]["blocks"] == 237 and s["total"]["ref_blocks"] == 512
    assert s["total"]["ref_lsize"] == 64 * 2 ** 20
    assert s["ddts"] == []
    dd = L.parse_zdb_ddt(ZDB_DD)
    assert dd["ddts"] == [
        {"name": "DDT-sha256-zap-duplicate", "entries": 139, "disk_bytes_per_entry": 530, "core_bytes_per_entry": 147},
        {"name": "DDT-sha256-zap-unique", "entries": 98, "disk_bytes_per_entry": 752, "core_bytes_per_entry": 208}]
    assert sum(x["entries"] for x in dd["ddts"]) == dd["total"]["blocks"]
    # a pool with no dedup candidates at all
    empty = L.parse_zdb_ddt("dedup = 1.00, compress = 1.00, copies = 1.00, dedup * compress / copies = 1.00\n")
    assert empty["dedup"] == 1.0 and empty["total"] is None


def test_parse_zpool_list():
    L = lab()
    z = L.parse_zpool_list("ddp\t3.97G\t51.7M\t1.89x\nest\t3.97G\t96.6M\t1.00x\n")
    assert z["ddp"]["dedup"] == 1.89 and z["est"]["dedup"] == 1.0
    assert z["ddp"]["alloc"] == pytest.approx(51.7 * 2 ** 20)


def test_create_pool_cmd_names_and_mounts_the_pool():
    assert zfs.create_pool_cmd(["/backing/est"], {"checksum": "sha256"}, name="est") == \
        ["zpool", "create", "-f", "-m", "/export/est", "-O", "checksum=sha256", "est", "/backing/est"]
    assert zfs.create_pool_cmd(["mirror", "a", "b"], {})[-4:] == ["tank", "mirror", "a", "b"]
