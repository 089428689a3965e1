"""The stepping experiment: its phases, its job file (one [tN] section per reader, staggered by
startdelay) and its run (a fio container lays the file out, a second one runs the readers under
docker's --device-read-iops)."""
from __future__ import annotations

from perflab.fio import jobs as fio
from perflab.infra import iostat
from perflab.infra.containers import Topology, volumes_disk
from perflab.infra.labdirs import made_dirs

JOB = "stepped"


def plan(p: dict) -> list[tuple[str, float]]:
    return [("prepare", p["file_size"] / 150e6 + 4), ("step", p["threads"] * p["step"] + 3), ("collect", 1.0)]


def sanity_context(p: dict) -> dict:
    return {"*": {"intent": "disk", "device_iops": p["limit_iops"],
                  "phased": "a reader joins every step: the readers that started early are squeezed as others join"}}


def job_file(s) -> fio.JobFile:
    p = s.params
    src = fio.JobFile.load(s.lab.jobs_dir / f"{JOB}.fio")
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


def run(s) -> None:
    from .analysis import load, summary

    p = s.params
    tag, (out,) = s.manifest.images["fio"].tag, made_dirs(s, "fio")
    job = job_file(s).write(out / f"{JOB}.fio")
    with Topology(s.run_id, s.lab.name) as topo:
        disk = volumes_disk(topo.client)
        s.provenance(limited_disk=disk)
        with s.phase("prepare"):
            data = topo.mounted_volume("data", "/data")
            s.provenance(fio_version=fio.version(topo, tag))
            topo.run(tag, "layout", ["fio", "--name=layout", "--filename=/data/stepping.dat", "--rw=write",
                                     "--bs=1m", f"--size={p['file_size']}", "--end_fsync=1"],
                     volumes=data, network_mode="none", timeout=600)
        with s.phase("step"), iostat.sampling(s.ledger, [disk], s.path("iostat.txt")):
            # iostat -x on the same disk, as a learner would run it on a server (the chapter sets it
            # beside fio's view)
            fio.run_in_container(topo, tag, job, out, JOB, volumes=data, timeout=3600,
                                 device_read_iops=[{"Path": disk, "Rate": int(p["limit_iops"])}])
    with s.phase("collect"):
        s.metric(**summary(load(s.data_dir)))
