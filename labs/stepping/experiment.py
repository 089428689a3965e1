"""The stepping experiment: its phases, its job file (one [tN] section per reader, staggered by
startdelay) and its run (a fio container lays the file out, a second one runs the readers under
docker's --device-read-iops)."""
from __future__ import annotations

from collections.abc import Mapping

from perflab.fio import jobs as fio
from perflab.infra import iostat
from perflab.infra.containers import Topology
from perflab.infra.context import LabContext, image_tag
from perflab.infra.labdirs import made_dirs

from .spec import JOB


def plan(p: Mapping) -> list[tuple[str, float]]:
    return [("prepare", p["file_size"] / 150e6 + 4), ("step", p["threads"] * p["step"] + 3), ("collect", 1.0)]


def sanity_context(p: Mapping) -> dict:
    return {"*": {"intent": "disk", "device_iops": p["limit_iops"],
                  "phased": "a reader joins every step: the readers that started early are squeezed as others join"},
            "layout": {"intent": "setup"}}   # writes the readers' file: not a measurement


def job_file(ctx: LabContext) -> fio.JobFile:
    p = ctx.params
    src = fio.JobFile.load(ctx.lab.jobs_dir / f"{JOB}.fio")
    jf = fio.JobFile(header=[ln for ln in src.header if "perflab-intent" not in ln],
                     sections={"global": list(src.sections["global"])})
    jf.header.append("; perflab-intent: " + " ".join(f"t{k}=disk" for k in range(1, p["threads"] + 1)))
    jf.apply({"global": {"filename": "/data/stepping.dat", "size": p["file_size"],
                         "thinktime": int(round(p["think"] * 1e6))}})
    total = int(p["threads"] * p["step"])
    for k in range(1, p["threads"] + 1):
        delay = int((k - 1) * p["step"])
        jf.sections[f"t{k}"] = ([("startdelay", str(delay))] if delay else []) + [("runtime", str(total - delay))]
    return jf


def layout_file(p: Mapping) -> fio.JobFile:
    """The job that lays the readers' file out (written once, synced) before they start."""
    return fio.JobFile(sections={"layout": []}).apply({"layout": {
        "filename": "/data/stepping.dat", "rw": "write", "bs": "1m", "size": p["file_size"], "end_fsync": 1}})


def run(ctx: LabContext) -> None:
    """The file laid out, then the staggered readers under the disk's IOPS limit, iostat beside them;
    the raw files under the run's fio/ and iostat.txt (the session then reads them back)."""
    p = ctx.params
    tag, (out,) = image_tag(ctx, "fio"), made_dirs(ctx, "fio")
    job = job_file(ctx).write(out / f"{JOB}.fio")
    layout = layout_file(p).write(out / "layout.fio")
    with Topology(ctx) as topo:
        disk = topo.volumes_disk()
        ctx.provenance(limited_disk=disk)
        with ctx.phase("prepare"):
            data = topo.mounted_volume("data", "/data")
            ctx.provenance(fio_version=fio.version(topo, tag))
            fio.run_in_container(topo, tag, layout, out, "layout", volumes=data, timeout=600)
        with ctx.phase("step"), iostat.sampling(ctx.ledger, [disk], ctx.path("iostat.txt")):
            # iostat -x on the same disk, as a learner would run it on a server (the chapter sets it
            # beside fio's view)
            fio.run_in_container(topo, tag, job, out, JOB, volumes=data, timeout=3600,
                                 device_read_iops=[{"Path": disk, "Rate": int(p["limit_iops"])}])
