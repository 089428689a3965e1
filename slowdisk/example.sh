#!/usr/bin/env bash
# slowdisk in one minute: two emulated 7200 RPM disks, fio against one, the device log.
#   bash slowdisk/example.sh            (as root, or a user who may use /dev/fuse)
# Everything lives in a temporary directory that is unmounted and removed on exit.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
make -s -C "$here"

work=$(mktemp -d /tmp/slowdisk-example.XXXXXX)
pid=""
cleanup() {
  if mountpoint -q "$work/mnt" 2>/dev/null; then fusermount3 -u "$work/mnt" || fusermount3 -uz "$work/mnt"; fi
  if [ -n "$pid" ]; then wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

mkdir -p "$work/backing" "$work/mnt" "$work/logs"
truncate -s 256M "$work/backing/disk0" "$work/backing/disk1"   # sparse; each file is one disk
# Warm the host's page cache: an I/O takes max(model, real I/O on the backing file), and a
# cold backing file (or, on a fresh VM, first-touch page faults) would slow the first pass.
cat "$work/backing/disk0" "$work/backing/disk1" > /dev/null

# -f: stay in the foreground (here: in the background of this script, so we know its PID)
"$here/slowdisk" "$work/backing" "$work/mnt" -f \
    -o rpm=7200,seek_min_ms=0.5,seek_max_ms=15,transfer_mbps=120,flush_ms=4,seed=42 \
    -o log_dir="$work/logs",log_wait=on 2>"$work/slowdisk.err" &
pid=$!
for _ in $(seq 100); do mountpoint -q "$work/mnt" && break; sleep 0.05; done
mountpoint -q "$work/mnt" || { cat "$work/slowdisk.err"; exit 1; }

echo "== random 8 KiB reads, one job, 3 s (expect ~80 IOPS, mean ~12.5 ms)"
fio --name=rand --filename="$work/mnt/disk0" --direct=1 --rw=randread --bs=8k \
    --runtime=3 --time_based | grep -E 'IOPS=|clat \(|50.00th'

echo "== sequential 128 KiB reads, 2 s (expect ~115 MB/s)"
fio --name=seq --filename="$work/mnt/disk1" --direct=1 --rw=read --bs=128k \
    --runtime=2 --time_based | grep -E 'READ:'

fusermount3 -u "$work/mnt"; wait "$pid"; pid=""     # the logs are complete after this
echo "== device log (time_ms, service_ns, ddir, bs, offset, prio): first lines of disk0.log"
head -5 "$work/logs/disk0.log"
echo "== $(wc -l < "$work/logs/disk0.log") I/Os on disk0, $(wc -l < "$work/logs/disk1.log") on disk1"
grep '^slowdisk: disk' "$work/slowdisk.err"
