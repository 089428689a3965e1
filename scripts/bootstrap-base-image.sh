#!/usr/bin/env bash
# Make the base image the Dockerfiles start FROM (debian:bookworm-slim) available to the local engine.
# 1. already present: nothing to do;  2. a registry answers: docker pull;
# 3. no registry (this project's CI): debootstrap a minimal bookworm from Debian's mirror and
#    `docker import` it under the same tag, so the unchanged Dockerfiles build on top of it.
set -euo pipefail
TAG="${1:-debian:bookworm-slim}"
SUITE="${SUITE:-bookworm}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
DOCKER="${DOCKER:-docker}"

if "$DOCKER" image inspect "$TAG" >/dev/null 2>&1; then
  echo "base image $TAG: present"; exit 0
fi
if timeout 60 "$DOCKER" pull -q "$TAG" >/dev/null 2>&1; then
  echo "base image $TAG: pulled"; exit 0
fi
echo "base image $TAG: no registry reachable; bootstrapping it with debootstrap ($SUITE from $MIRROR)" >&2
command -v debootstrap >/dev/null || { echo "debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
root=$(mktemp -d /var/tmp/perflab-rootfs.XXXXXX)
trap 'rm -rf --one-file-system "$root"' EXIT
debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$root" "$MIRROR" >"$root.log" 2>&1 \
  || { tail -20 "$root.log" >&2; rm -f "$root.log"; exit 1; }
rm -f "$root.log"
# Same trimming as the official slim image: no apt lists, docs or man pages in the layer.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/usr/share/doc/* "$root"/usr/share/man/*
tar -C "$root" --numeric-owner -c . | "$DOCKER" import \
  --change 'CMD ["bash"]' --change 'ENV LANG=C.UTF-8' - "$TAG" >/dev/null
echo "base image $TAG: bootstrapped locally"
