#!/usr/bin/env bash
# Host packages and services the labs need, installed only when missing; idempotent.
#   - Docker: any engine that answers `docker info` is used as it is (Docker CE, Docker Desktop,
#     Debian's docker.io) and none is installed beside it. Where no engine answers, Debian's
#     docker.io is installed and its dockerd started in the background (log:
#     /var/log/perflab-dockerd.log) if there is no `docker` command, or docker.io's or Debian 13's
#     docker-cli's, or a lone client that no package owns and no `dockerd` beside it. Another
#     engine that does not answer (a `dockerd` that is not docker.io's, the snap's docker, or a
#     `docker` from another package, such as Docker CE's or Docker Desktop's) is left alone: the
#     script says so and stops (installing docker.io over it would conflict).
#   - Debian packages: fio, zfs-fuse, FUSE 3, debootstrap (to make the base image when no registry
#     answers), iproute2 (tc), strace, a compiler for the slow-disk emulator and perflab's log
#     scanner (with python3-dev, Python's headers), and python3-venv (a
#     stock Debian's python3 cannot make the project's environment without it); headless Chromium
#     (and its fonts) for the book's browser test. linux-perf: `perf stat -e cycles,instructions`
#     for the ht lab (CPI where the CPU exposes counters). Installed with apt-get, so only on
#     Debian or Ubuntu; elsewhere the script names what is missing and stops.
#   - For the tests only: npm (Node.js), which installs the Dev Containers CLI for the dev
#     container's test, where no `npm` command exists.
#   Two switches for image builds (containers/lab-host): PERFLAB_NO_DOCKERD=1 installs docker.io
#   where needed but starts no dockerd; PERFLAB_NO_BROWSER=1 leaves out what only the tests use
#   (Chromium and its fonts, npm).
set -euo pipefail
PKGS=(fio zfs-fuse fuse3 libfuse3-dev pkg-config gcc make debootstrap iproute2 strace
      ca-certificates util-linux procps linux-perf python3-venv python3-dev sysstat)
[ "${PERFLAB_NO_BROWSER:-0}" = 1 ] || PKGS+=(chromium fonts-liberation)
DOCKERD_LOG=${PERFLAB_DOCKERD_LOG:-/var/log/perflab-dockerd.log}
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
answers() { command -v docker >/dev/null 2>&1 && timeout 10 docker info >/dev/null 2>&1; }
# The package that owns a file, or nothing (a binary put there by hand, or no dpkg).
owner() { dpkg-query -S "$1" 2>/dev/null | sed -n 's/^\([^:]*\): .*/\1/p' | head -n 1; }
START_DOCKERD=0
DOCKER_CMD=$(command -v docker || true)
if answers; then
  echo "setup: a Docker engine answers ($DOCKER_CMD, server $(docker version -f '{{.Server.Version}}' 2>/dev/null || echo '?')): using it, installing none"
elif [ -n "$DOCKER_CMD" ] && ! installed docker.io && command -v dockerd >/dev/null 2>&1; then
  echo "setup: $DOCKER_CMD is installed with an engine ($(command -v dockerd), not Debian's docker.io) that does not answer 'docker info'; start it (for example: systemctl start docker, or Docker Desktop) and run make setup again. No second engine is installed over it." >&2
  exit 1
elif [ -n "$DOCKER_CMD" ] && case "$(readlink -f "$DOCKER_CMD")" in */snap/*) true;; *) false;; esac; then
  echo "setup: $DOCKER_CMD is the snap's docker and its engine does not answer 'docker info'; start it (snap start docker) and run make setup again. No second engine is installed beside it." >&2
  exit 1
elif [ -n "$DOCKER_CMD" ] && ! installed docker.io && [ -n "$(owner "$DOCKER_CMD")" ] \
     && [ "$(owner "$DOCKER_CMD")" != docker-cli ]; then
  echo "setup: $DOCKER_CMD comes from the package $(owner "$DOCKER_CMD") (not Debian's docker.io) and no engine answers 'docker info'; start its engine (for example: Docker Desktop) or point DOCKER_HOST at one, and run make setup again. No second engine is installed over it." >&2
  exit 1
else
  # No docker command, docker.io's, or a client alone that no package owns and with no engine
  # beside it (this project's machines ship one in /usr/local/bin): Debian's docker.io, started.
  [ -n "$DOCKER_CMD" ] && ! installed docker.io && echo "setup: $DOCKER_CMD is a client with no engine on this machine (no dockerd beside it): installing Debian's docker.io"
  PKGS=(docker.io "${PKGS[@]}")
  [ "${PERFLAB_NO_DOCKERD:-0}" = 1 ] || START_DOCKERD=1
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: missing: ${missing[*]}; this script installs packages only on Debian or Ubuntu (apt-get): install them with this system's package manager and run make setup again" >&2
    exit 1
  fi
  echo "setup: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Commands installed only where no such command exists (whoever provided it): docker (Debian 13
# moved it into docker-cli, only recommended by docker.io), and npm for the tests.
pairs=(docker:docker-cli)
[ "${PERFLAB_NO_BROWSER:-0}" = 1 ] || pairs+=(npm:npm)
if command -v apt-get >/dev/null 2>&1; then
  for pair in "${pairs[@]}"; do
    cmd=${pair%%:*}; pkg=${pair#*:}
    if ! command -v "$cmd" >/dev/null 2>&1 && apt-cache show "$pkg" >/dev/null 2>&1; then
      echo "setup: installing $pkg (for the $cmd command)"
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null
    fi
  done
fi
DOCKER=$(command -v docker || echo /usr/bin/docker)
if [ "$START_DOCKERD" = 1 ] && ! timeout 10 $DOCKER info >/dev/null 2>&1; then
  if pgrep -x dockerd >/dev/null; then
    echo "setup: dockerd runs but does not answer yet; waiting"
  else
    echo "setup: starting dockerd (log: $DOCKERD_LOG)"
    $SUDO sh -c "nohup dockerd >'$DOCKERD_LOG' 2>&1 &"
  fi
  for _ in $(seq 1 60); do timeout 5 $DOCKER info >/dev/null 2>&1 && break; sleep 1; done
  timeout 10 $DOCKER info >/dev/null 2>&1 || { echo "setup: dockerd did not start; see $DOCKERD_LOG" >&2; tail -20 "$DOCKERD_LOG" >&2; exit 1; }
fi
if [ "${PERFLAB_NO_DOCKERD:-0}" = 1 ]; then
  echo "setup: packages ready (docker $($DOCKER --version | cut -d' ' -f3 | tr -d ,) installed, no dockerd started; $(fio --version))"
  exit 0
fi
echo "setup: system ready (docker $($DOCKER version -f '{{.Server.Version}}'), $(fio --version))"
