"""A run's options: the choices `perflab run` takes besides the lab's parameters, which change where
and how its containers run but not what the lab measures.

    perflab run LAB --scratch DIR --cpus N --seccomp lab --live

The command line validates them (perflab.infra.scratch.check, limits.check, seccomp.CHOICES) and
writes them into the run's run.json (`options`) before the notebook starts; the notebook's session
reads them back from there and hands them down to the infra floor as part of its context
(perflab.infra.context.LabContext). run.json is the one way they travel between the two processes;
nothing between the floors reads them from the environment.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["RunOptions", "SECCOMP_CHOICES"]

#: `--seccomp`: what each choice means (perflab.infra.seccomp applies it)
SECCOMP_CHOICES = {"docker": "Docker's default filter", "lab": "the lab images' own profile (book.toml)",
                   "unconfined": "no filter"}


@dataclass(frozen=True)
class RunOptions:
    #: where the lab's volumes live (perflab.infra.scratch); None: Docker's own volume directory
    scratch: Path | None = None
    #: the CPUs each lab container may use (perflab.infra.limits); None: no limit
    cpus: float | None = None
    #: the seccomp filter of the images that name a profile (SECCOMP_CHOICES)
    seccomp: str = "docker"
    #: a profile to use instead of book.toml's for `seccomp = "lab"` (scripts/seccomp-profile's logging variant)
    seccomp_profile: Path | None = None
    #: the run is watched (`--live`): its fio jobs report once a second, listed in its live.jsonl (perflab.fio.live)
    live: bool = False
    #: where the values came from, for a message: "run.json", "defaults"
    source: str = field(default="defaults", compare=False)

    def __post_init__(self):
        if self.seccomp not in SECCOMP_CHOICES:
            raise ValueError(f"seccomp {self.seccomp!r}: allowed: {', '.join(SECCOMP_CHOICES)}")
        if self.cpus is not None and not self.cpus > 0:
            raise ValueError(f"cpus {self.cpus!r}: allowed: a number above 0")

    @property
    def default(self) -> bool:
        """The choices every reference runs under (perflab.run.runner.check_recordable)."""
        return self.scratch is None and self.cpus is None and self.seccomp == "docker" \
            and self.seccomp_profile is None

    def record(self) -> dict:
        """As run.json keeps them (JSON: paths as text, None as null)."""
        return {"scratch": _text(self.scratch), "cpus": self.cpus, "seccomp": self.seccomp,
                "seccomp_profile": _text(self.seccomp_profile), "live": self.live}

    @classmethod
    def from_record(cls, doc: dict | None) -> "RunOptions":
        """The options a run.json records (`options`); the defaults for a run that records none
        (a reference recorded before options were recorded ran under the defaults: check_recordable)."""
        if not doc:
            return cls()
        return cls(scratch=_path(doc.get("scratch")), cpus=doc.get("cpus"), seccomp=doc.get("seccomp") or "docker",
                   seccomp_profile=_path(doc.get("seccomp_profile")), live=doc.get("live") is True,
                   source="run.json")


def _text(p: Path | None) -> str | None:
    return None if p is None else str(p)


def _path(v) -> Path | None:
    return Path(v) if v else None
