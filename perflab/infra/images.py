"""Build the lab images from containers/ (ordinary Dockerfiles, FROM debian:bookworm-slim).

When no registry answers, scripts/bootstrap-base-image.sh makes the base image locally
(debootstrap, then `docker import` under the same tag) and the same Dockerfiles build on top.
Also reports an image's id, for provenance.

On another Debian release (`--suite trixie`, perflab.config.manifest.SUITES) the same Dockerfiles
are built with the release's name put for "bookworm" (their FROM lines), sent to `docker build -f -`,
or from a Dockerfile of the image's own there (book.toml `[images.X] suites`): the files stay as the
references were recorded from, and the images are tagged apart (perflab/fio:1-trixie).

Inspection and pruning go through the Docker SDK. Building stays with the `docker build` command:
the SDK's build drives the engine's legacy builder and hands back a stream to parse, where the
command builds as a reader would by hand and prints the error a Dockerfile author expects.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from perflab.config.manifest import SUITES, Manifest
from perflab.errors import Failed, TimedOut

#: the base image's bootstrap (a pull, or debootstrap from Debian's mirrors) and one image's
#: `docker build` (apt installs, fio built from source for nfsfio): minutes; past these, a hung
#: mirror or engine, not a slow one
BOOTSTRAP_TIMEOUT_S = 1800.0
BUILD_TIMEOUT_S = 3600.0


def docker_bin() -> str:
    # Debian's docker.io client matches Debian's engine; a client elsewhere on PATH may not.
    return "/usr/bin/docker" if Path("/usr/bin/docker").exists() else "docker"


def ensure_base(root: Path, im) -> None:
    """The base image that image `im` (a manifest Image) starts FROM: present, pulled, or bootstrapped."""
    try:
        subprocess.run(["bash", str(root / "scripts" / "bootstrap-base-image.sh"), im.base], check=True,
                       stdout=sys.stderr, env={**os.environ, "DOCKER": docker_bin(), "SUITE": im.suite},
                       timeout=BOOTSTRAP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise TimedOut(f"the base image {im.base} (scripts/bootstrap-base-image.sh)", BOOTSTRAP_TIMEOUT_S) from None


def dockerfile_text(im) -> str:
    """The Dockerfile of image `im` (a manifest Image) for its suite: as written for the first suite
    and where the image has a Dockerfile of the suite's own (`suites` in book.toml: it names its
    releases itself, as nfsfio's fetches the first suite's fio source); the first suite's, with the
    release's name put for it, otherwise."""
    text = im.dockerfile.read_text()
    own = im.default_dockerfile is not None and im.dockerfile != im.default_dockerfile
    return text if im.suite == SUITES[0] or own else text.replace(SUITES[0], im.suite)


def fingerprint(m: Manifest, name: str) -> str:
    """A hash of the files an image is built from (its Dockerfile and `inputs`): an image whose
    label differs is out of date and is rebuilt."""
    import hashlib

    im = m.images[name]
    h = hashlib.sha256(b"" if im.suite == SUITES[0] else im.suite.encode() + b"\0")
    files = {im.dockerfile}
    for pattern in im.inputs:
        files.update(p for p in m.root.glob(pattern) if p.is_file())
    for f in sorted(files):
        h.update(str(f.relative_to(m.root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def build(m: Manifest, names: list[str] | None = None, quiet: bool = True) -> dict[str, str]:
    """Build the named images (default: all). Returns {name: image id}."""
    out = {}
    bases = {im.base: im for n, im in m.images.items() if not names or n in names}
    for im in bases.values():
        ensure_base(m.root, im)
    for name, im in m.images.items():
        if names and name not in names:
            continue
        print(f"image {name} ({im.tag}): building from {im.dockerfile.relative_to(m.root)} on {im.base}",
              file=sys.stderr)
        # --force-rm: a failed step leaves no stopped container behind
        cmd = [docker_bin(), "build", "--force-rm", "-t", im.tag, "-f", "-",
               "--label", "org.perflab.image=" + name, "--label", "org.perflab.suite=" + im.suite,
               "--label", "org.perflab.inputs=" + fingerprint(m, name), str(im.context)]
        try:
            r = subprocess.run(cmd, input=dockerfile_text(im), capture_output=quiet, text=True,
                               timeout=BUILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise TimedOut(f"docker build of {im.tag}", BUILD_TIMEOUT_S) from None
        if r.returncode != 0:
            tail = "\n".join(((r.stdout or "") + (r.stderr or "")).splitlines()[-30:])
            raise Failed(f"docker build of {im.tag} failed (its last lines follow)\n{tail}")
        out[name] = image_id(im.tag)
    # A rebuild leaves the previous image untagged: remove ours (labelled), and only those.
    client = _client()
    if client is not None:
        client.images.prune(filters={"dangling": True, "label": "org.perflab.image"})
    return out


def _client():
    from perflab.infra.labels import docker_client

    return docker_client()


def _image(tag: str):
    """The engine's image of that tag, or None (no such image, or no engine)."""
    import docker

    client = _client()
    if client is None:
        return None
    try:
        return client.images.get(tag)
    except docker.errors.ImageNotFound:
        return None


def image_id(tag: str) -> str | None:
    im = _image(tag)
    return im.id if im is not None else None


def _label(tag: str, key: str) -> str | None:
    im = _image(tag)
    return (im.labels or {}).get(key) if im is not None else None


def missing(m: Manifest, names: list[str]) -> list[str]:
    """Tags of the images that are absent or older than the files they are built from."""
    return [m.images[n].tag for n in names if _label(m.images[n].tag, "org.perflab.inputs") != fingerprint(m, n)]
