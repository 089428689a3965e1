#!/usr/bin/env bash
# Host packages and services the labs need, installed only when missing; idempotent.
#   - Debian packages: Docker's engine (docker.io), fio, zfs-fuse, FUSE 3, debootstrap (to make the
#     base image when no registry answers), iproute2 (tc), strace, and a compiler for the
#     slow-disk emulator; headless Chromium (and its fonts) for the book's browser test.
#     linux-perf: `perf stat -e cycles,instructions` for the ht lab (CPI where the CPU exposes counters).
#   - dockerd started in the background when no engine answers (log: /var/log/perflab-dockerd.log).
set -euo pipefail
PKGS=(docker.io fio zfs-fuse fuse3 libfuse3-dev pkg-config gcc make debootstrap iproute2 strace
      ca-certificates util-linux procps chromium fonts-liberation linux-perf)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
DOCKER=/usr/bin/docker
if ! timeout 10 $DOCKER info >/dev/null 2>&1; then
  if pgrep -x dockerd >/dev/null; then
    echo "setup: dockerd runs but does not answer yet; waiting"
  else
    echo "setup: starting dockerd (log: /var/log/perflab-dockerd.log)"
    $SUDO sh -c 'nohup dockerd >/var/log/perflab-dockerd.log 2>&1 &'
  fi
  for _ in $(seq 1 60); do timeout 5 $DOCKER info >/dev/null 2>&1 && break; sleep 1; done
  timeout 10 $DOCKER info >/dev/null 2>&1 || { echo "setup: dockerd did not start; see /var/log/perflab-dockerd.log" >&2; tail -20 /var/log/perflab-dockerd.log >&2; exit 1; }
fi
echo "setup: system ready (docker $($DOCKER version -f '{{.Server.Version}}'), $(fio --version))"
