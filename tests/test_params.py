"""Parameter validation: every bad input is refused, naming the parameter, the value and what is
allowed; good inputs are typed."""
import pytest

from perflab.config import params
from perflab.config.manifest import Lab, Param


def make_lab(**extra_params):
    ps = {
        "runtime": Param("runtime", "duration", "20s", min="5s", max="30m"),
        "file_size": Param("file_size", "size", "64MiB", min="16MiB", max="4GiB"),
        "bs": Param("bs", "size", "4KiB", min="512B", max="1MiB", multiple_of="512B"),
        "rate_iops": Param("rate_iops", "int", 1000, min=10, max=20000),
        "capture": Param("capture", "choice", "hist", choices=("perio", "hist")),
        "clients": Param("clients", "int", 5, min=2, max=10),
        "bad_client": Param("bad_client", "int", 1, min=1, max="clients"),
        "single_path": Param("single_path", "intlist", "1,3", min=1, max="clients"),
        "cache": Param("cache", "bool", True),
        "ratio": Param("ratio", "float", 0.5, min=0.0, max=1.0),
    }
    ps.update(extra_params)
    return Lab("t", "t", "t", None, None, [], [], "", ps, {"smoke": {"runtime": "10s"}, "full": {}},
               disk={"file_size": 2})


BAD = [
    # (override, words the message must contain)
    ("rutime=10s", ["unknown parameter 'rutime'", "did you mean 'runtime'"]),
    ("runtime=ten", ["runtime='ten'", "not a duration", "allowed"]),
    ("runtime=10parsecs", ["runtime='10parsecs'", "not a duration"]),
    ("runtime=1s", ["runtime=1s", "below the minimum 5s"]),
    ("runtime=2h", ["runtime=2h", "above the maximum 30m"]),
    ("file_size=64XB", ["file_size='64XB'", "not a size"]),
    ("file_size=1MiB", ["file_size=1MiB", "below the minimum 16MiB"]),
    ("bs=1000", ["bs=1000B", "not a multiple of 512B"]),
    ("bs=0.5KiB", None),  # 512 bytes: allowed
    ("rate_iops=1.5", ["rate_iops='1.5'", "not a whole number"]),
    ("rate_iops=true", ["rate_iops='true'", "not a whole number"]),
    ("rate_iops=0", ["rate_iops=0", "below the minimum 10"]),
    ("capture=perIO", ["capture='perIO'", "one of perio, hist", "did you mean 'perio'"]),
    ("bad_client=7", ["bad_client=7", "above the maximum 5", "the value of clients"]),
    ("single_path=1,9", ["single_path=1,9", "above the maximum 5"]),
    ("single_path=1,x", ["single_path='1,x'", "comma-separated"]),
    ("single_path=2,2", ["lists a number twice"]),
    ("cache=maybe", ["cache='maybe'", "true or false"]),
    ("ratio=1.5", ["ratio=1.5", "above the maximum"]),
    ("ratio=abc", ["ratio='abc'", "not a number"]),
    ("file_size=4GiB", ["needs 8GiB of disk", "over the budget of 6GiB"]),
    ("justaword", ["'justaword'", "key=value"]),
]


@pytest.mark.parametrize("override,words", BAD, ids=[b[0] for b in BAD])
def test_bad_inputs_are_refused_with_a_clear_message(override, words):
    lab = make_lab()
    if words is None:
        params.resolve(lab, "smoke", [override], {"disk": "6GiB"})
        return
    with pytest.raises(params.ParamError) as e:
        params.resolve(lab, "smoke", [override], {"disk": "6GiB"})
    msg = str(e.value)
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"


def test_every_problem_is_reported_at_once():
    with pytest.raises(params.ParamError) as e:
        params.resolve(make_lab(), "smoke", ["runtime=1s", "rate_iops=0", "nope=1"])
    assert len(e.value.problems) == 3


def test_unknown_preset():
    with pytest.raises(params.ParamError, match="preset 'smok' is not defined.*did you mean 'smoke'"):
        params.resolve(make_lab(), "smok", [])


def test_disk_free_space_is_checked():
    with pytest.raises(params.ParamError, match="only .* is free"):
        params.resolve(make_lab(), "smoke", [], {"disk": "64GiB", "reserve": "1GiB"},
                       free_bytes=1024**3 + 10 * 1024**2)


def test_good_values_are_typed():
    v = params.resolve(make_lab(), "smoke", ["bs=8k", "runtime=1.5m", "cache=no", "single_path=2, 4",
                                             "file_size=100MB"])
    assert v["bs"] == 8192 and v["runtime"] == 90.0 and v["cache"] is False
    assert v["single_path"] == [2, 4] and v["file_size"] == 100_000_000 and v["rate_iops"] == 1000
    assert v["runtime"] != 10  # preset overridden
    assert params.resolve(make_lab(), "smoke", [])["runtime"] == 10.0


def test_describe_round_trips():
    lab = make_lab()
    v = params.resolve(lab, "full", ["bs=8k", "file_size=1536MiB", "runtime=90s"])
    text = params.describe(v, lab)
    assert text["bs"] == "8KiB" and text["file_size"] == "1536MiB"
    assert params.resolve(lab, None, text) == v


@pytest.mark.parametrize("text,n", [("4096", 4096), ("4k", 4096), ("4KiB", 4096), ("4KB", 4000),
                                     ("1GiB", 1024**3), ("1.5MiB", 1536 * 1024), ("512B", 512)])
def test_sizes(text, n):
    assert params.parse_size(text) == n


def test_manifest_labs_validate_their_presets(manifest):
    for lab in manifest.labs.values():
        for preset in lab.presets:
            params.resolve(lab, preset, [], manifest.budget)
