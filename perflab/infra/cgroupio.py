"""What a container's block I/O cgroup has counted, read from inside the container, on cgroup v1
(blkio.throttle.io_service_bytes, as Docker 20.10 on this project's machines mounts it) and on
cgroup v2 (io.stat): one shell line that prints the bytes read per device as v1 does,
"MAJ:MIN Read N", so that a lab reads one format whatever the host's cgroup version.

    client.sh(f"{READ_BYTES_SH} > blkio.before")   # perflab.infra.fioservice.FioClient
"""
from __future__ import annotations

__all__ = ["READ_BYTES_SH", "V1_SERVICE_BYTES", "V2_IO_STAT"]

#: cgroup v1: the container's group as Docker mounts it at the blkio controller
V1_SERVICE_BYTES = "/sys/fs/cgroup/blkio/blkio.throttle.io_service_bytes"
#: cgroup v2: the container's own group is the root of its cgroup namespace
V2_IO_STAT = "/sys/fs/cgroup/io.stat"

READ_BYTES_SH = (f"if [ -r {V1_SERVICE_BYTES} ]; then grep Read {V1_SERVICE_BYTES}; "
                 f"else awk '{{for (i = 2; i <= NF; i++) if ($i ~ /^rbytes=/) print $1, \"Read\", substr($i, 8)}}' "
                 f"{V2_IO_STAT}; fi")
