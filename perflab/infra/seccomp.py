"""The seccomp filter a lab's containers run under.

The images that run fio name an allow-list in book.toml (`[images.fio] seccomp =
"containers/seccomp/fio.json"`, the labs' profile). Which filter their containers get is the
user's choice, `perflab run --seccomp` (RunOptions.seccomp; the command line also reads
PERFLAB_SECCOMP as its default):

    docker      Docker's default filter (the default)
    lab         the image's allow-list from book.toml
    unconfined  no filter at all

Every other image keeps Docker's default filter whatever the choice. `Topology.container` applies
it (perflab.infra.containers), and a run's provenance names the filter of each image, with the
profile's sha256 (`provenance`, written by perflab.run.session.create_run).

Why Docker's default stays the default: the allow-list is not faster (having a filter at all is
what costs, whatever its length: containers/seccomp/README.md, benchmarks/RESULTS.md), and it has
been derived and run on x86_64 only; a learner's Apple-silicon Docker Desktop is aarch64. How the
profile was made, and how to make it again, is containers/seccomp/README.md (scripts/seccomp-profile).

Docker's API takes the profile's JSON text, not a path (the docker command reads the file itself
and sends its text): `security_opt=["seccomp=<JSON text>"]`.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from perflab.config.options import SECCOMP_CHOICES, RunOptions
from perflab.errors import Failed, Refused

#: What provenance says of Docker's default filter, and the value that turns the filter off.
DOCKER_DEFAULT = "docker default"
UNCONFINED = "unconfined"
#: The command line's defaults for --seccomp and for RunOptions.seccomp_profile (perflab.commands
#: reads them; scripts/seccomp-profile labs sets them for the runs it starts)
ENV = "PERFLAB_SECCOMP"
PROFILE_ENV = "PERFLAB_SECCOMP_PROFILE"
CHOICES = SECCOMP_CHOICES


class ProfileError(Failed, ValueError):
    """A seccomp profile that cannot be read or is not shaped as Docker expects."""


def read(path) -> str:
    """The profile's text, once it is known to be a Docker seccomp profile (a JSON object with a
    defaultAction and a list of syscall rules, each naming its calls and an action)."""
    path = Path(path)
    try:
        text = path.read_text()
        doc = json.loads(text)
    except OSError as e:
        raise ProfileError(f"seccomp profile {path}: cannot read: {e.strerror}") from None
    except ValueError as e:
        raise ProfileError(f"seccomp profile {path}: not valid JSON: {e}") from None
    rules = doc.get("syscalls") if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or not isinstance(doc.get("defaultAction"), str) or not isinstance(rules, list):
        raise ProfileError(f"seccomp profile {path}: needs a defaultAction and a syscalls list")
    for i, r in enumerate(rules):
        if not (isinstance(r, dict) and isinstance(r.get("names"), list) and r["names"]
                and isinstance(r.get("action"), str)):
            raise ProfileError(f"seccomp profile {path}: syscalls[{i}] needs names and an action")
    return text


def security_opt(profile) -> list[str]:
    """Docker's security_opt for a profile: a path, UNCONFINED (no filter) or None (Docker's default)."""
    if profile is None:
        return []
    if profile == UNCONFINED:
        return ["seccomp=unconfined"]
    return ["seccomp=" + read(profile)]


def allowed_calls(path) -> set[str]:
    """The calls a profile allows (with or without conditions on their arguments)."""
    doc = json.loads(read(path))
    return {n for r in doc["syscalls"] if r["action"] == "SCMP_ACT_ALLOW" for n in r["names"]}


def sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def choice(value: str | None) -> str:
    """A seccomp choice as given (--seccomp, or PERFLAB_SECCOMP as its default): docker when none,
    refused when not one of CHOICES."""
    value = value or "docker"
    if value not in CHOICES:
        raise Refused(f"{ENV}={value!r} is not a seccomp choice; allowed: "
                      + ", ".join(f"{k} ({v})" for k, v in CHOICES.items()))
    return value


def profile_for(image, options: RunOptions):
    """The filter for containers of `image` (a manifest Image) under the run's options: None
    (Docker's default), the profile's path (options.seccomp_profile, if set, instead of book.toml's),
    or UNCONFINED. Only images that name a profile follow the choice."""
    if image.seccomp is None or options.seccomp == "docker":
        return None
    if options.seccomp == "unconfined":
        return UNCONFINED
    return options.seccomp_profile or image.seccomp


def by_tag(m, options: RunOptions) -> dict:
    """{image tag: profile_for(...)} for every image of manifest m."""
    return {im.tag: profile_for(im, options) for im in m.images.values()}


def check(m, names, options: RunOptions) -> None:
    """Read each profile the images `names` would run under, before anything is created (a
    missing or malformed profile is refused with its reason)."""
    for n in names:
        p = profile_for(m.images[n], options)
        if p is not None and p != UNCONFINED:
            read(p)


def describe(m, name: str, options: RunOptions):
    """What the containers of image `name` run under, for a run's provenance: the profile's path
    (from the project root) and sha256, UNCONFINED, or DOCKER_DEFAULT."""
    p = profile_for(m.images[name], options)
    if p is None:
        return DOCKER_DEFAULT
    if p == UNCONFINED:
        return UNCONFINED
    p = Path(p)
    return {"profile": str(p.relative_to(m.root) if p.is_relative_to(m.root) else p), "sha256": sha256(p)}


def provenance(m, names, options: RunOptions) -> dict:
    """{image name: describe(...)} for the images a lab uses."""
    return {n: describe(m, n, options) for n in names}
