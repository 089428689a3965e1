#!/usr/bin/env bash
# `make lab-image`: build the lab-host image (containers/lab-host) on Debian 13 (trixie) or 12.
#   scripts/build-lab-image.sh [trixie|bookworm]    -> perflab/lab:trixie, perflab/lab:bookworm
# The base image comes from scripts/bootstrap-base-image.sh (pulled where a registry answers,
# else debootstrapped locally). The build context is a copy of the repository's files (tracked,
# and untracked ones not ignored by git), without the lab images' .dockerignore; it is removed
# afterwards.
set -euo pipefail
SUITE="${1:-trixie}"
case "$SUITE" in
  trixie|bookworm) ;;
  *) echo "build-lab-image: refused, nothing was built: suite $SUITE; allowed: trixie, bookworm" >&2; exit 2 ;;
esac
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DOCKER="${DOCKER:-docker}"
BASE="debian:$SUITE-slim"
TAG="${TAG:-perflab/lab:$SUITE}"
SUITE="$SUITE" bash "$here/scripts/bootstrap-base-image.sh" "$BASE"
ctx=$(mktemp -d /var/tmp/perflab-lab-context.XXXXXX)
trap 'rm -rf --one-file-system "$ctx"' EXIT
(cd "$here" && git ls-files -z --cached --others --exclude-standard \
   | xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' \
   | tar --null -T - -cf -) | tar -C "$ctx" -xf -
# the lab images' .dockerignore leaves almost everything out: kept under another name (the image
# puts it back: the lab images' fingerprints include it), and one for this build in its place
mv "$ctx/.dockerignore" "$ctx/.dockerignore.repo"
# the certificate authorities this machine added to its own trust (a TLS-inspecting proxy's), for pip
mkdir -p "$ctx/.build-ca"
cp /usr/local/share/ca-certificates/*.crt "$ctx/.build-ca/" 2>/dev/null || true
printf '.git\n.venv\ndata/runs\n_build\n' > "$ctx/.dockerignore"
echo "build-lab-image: building $TAG from $BASE (context: $(du -sh "$ctx" | cut -f1))" >&2
"$DOCKER" build -q --force-rm --label org.perflab.image=lab-host --build-arg "BASE=$BASE" -t "$TAG" \
  -f "$ctx/containers/lab-host/Dockerfile" "$ctx" >/dev/null
# a rebuild leaves the previous image untagged: remove ours (labelled), and only those
"$DOCKER" image prune -f --filter dangling=true --filter label=org.perflab.image=lab-host >/dev/null
echo "build-lab-image: $TAG ready ($("$DOCKER" image inspect -f '{{.Id}}' "$TAG" | cut -c1-19))"
