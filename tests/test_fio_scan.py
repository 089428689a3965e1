"""The compiled scanner of per-I/O logs (`perflab/fio/_scan.c`) at its edges: what it
keeps and what it refuses, against a plain Python reading of the same bytes, and its bucket numbers
against `Buckets.index`."""
import numpy as np
import pytest

from perflab.analysis.heatmap.buckets import Buckets
from perflab.fio.scan import HAVE_SCANNER, scan_fields

pytestmark = pytest.mark.skipif(not HAVE_SCANNER, reason="the compiled scanner was not built")


def arr(text: str) -> np.ndarray:
    return np.frombuffer(bytearray(text.encode()), np.uint8)


def plain(text: str, nf: int, keep: list[int]) -> np.ndarray:
    rows = [[int(v) for v in ln.split(",")] for ln in text.splitlines() if ln.strip()]
    assert all(len(r) == nf for r in rows)
    return np.array([[r[k] for k in keep] for r in rows], np.int64).T.reshape(len(keep), len(rows))


@pytest.mark.parametrize("text", [
    "0, 12, 0, 4096, 0\n",
    "1000, 999999999999999999, 1, 8192, 0\n5, 7, 2, 512, 3\n",     # 18 digits: the largest taken
    "1,2,0,4096,0\r\n\n3 ,  4 ,1,\t4096, 0\n",                      # CRs, tabs, spaces, an empty line
])
def test_it_keeps_the_fields_asked_for(text):
    out, n = scan_fields(arr(text), 5, [0, 1, 2])
    want = plain(text.replace("\r", ""), 5, [0, 1, 2])
    assert n == want.shape[1] and (out == want).all()
    out, n = scan_fields(arr(text), 5, [3])
    assert (out == plain(text.replace("\r", ""), 5, [3])).all()


@pytest.mark.parametrize("text, bad", [
    ("1, 2, 0, 4096, 0\n1, 2, 0, 4096\n", 1),                       # a field short
    ("1, 2, 0, 4096, 0, 9\n", 0),                                   # a field too many
    ("1, 2, 0, 4096, 0\n1, , 0, 4096, 0\n", 1),                     # an empty field
    ("1, -2, 0, 4096, 0\n", 0),                                     # a sign
    ("1, 2 3, 0, 4096, 0\n", 0),                                    # digits after a space
    ("1, 1234567890123456789, 0, 4096, 0\n", 0),                    # 19 digits: more than int64 is sure to hold
    ("1, 99999999999999999999999, 0, 4096, 0\n", 0),                # 23 digits (wraps in 64 bits)
    ("1, 2, 0, 4096, 0\n1, 2, 0, 4096, 0", 1),                      # no newline at the end
    ("1, 2.5, 0, 4096, 0\n", 0),
])
def test_it_names_the_first_bad_line(text, bad):
    _, n = scan_fields(arr(text), 5, [0, 1])
    assert n == -(bad + 1)


def test_bucket_numbers_are_those_of_buckets_index():
    rng = np.random.default_rng(7)
    lat = np.concatenate([rng.integers(0, 2 ** 40, 20_000), [0, 1, 2 ** 40, 10 ** 17], 2 ** np.arange(50)])
    text = "".join(f"{i}, {v}, 0, 4096, 0\n" for i, v in enumerate(lat))
    for b in (Buckets.loglinear(8), Buckets.loglinear(64), Buckets.linear(1_000_000, 10 ** 9)):
        out, n = scan_fields(arr(text), 5, [0, 1], bucket=(1, b))
        assert n == len(lat)
        assert (out[1] == b.index(lat)).all(), b


def test_it_refuses_an_output_array_it_cannot_write_whole():
    with pytest.raises(ValueError, match="int64"):
        from perflab.fio import _scan
        _scan.scan_fields(arr("1, 2\n"), 2, np.zeros(2, np.int64), np.zeros((1, 4), np.int32), -1, 0, 0, 0, 0)
    out = np.zeros((2, 1), np.int64)   # room for one line, given two: refused at the second, not overrun
    from perflab.fio import _scan
    assert _scan.scan_fields(arr("1, 2\n3, 4\n"), 2, np.array([0, 1], np.int64), out, -1, 0, 0, 0, 0) == -2
