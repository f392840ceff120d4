#!/usr/bin/env bash
# Builds the G-Store image (gstore:latest) from the distribution, one image for every role of the cluster.
#   docker/build.sh            build the project if needed, then the image
# Where no image registry is reachable, it first makes the Debian base image the Dockerfile starts from
# (debian:bookworm-slim) with debootstrap from the Debian mirror apt uses, and docker-imports it under that tag.
# It also makes docker/gstore.secret (the cluster secret the region servers share) if there is none.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
dist="$root/gstore-dist/target/gstore"

if ! docker info >/dev/null 2>&1; then
  echo "docker/build.sh: no Docker engine answers (is dockerd running?)" >&2
  exit 2
fi

if ! docker image inspect debian:bookworm-slim >/dev/null 2>&1 && ! docker pull debian:bookworm-slim 2>/dev/null; then
  command -v debootstrap >/dev/null || { echo "docker/build.sh: no registry and no debootstrap (apt-get install debootstrap)" >&2; exit 2; }
  mirror="$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)"
  mirror="${mirror:-$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null)}"
  rootfs="$(mktemp -d --tmpdir=/var/tmp)"
  echo "docker/build.sh: making debian:bookworm-slim with debootstrap from ${mirror}" >&2
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >/dev/null
  tar -C "$rootfs" -c . | docker import - debian:bookworm-slim >/dev/null
  rm -rf "$rootfs"
fi

"$root/gstore" help >/dev/null # builds the distribution if it is missing or older than the sources

if [ ! -f "$here/gstore.secret" ]; then
  (umask 077 && head -c 32 /dev/urandom | base64 > "$here/gstore.secret")
fi

context="$(mktemp -d --tmpdir=/var/tmp)"
trap 'rm -rf "$context"' EXIT
cp -a "$dist" "$context/gstore"
cp "$here/Dockerfile" "$here/entrypoint.sh" "$context/"
docker build --network host -t gstore:latest "$context"
echo "docker/build.sh: built gstore:latest; now: docker compose -f docker/compose.yml up -d (or docker-compose)"
