# JupyterHub: one lab-host container per student (DockerSpawner), each with its own Docker engine,
# its runs in a volume of its own. The image is examples/class/jupyterhub/Dockerfile's; the settings
# are DockerSpawner's documented ones. tests/test_hub.py starts a hub from this file (adding only a
# login for its two test students and its own ports), spawns both, runs a mystery lab in each
# through a kernel, grades both with `perflab grade`, and checks that nothing is left.
#
# Plan for it as for one shared host per hub machine: every student's labs run on that machine's
# cores, and labs emulate time (disks, links), so two at once distort each other's results: the
# machine's lab lock, bound into every student's container below, makes their runs queue (a run
# that waits says whose run it waits for). The instructor guide's "A class of 100" gives the
# measured run times to plan machines from.
#
# Settings from the environment, all optional:
#   PERFLAB_HUB_URL     where the hub answers (default http://127.0.0.1:8000: this machine only;
#                       put a TLS-terminating proxy in front for a class)
#   PERFLAB_HUB_IMAGE   the image to spawn (default perflab/lab-hub:trixie)
#   PERFLAB_HUB_IMAGES  a directory of lab image archives (docker save) that every student's engine
#                       loads at start instead of building the images itself (a few minutes each)
#   PERFLAB_HUB_LOCK    the machine's lab lock (default /run/perflab/labs.lock, made if missing)
# Authentication is the department's: set c.JupyterHub.authenticator_class (JupyterHub's default is
# the machine's own accounts, PAM) in a file that loads this one with load_subconfig().
import os
from pathlib import Path

import docker

c = get_config()  # noqa: F821  (JupyterHub's config loader defines it)

IMAGE = os.environ.get("PERFLAB_HUB_IMAGE", "perflab/lab-hub:trixie")
LOCK = Path(os.environ.get("PERFLAB_HUB_LOCK", "/run/perflab/labs.lock"))

c.JupyterHub.bind_url = os.environ.get("PERFLAB_HUB_URL", "http://127.0.0.1:8000")
# The students' servers call the hub's API from their containers: it listens on the address of the
# Docker bridge on this machine (only this machine's containers reach it), not on every interface.
engine = docker.from_env()
c.JupyterHub.hub_ip = engine.networks.get("bridge").attrs["IPAM"]["Config"][0]["Gateway"]

c.JupyterHub.spawner_class = "dockerspawner.DockerSpawner"
c.DockerSpawner.image = IMAGE
# The entry point (containers/lab-host/entry) starts the inner engine and runs a command given as a
# path as it is: here the single-user server, from the image's own environment, as root (the labs
# make loop devices, mounts and qdiscs; the container is the student's sandbox).
c.DockerSpawner.cmd = ["/work/.venv/bin/jupyterhub-singleuser", "--allow-root"]
c.DockerSpawner.notebook_dir = "/work"
c.DockerSpawner.default_url = "/lab"
c.DockerSpawner.remove = True   # the container goes when the server stops; the two volumes stay
c.DockerSpawner.environment = {"TINI_SUBREAPER": "1"}   # tini is not PID 1 in the host's PID namespace
# Before the server starts, the student's engine starts and loads the lab images it lacks (from
# PERFLAB_HUB_IMAGES): on a first spawn that takes minutes, not JupyterHub's default 30 seconds.
c.DockerSpawner.start_timeout = 300
c.DockerSpawner.http_timeout = 600


def rights() -> tuple[dict, dict]:
    """The inner engine needs a privileged container, sharing the host's process IDs (nfs-layers'
    tracer filters on a pid as the kernel numbers it). Where the engine refuses --privileged (a
    capability bounding set without CAP_SYS_RESOURCE), the same rights one by one, as
    scripts/lab-host gives them (`scripts/lab-host --rights` prints its list; tests/test_hub.py
    holds the two equal): the zram part of the host's /sys writable (l2arc), the cgroups and /dev.
    Returns the container's extra host config and its extra binds (DockerSpawner's volumes: a
    "binds" entry in extra_host_config would replace the student's volumes)."""
    probe = engine.containers.create(IMAGE, entrypoint="true", privileged=True)
    try:
        probe.start()
        return {"privileged": True, "pid_mode": "host"}, {}
    except docker.errors.APIError:
        return ({"pid_mode": "host", "cap_add": ["ALL"], "cap_drop": ["SYS_RESOURCE"],
                 "security_opt": ["seccomp=unconfined", "apparmor=unconfined"],
                 "device_cgroup_rules": ["a *:* rwm"]},
                {"/sys/class/zram-control": {"bind": "/sys/class/zram-control", "mode": "rw"},
                 "/sys/devices/virtual/block": {"bind": "/sys/devices/virtual/block", "mode": "rw"},
                 "/sys/fs/cgroup": {"bind": "/sys/fs/cgroup", "mode": "rw"},
                 "/dev": {"bind": "/dev", "mode": "rw"}})
    finally:
        probe.remove(force=True, v=True)   # and the anonymous volume of the image's /var/lib/docker


c.DockerSpawner.extra_host_config, binds = rights()

# One lab at a time per kernel: the hub machine's lab lock, as scripts/lab-host binds it.
LOCK.parent.mkdir(parents=True, exist_ok=True)
LOCK.touch()
c.DockerSpawner.volumes = {
    "perflab-{username}-docker": "/var/lib/docker",   # the inner engine's images: built once per student
    "perflab-{username}-runs": "/work/data/runs",     # the student's run directories, kept between sessions
    str(LOCK): "/run/perflab/labs.lock",
    **binds,
}
if os.environ.get("PERFLAB_HUB_IMAGES"):
    c.DockerSpawner.volumes[str(Path(os.environ["PERFLAB_HUB_IMAGES"]).resolve())] = {"bind": "/images", "mode": "ro"}
