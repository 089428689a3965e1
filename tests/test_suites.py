"""The lab images on another Debian release (`--suite trixie`): the same Dockerfiles with the release
named for bookworm, tagged apart, named in provenance, never recorded as a reference; and, live, a
lab run on Debian 13's images."""
import json
import os
from pathlib import Path

import pytest

from conftest import ROOT, perflab_cmd
from perflab.config import manifest as manifest_mod
from perflab.config.manifest import SUITE_ENV
from perflab.errors import Refused
from perflab.infra import images
from perflab.analysis.checks import failed


@pytest.fixture
def trixie(monkeypatch):
    monkeypatch.setenv(SUITE_ENV, "trixie")
    return manifest_mod.load(ROOT)


def test_the_default_suite_keeps_the_tags_and_dockerfiles_as_written(monkeypatch):
    """Every Dockerfile starts FROM the first release's slim image (what the suite's name replaces,
    and what the bootstrapped base is named), and the default images are the ones references ran on."""
    monkeypatch.delenv(SUITE_ENV, raising=False)
    m = manifest_mod.load(ROOT)
    assert m.images["fio"].tag == "perflab/fio:1" and m.images["fio"].base == "debian:bookworm-slim"
    assert m.images["nfsfio"].dockerfile == ROOT / "containers" / "nfsfio" / "Dockerfile"
    for name, im in m.images.items():
        froms = [ln.split()[1] for ln in images.dockerfile_text(im).splitlines() if ln.startswith("FROM ")]
        assert froms and set(froms) == {im.base}, (name, froms)


def test_trixie_images_are_tagged_apart_and_built_from_trixie(trixie):
    for name, im in trixie.images.items():
        assert im.tag.endswith(":1-trixie") and im.base == "debian:trixie-slim"
        text = images.dockerfile_text(im)
        froms = [ln.split()[1] for ln in text.splitlines() if ln.startswith("FROM ")]
        assert froms and all(f in ("debian:trixie-slim", "${BASE}") for f in froms), (name, froms)
        # Debian 12 named only as a source package's fallback (nfsfio: where no Debian 13 fio source is served)
        assert not [ln for ln in text.splitlines() if "bookworm" in ln and not ln.lstrip().startswith("#")
                    and "deb-src" not in ln and "apt-get source" not in ln], name
    # nfsfio: fio rebuilt with libnfs and the sync= line on both releases; on trixie from a Dockerfile of
    # its own (Debian 13's libnfs package), used as written (its Debian 12 fallback is not renamed)
    nfsfio = trixie.images["nfsfio"]
    assert nfsfio.dockerfile == ROOT / "containers" / "suites" / "trixie" / "nfsfio.Dockerfile"
    text = images.dockerfile_text(nfsfio)
    assert text == nfsfio.dockerfile.read_text()
    for words in ("--enable-libnfs", "flags |= td->o.sync_io", "fio --enghelp=nfs", "libnfs14"):
        assert words in text, words


def test_a_suite_changes_the_fingerprint_so_neither_image_stands_for_the_other(trixie, monkeypatch):
    t = images.fingerprint(trixie, "fio")
    monkeypatch.delenv(SUITE_ENV)
    assert images.fingerprint(manifest_mod.load(ROOT), "fio") != t


def test_a_suites_dockerfile_for_an_unknown_release_is_refused(tmp_path):
    text = (ROOT / "book.toml").read_text().replace('suites = { trixie =', 'suites = { sid =')
    (tmp_path / "book.toml").write_text(text)
    with pytest.raises(Refused, match="sid"):
        manifest_mod.load(tmp_path)


def test_an_unknown_suite_is_refused_naming_the_allowed_ones(monkeypatch):
    monkeypatch.setenv(SUITE_ENV, "sid")
    with pytest.raises(Refused, match="'sid'.*allowed: bookworm, trixie"):
        manifest_mod.load(ROOT)
    r = perflab_cmd("run", "heatmaps", "--suite", "sid", "--dry-run")
    assert r.returncode == 2 and "invalid choice: 'sid'" in r.stderr


def test_dry_run_names_the_suites_images(monkeypatch):
    monkeypatch.delenv(SUITE_ENV, raising=False)
    r = perflab_cmd("run", "l2arc", "--suite", "trixie", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "perflab/fio:1-trixie (on debian:trixie-slim)" in r.stdout
    assert "perflab/zfs:1-trixie (on debian:trixie-slim)" in r.stdout


def test_a_reference_is_never_recorded_on_another_suite():
    runs = ROOT / "data" / "runs"
    before = set(runs.iterdir()) if runs.exists() else set()
    r = perflab_cmd("run", "heatmaps", "--suite", "trixie", "--record")
    assert r.returncode == 2 and "--record runs on lab images built on bookworm" in r.stderr
    assert "nothing was created" in r.stderr
    assert (set(runs.iterdir()) if runs.exists() else set()) == before


def test_no_lab_is_refused_on_trixie_any_more(manifest):
    """Every lab runs on Debian 13's images (ht since its calibration reads stress-ng --metrics, which
    0.19 prints per-method rates with); the refusal itself is tested in tests/test_bad_inputs.py."""
    assert {n: lb.unsupported for n, lb in manifest.labs.items() if lb.unsupported} == {}


def test_an_unknown_image_is_refused_naming_the_images():
    r = perflab_cmd("images", "fio", "nope", "--suite", "trixie")
    assert r.returncode == 2 and "unknown image nope; images: fio, zfs" in r.stderr


def test_references_under_another_suite_are_refused_before_anything_is_removed(monkeypatch, tmp_path):
    """`perflab references --repeats` under PERFLAB_SUITE=trixie (or --seccomp lab) refuses before it
    removes a repeat; a reference's freshness is judged on the Dockerfiles it ran on whatever the
    suite (nfsfio's trixie recipe came after bad-cable's reference)."""
    from perflab.run import reference, rerecord

    monkeypatch.setenv(SUITE_ENV, "trixie")
    m = manifest_mod.load(ROOT)
    repeats = ROOT / "data" / "reference" / "heatmaps" / "repeats"
    before = sorted(p.name for p in repeats.iterdir())
    with pytest.raises(Refused, match="--record runs on lab images built on bookworm"):
        rerecord.record(m, ["heatmaps"], out=open(tmp_path / "out", "w"), repeats_only=True)
    assert sorted(p.name for p in repeats.iterdir()) == before
    specs = reference.pathspecs(m, m.lab("bad-cable"))
    assert "containers/nfsfio/Dockerfile" in specs and not any("suites" in x for x in specs)
    assert reference.check(m, ["bad-cable"])["bad-cable"] == []


def test_the_choice_lasts_one_command(monkeypatch):
    """An in-process caller (the chapter-command test runs the CLI's main) keeps its own suite."""
    from perflab import cli

    monkeypatch.delenv(SUITE_ENV, raising=False)
    assert cli.main(["run", "heatmaps", "--suite", "trixie", "--dry-run"]) == 0
    assert SUITE_ENV not in os.environ
    assert manifest_mod.load(ROOT).images["fio"].tag == "perflab/fio:1"


@pytest.mark.docker
@pytest.mark.slow
def test_heatmaps_runs_on_debian_13s_fio(docker_ok, artifacts):
    """The fio image built on trixie (fio from Debian 13), the heatmaps smoke preset on it: every check
    passes and run.json names the release; the fio that ran is the trixie image's."""
    b = perflab_cmd("images", "fio", "--suite", "trixie", timeout=1200)
    (artifacts / "images.txt").write_text(b.stdout + b.stderr)
    assert b.returncode == 0, b.stderr
    r = perflab_cmd("run", "heatmaps", "--suite", "trixie", "--preset", "smoke")
    (artifacts / "run.txt").write_text(r.stdout + r.stderr)
    assert r.returncode == 0, r.stderr
    doc = json.loads((Path(r.stdout.strip().splitlines()[-1]) / "run.json").read_text())
    assert doc["status"] == "complete" and not any(failed(c) for c in doc["checks"])
    fio = doc["provenance"]["images"]["fio"]
    assert fio["tag"] == "perflab/fio:1-trixie" and fio["base"] == "debian:trixie-slim"
    v = images.docker_bin(), "run", "--rm", "--network", "none", "perflab/fio:1-trixie", "fio", "--version"
    import subprocess

    trixie_fio = subprocess.run(v, capture_output=True, text=True, timeout=120).stdout.strip()
    assert doc["provenance"]["fio_version"] == trixie_fio
    r = perflab_cmd("clean", "--check")
    assert r.returncode == 0, r.stdout
