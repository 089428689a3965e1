# JupyterHub: one lab-host container per student (DockerSpawner), each with its own Docker engine,
# its runs in a volume of its own. NOT TESTED: no JupyterHub runs on this project's machines. The
# image is examples/class/jupyterhub/Dockerfile's; the settings are DockerSpawner's documented ones.
#
# Plan for it as for one shared host per hub machine: every student's labs run on that machine's
# cores, and labs emulate time (disks, links), so two at once distort each other's results: the
# machine's lab lock, bound into every student's container below, makes their runs queue. The
# instructor guide's "A class of 100" gives the measured run times to plan machines from.
c = get_config()  # noqa: F821  (JupyterHub's config loader defines it)

c.JupyterHub.spawner_class = "dockerspawner.DockerSpawner"
c.DockerSpawner.image = "perflab/lab-hub:trixie"
# The entry point (containers/lab-host/entry) starts the inner engine and runs a command given as a
# path as it is: here the single-user server, from the image's own environment.
c.DockerSpawner.cmd = ["/work/.venv/bin/jupyterhub-singleuser"]
c.DockerSpawner.notebook_dir = "/work"
c.DockerSpawner.default_url = "/lab"
# The inner engine needs a privileged container (scripts/lab-host's fallback rights, where the hub's
# engine refuses --privileged, go in extra_host_config the same way: cap_add, security_opt, devices,
# and binds of the zram part of /sys, /sys/fs/cgroup and /dev), sharing the host's process IDs as
# scripts/lab-host does (nfs-layers' tracer filters on a pid as the kernel numbers it).
c.DockerSpawner.extra_host_config = {"privileged": True, "pid_mode": "host"}
c.DockerSpawner.environment = {"TINI_SUBREAPER": "1"}   # tini is not PID 1 in the host's PID namespace
c.DockerSpawner.volumes = {
    "perflab-{username}-docker": "/var/lib/docker",   # the inner engine's images: built once per student
    "perflab-{username}-runs": "/work/data/runs",     # the student's run directories, kept between sessions
    # one lab at a time per kernel: the hub machine's lab lock, as scripts/lab-host binds it (the file
    # must exist on the hub machine first: `mkdir -p /run/perflab && touch /run/perflab/labs.lock`)
    "/run/perflab/labs.lock": "/run/perflab/labs.lock",
}
c.DockerSpawner.remove = True   # the container goes when the server stops; the two volumes stay
