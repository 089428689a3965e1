"""The jbod lab's logic without Docker: the layout (mirrors, chains, cabling per phase), the job file,
the analysis (Little's-law queues, outliers, detection of single-path JBODs, the mirrored pool's
throughput, the chain effect) on synthetic per-I/O data."""
import numpy as np
import pandas as pd
import pytest

from perflab.config import manifest as manifest_mod

from conftest import ROOT

MiB = 1 << 20


@pytest.fixture(scope="module")
def lab():
    return manifest_mod.load(ROOT).lab("jbod").load_module()


def test_mirrors_cross_jbods_and_cover_every_disk_once(lab):
    for J in range(2, 9):
        for D in range(2, 9):
            groups = lab.mirror_pairs(J, D)
            disks = [d for g in groups for d in g]
            assert sorted(disks) == sorted((j, x) for j in range(1, J + 1) for x in range(1, D + 1))
            assert all(len({j for j, _ in g}) == len(g) for g in groups), (J, D, groups)
            assert all(len(g) in (2, 3) for g in groups)


def test_chains(lab):
    assert lab.as_cabled_chains(6, [3, 6]) == [[3, 6], [1, 2, 4, 5]]
    assert lab.as_cabled_chains(4, []) == [[1, 2, 3, 4]]
    assert lab.as_cabled_chains(3, [1, 2, 3]) == [[1, 2, 3]]
    assert lab.balanced_chains(6, 3) == [[1, 4], [2, 5], [3, 6]]
    assert lab.balanced_chains(2, 4) == [[1], [2]]
    lens = [len(c) for c in lab.balanced_chains(7, 3)]
    assert max(lens) - min(lens) <= 1 and sum(lens) == 7


def test_cabling_per_phase(lab):
    p = {"jbods": 4, "single_path": [2], "short_chain": [1], "hbas": 2}
    cab = lab.cabling(p)
    assert cab["as cabled"]["paths"] == {1: 2, 2: 1, 3: 2, 4: 2}
    assert set(cab["second path"]["paths"].values()) == {2}
    assert cab["second path"]["chains"] == [[1], [2, 3, 4]]
    assert cab["balanced"]["chains"] == [[1, 3], [2, 4]]


def test_disk_names_hide_the_jbod(lab):
    names = {lab.disk_name(j, x) for j in range(1, 9) for x in range(1, 9)}
    assert len(names) == 64
    ordered = sorted((lab.disk_name(j, x), j) for j in range(1, 7) for x in range(1, 5))
    # sorted by name, the disks of one JBOD are not all next to each other
    runs = sum(1 for a, b in zip(ordered, ordered[1:]) if a[1] != b[1])
    assert runs > 6


def _timeline(J=4, D=2, rate=4 * MiB, single=(2,), chains=None):
    chains = chains or [[1, 2], [3, 4]]
    jobs = {f"j{j}d{x}": {"jbod": j, "slot": x, "name": f"disk{j}{x}"} for j in range(1, J + 1) for x in range(1, D + 1)}
    ph = {"chains": chains, "paths": {str(j): 1 if j in single else 2 for j in range(1, J + 1)}}
    return {"jbods": J, "disks_per_jbod": D, "disk_rate": rate, "bs": 128 * 1024, "settle_s": 0.0,
            "path_bw": 4 * MiB, "chain_bw": 100 * MiB, "disks": jobs, "mirrors": [], "phases": {"as cabled": ph}}


def synthetic(lab, slow=(2,), T=20.0, J=4, D=2):
    """Every disk writes 32 x 128 KiB a second (4 MiB/s), latency 1 ms; the slow JBODs' disks
    write 20 a second at 400 ms."""
    tl = _timeline(J, D, single=slow)
    tl["mirrors"] = [[lab.job_name(*d) for d in g] for g in lab.mirror_pairs(J, D)]
    rows = []
    for job, info in tl["disks"].items():
        n, lat = (20, 400.0) if info["jbod"] in slow else (32, 1.0)
        t = np.arange(0, T, 1.0 / n) + 1000.0
        rows.append(pd.DataFrame({"phase": "as cabled", "job": job, "t": t, "lat_ms": lat}))
    return {"timeline": tl, "ios": pd.concat(rows, ignore_index=True)}


def test_little_law_queue_outliers_and_detection(lab):
    d = synthetic(lab, slow=(2,))
    ds = lab.disk_stats(d, "as cabled", 220.0)
    fast = ds[ds["jbod"] != 2]
    slow = ds[ds["jbod"] == 2]
    assert fast["queue"].round(3).eq(0.032).all()          # 32/s x 1 ms
    assert slow["queue"].round(1).eq(8.0).all()            # 20/s x 400 ms
    assert fast["outliers"].eq(0).all() and slow["outliers"].gt(0).all()
    jb = lab.jbod_stats(ds)
    assert jb.loc[2, "reached"] == pytest.approx(20 / 32, rel=0.02)
    assert lab.detect_slow_jbods(jb) == [2]
    assert lab.share_by_jbod(ds).loc[2] == pytest.approx(1.0)


@pytest.mark.parametrize("slow", [(), (1,), (1, 3), (1, 2, 3, 4)])
def test_detection_follows_any_planted_choice(lab, slow):
    d = synthetic(lab, slow=slow)
    jb = lab.jbod_stats(lab.disk_stats(d, "as cabled", 220.0))
    assert lab.detect_slow_jbods(jb) == sorted(slow)


def test_a_few_percent_short_is_not_single_path(lab):
    jb = pd.DataFrame({"queue_per_disk": [0.01, 16.0, 16.0], "reached": [0.99, 0.93, 0.71]}, index=[1, 2, 3])
    assert lab.detect_slow_jbods(jb) == [3]


def test_pool_counts_each_mirror_at_its_slower_side(lab):
    disks = pd.DataFrame({"job": ["a", "b", "c", "d"], "mib_s": [7.0, 5.0, 7.0, 7.0]})
    assert lab.pool_mib_s(disks, [["a", "b"], ["c", "d"]]) == pytest.approx(12.0)
    assert lab.pool_mib_s(disks, [["a", "b", "c"], ["d"]]) == pytest.approx(12.0)


def test_chain_effect_and_spread(lab):
    jb = pd.DataFrame({"queue_per_disk": [1.0, 1.0, 4.0, 4.0, 4.0, 4.0], "chain_len": [2, 2, 4, 4, 4, 4]},
                      index=range(1, 7))
    ce = lab.chain_effect(jb)
    assert (ce["short_len"], ce["long_len"], ce["ratio"]) == (2, 4, 4.0)
    assert lab.spread(jb) == 4.0
    even = jb.assign(chain_len=2)
    assert lab.chain_effect(even)["ratio"] is None


def test_chain_oversubscription_prediction(lab):
    tl = {"disks_per_jbod": 4, "disk_rate": 7 * MiB, "path_bw": 20 * MiB, "chain_bw": 104 * MiB,
          "phases": {"dual": {"chains": [[3, 6], [1, 2, 4, 5]], "paths": {str(j): 2 for j in range(1, 7)}},
                     "cabled": {"chains": [[3, 6], [1, 2, 4, 5]], "paths": {"1": 2, "2": 1, "3": 2, "4": 2, "5": 1, "6": 2}},
                     "bal": {"chains": [[1, 4], [2, 5], [3, 6]], "paths": {str(j): 2 for j in range(1, 7)}}}}
    assert lab.chain_oversubscribed(tl, "dual")        # 4 x 28 = 112 > 104
    assert not lab.chain_oversubscribed(tl, "cabled")  # 28 + 20 + 28 + 20 = 96
    assert not lab.chain_oversubscribed(tl, "bal")


def test_job_file_one_section_per_disk(lab, tmp_path):
    class S:
        params = {"bs": 131072, "iodepth": 16, "disk_rate": 7 * MiB, "phase": 14.0}

        class lab:  # noqa: N801
            jobs_dir = ROOT / "labs" / "jbod" / "jobs"
    jf = lab.job_file(S, {(1, 1): "/dev/loop9p1", (2, 1): "/dev/loop8p1"})
    assert jf.jobs() == ["j1d1", "j2d1"]
    assert jf.get("j2d1", "filename") == "/dev/loop8p1" and jf.get("j2d1", "write_lat_log") == "j2d1"
    assert jf.get("global", "rate") == str(7 * MiB) and jf.get("global", "direct") == "1"
    assert "disk" not in jf.sections


def test_plan_covers_the_phases(lab):
    names = [n for n, _ in lab.plan({"phase": 14.0})]
    assert names == ["prepare", *lab.PHASES, "collect"]


def test_disk_queues_figure_shows_every_disk_on_a_log_axis(lab):
    """Queues thousands of times apart: one flat label per disk, a dot per disk (on a log axis a bar's
    length says only where the axis starts) on an axis that starts just below the shortest queue, and
    the disks of the JBODs found single-path in their own colour, named in the legend."""
    disks = pd.DataFrame({"jbod": [1, 1, 2, 2], "slot": [1, 2, 1, 2], "queue": [0.006, 0.005, 16.0, 15.9]})
    fig = lab.fig_disk_queues(disks, [2])
    assert [tr.type for tr in fig.data] == ["scatter", "scatter"] and all(tr.mode == "markers" for tr in fig.data)
    other, slow = fig.data
    assert list(other.y) == ["001/1", "001/2"] and list(slow.y) == ["002/1", "002/2"]
    assert other.marker.color == lab.OTHER and slow.marker.color == lab.SINGLE_PATH and "002" in slow.name
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.dtick == 1
    lo, hi = fig.layout.xaxis.range
    assert np.log10(0.005) - 0.5 < lo < np.log10(0.005) and hi > np.log10(16.0)
    assert list(fig.layout.yaxis.tickvals) == ["001/1", "001/2", "002/1", "002/2"]


def test_sunburst_has_no_empty_slices_and_flat_labels(lab):
    """A JBOD or a disk without a slow write gets no slice (its label would be drawn at no size), and
    the JBODs without one are named under the chart instead."""
    disks = pd.DataFrame({"jbod": [1, 1, 2, 2], "slot": [1, 2, 1, 2], "disk": ["a", "b", "c", "d"],
                          "outliers": [0, 0, 30, 0]})
    fig = lab.fig_outliers_sunburst(disks, 220)
    sb = fig.data[0]
    assert list(sb.ids) == ["J2", "J2/c"] and all(v > 0 for v in sb.values)
    assert sb.insidetextorientation == "horizontal" and fig.layout.uniformtext.minsize >= 10
    assert any("JBOD 001" in a.text for a in fig.layout.annotations)
