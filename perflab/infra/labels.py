"""Docker objects a run owns: containers, networks and volumes carry labels with the run id
(`labels`), so they can be found (`docker_objects`) and removed (`remove_docker_objects`) by run,
also after a crash, and nothing unlabelled is ever touched."""
from __future__ import annotations

import os

from perflab.errors import Failed

LABEL_OWNER = "org.perflab.owner"
LABEL_RUN = "org.perflab.run"
LABEL_LAB = "org.perflab.lab"
#: The run directory (absolute), so that a clone of the project that did not start a run can still
#: tell whether its runner is alive (perflab.infra.cleanup) and leave a live run of another clone alone.
LABEL_RUN_DIR = "org.perflab.run-dir"
#: Set by `perflab run` for the lab's notebook (and by a session that makes its own run): where
#: the run's directory is.
RUN_DIR_ENV = "PERFLAB_RUN_DIR"


def labels(run_id: str, lab: str | None = None, run_dir: os.PathLike | str | None = None) -> dict:
    """The labels of an object of run `run_id`; its directory's, when it is given (`run_dir`) or this
    process was started for the run (RUN_DIR_ENV: the process's identity, which perflab clean also reads)."""
    d = {LABEL_OWNER: "perflab", LABEL_RUN: run_id}
    if lab:
        d[LABEL_LAB] = lab
    run_dir = os.fspath(run_dir) if run_dir is not None else os.environ.get(RUN_DIR_ENV)
    if run_dir and os.path.basename(os.path.normpath(run_dir)) == run_id:
        d[LABEL_RUN_DIR] = os.path.abspath(run_dir)
    return d


def _containers(client, f) -> list:
    """Labelled containers, running or not. A container removed between Docker's list and the
    inspection that follows it (a lab cleaning up while we look) is skipped, not an error."""
    return client.containers.list(all=True, filters=f, ignore_removed=True)


def run_dirs_by_run(client) -> dict[str, str]:
    """{run id: run directory} from the labels of every labelled object that names one."""
    if client is None:
        return {}
    f = _label_filter(None)
    out = {}
    objs = [c.labels for c in _containers(client, f)]
    objs += [(o.attrs.get("Labels") or {}) for o in (*client.networks.list(filters=f), *client.volumes.list(filters=f))]
    for lb in objs:
        if lb.get(LABEL_RUN_DIR) and lb.get(LABEL_RUN):
            out[lb[LABEL_RUN]] = lb[LABEL_RUN_DIR]
    return out


class NoEngine(Failed):
    """No Docker engine answers where one is needed to look (exit 3): the message names the engine and
    what to do."""


def engine():
    """A Docker client whose engine answers; NoEngine (exit 3) with `no_engine_reason` when none does."""
    try:
        import docker

        c = docker.from_env(timeout=120)
        c.ping()
        return c
    except ImportError:
        raise NoEngine(f"no Docker engine answers: {no_engine_reason()}") from None
    except Exception as e:  # noqa: BLE001  (DockerException, requests' errors)
        raise NoEngine(f"no Docker engine answers: {no_engine_reason(str(e))}") from None


def docker_client():
    """A Docker client, or None when no engine answers (for callers to whom no engine means nothing
    to do; one that must look says it could not: `engine`)."""
    try:
        return engine()
    except NoEngine:
        return None


DEFAULT_SOCKET = "/var/run/docker.sock"


def no_engine_reason(error: str | None = None) -> str:
    """Why no Docker engine answers, as a user can act on it: permission on the socket, a DOCKER_HOST
    that names nothing, no engine running. `error`: the client's own message (asked anew if None)."""
    if error is None:
        try:
            import docker

            docker.from_env(timeout=20).ping()
            return "a Docker engine answers now"
        except ImportError:
            return "the Python package 'docker' is missing: run `make setup`"
        except Exception as e:  # noqa: BLE001  (DockerException, requests' errors)
            error = str(e)
    host = os.environ.get("DOCKER_HOST")
    where = host or f"unix://{DEFAULT_SOCKET}"
    if "Permission denied" in error or "PermissionError" in error:
        return (f"permission denied on the Docker socket ({where}): run as root, or add your user to the "
                "'docker' group and log in again")
    if host:
        return (f"DOCKER_HOST={host} does not answer: unset DOCKER_HOST to use this machine's engine, or start "
                "the engine it names")
    if not os.path.exists(DEFAULT_SOCKET):
        return f"no Docker engine is running (no {DEFAULT_SOCKET}): `make setup` installs and starts one"
    return f"the Docker engine at {DEFAULT_SOCKET} does not answer: start it (`make setup` does), see `perflab doctor`"


def _label_filter(run_id: str | None) -> dict:
    return {"label": [f"{LABEL_RUN}={run_id}"] if run_id else [f"{LABEL_OWNER}=perflab"]}


def docker_objects(client, run_id: str | None = None) -> list[tuple[str, str, str]]:
    """(kind, name, run id) of every labelled container, network and volume."""
    if client is None:
        return []
    f = _label_filter(run_id)
    out = []
    for c in _containers(client, f):
        out.append(("container", c.name, c.labels.get(LABEL_RUN, "")))
    for n in client.networks.list(filters=f):
        out.append(("network", n.name, (n.attrs.get("Labels") or {}).get(LABEL_RUN, "")))
    for v in client.volumes.list(filters=f):
        out.append(("volume", v.name, (v.attrs.get("Labels") or {}).get(LABEL_RUN, "")))
    return out


def remove_docker_objects(client, run_id: str | None = None, skip_runs: set[str] = frozenset()) -> list[str]:
    """Remove labelled containers, then networks, then volumes. Returns what could not be removed."""
    if client is None:
        return []
    import docker.errors

    f = _label_filter(run_id)
    failed = []
    kinds = (("container", _containers(client, f), {"force": True, "v": True}),
             ("network", client.networks.list(filters=f), {}),
             ("volume", client.volumes.list(filters=f), {"force": True}))
    for kind, objs, kw in kinds:
        for o in objs:
            labels = o.labels if kind == "container" else (o.attrs.get("Labels") or {})
            if labels.get(LABEL_RUN) in skip_runs:
                continue
            try:
                o.remove(**kw)
            except docker.errors.NotFound:
                pass
            except docker.errors.APIError as e:
                failed.append(f"{kind} {o.name}: {e.explanation}")
    return failed
