#!/usr/bin/env bash
# Builds the service image and its nginx proxy's (docs/hosting.md), on the official base where
# Docker can get it.
#   scripts/build-image.sh [--tag NAME] [--variant cpu|gpu] [--base IMAGE | --debian-base]
#                          [--tf-extra 2.15.1,2.12.1]   (extra TF versions: TF_EXTRA_VERSIONS)
#                          [--network host]   (the build's RUN steps on the host's network, no NAT)
#                          [--proxy-tag NAME | --no-proxy]   (deploy/proxy on the same base)
#                          [--prometheus-tag NAME | --no-prometheus]   (deploy/prometheus, likewise)
# The base is the Dockerfile's default (python:3.11-slim-bookworm) when it is present or can be
# pulled. Where Docker Hub is unreachable (these CI machines) it is a base made of Debian's own
# bookworm packages (python3 3.11, with venv) by debootstrap, from the mirror apt uses here. That
# base is kept as a local image and reused while its recipe and the host files it copies are
# unchanged. TF_VARIANT in the environment is the --variant default, as for `docker build`.
set -euo pipefail
cd "$(dirname "$0")/.."

OFFICIAL=python:3.11-slim-bookworm        # the Dockerfile's ARG BASE_IMAGE default (a test checks)
LOCAL_BASE=local/python:3.11-bookworm-debootstrap
TAG=tf-playground:latest                  # docker-compose.yml's image
PROXY_TAG=tf-playground-proxy:latest      # docker-compose.yml's proxy image; "" with --no-proxy
PROMETHEUS_TAG=tf-playground-prometheus:latest  # its `metrics` profile's; "" with --no-prometheus
VARIANT="${TF_VARIANT:-cpu}"
EXTRA_VERSIONS="${TF_EXTRA_VERSIONS:-}"
BASE=""
FORCE_DEBIAN=""
NETWORK=()
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) TAG="$2"; shift 2 ;;
    --variant) VARIANT="$2"; shift 2 ;;
    --tf-extra) EXTRA_VERSIONS="$2"; shift 2 ;;
    --base) BASE="$2"; shift 2 ;;
    --debian-base) FORCE_DEBIAN=1; shift ;;
    --network) NETWORK=(--network "$2"); shift 2 ;;
    --proxy-tag) PROXY_TAG="$2"; shift 2 ;;
    --no-proxy) PROXY_TAG=""; shift ;;
    --prometheus-tag) PROMETHEUS_TAG="$2"; shift 2 ;;
    --no-prometheus) PROMETHEUS_TAG=""; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "build-image.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
case "$VARIANT" in cpu|gpu) ;; *) echo "build-image.sh: --variant must be cpu or gpu, got '$VARIANT'" >&2; exit 2 ;; esac

sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
if ! docker info >/dev/null 2>&1; then
  echo "build-image.sh: no Docker engine answers ('docker info' failed); start dockerd first" >&2
  exit 1
fi

# The mirror apt uses on this host (deb822 or one-line format), so the base needs no other host.
debian_mirror() {
  local uri=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  fi
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1 == "deb" && $3 ~ /^bookworm$/ {print $2; exit}' /etc/apt/sources.list)
  fi
  echo "${DEBIAN_MIRROR:-${uri:-http://deb.debian.org/debian}}"
}

# Host files the base copies: pip inside the build then reaches the package registry as the
# host's pip does (its config and CA bundle), and apt sees the host's suites (updates, security).
HOST_FILES=(/etc/pip.conf /etc/ssl/certs/ca-certificates.crt /etc/apt/sources.list.d/debian.sources)
INCLUDE=python3,python3-venv,ca-certificates

base_recipe() {
  { echo "debootstrap --variant=minbase --include=$INCLUDE bookworm $(debian_mirror)"
    for f in "${HOST_FILES[@]}"; do [ -f "$f" ] && sha256sum "$f"; done
    declare -f build_debian_base; } | sha256sum | cut -c1-16
}

build_debian_base() {
  command -v debootstrap >/dev/null || {
    sudo_ apt-get update -qq
    sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  }
  local rootfs
  rootfs=$(sudo_ mktemp -d /var/tmp/playground-rootfs.XXXXXX)
  # shellcheck disable=SC2064  # expand now: the trap must remove this very folder
  trap "sudo_ rm -rf '$rootfs'" EXIT
  sudo_ debootstrap --variant=minbase --include="$INCLUDE" bookworm "$rootfs" "$(debian_mirror)" \
    >"$rootfs.log" 2>&1 || { tail -20 "$rootfs.log" >&2; echo "build-image.sh: debootstrap failed" >&2; exit 1; }
  rm -f "$rootfs.log"
  [ -f /etc/pip.conf ] && sudo_ cp /etc/pip.conf "$rootfs/etc/pip.conf"
  sudo_ cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sudo_ cp /etc/apt/sources.list.d/debian.sources "$rootfs/etc/apt/sources.list.d/"
    sudo_ rm -f "$rootfs/etc/apt/sources.list"
  fi
  # As Debian's own images do: apt keeps no package caches in image layers.
  printf '%s\n' \
    'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };' \
    'APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };' \
    'Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";' | sudo_ tee "$rootfs/etc/apt/apt.conf.d/docker-clean" >/dev/null
  sudo_ sh -c "rm -rf '$rootfs'/var/cache/apt/archives/*.deb '$rootfs'/var/cache/apt/*.bin '$rootfs'/var/lib/apt/lists/*"
  # LANG as in the official image; the label says which recipe made it.
  sudo_ tar --numeric-owner -C "$rootfs" -c . | docker import \
    --change 'ENV LANG=C.UTF-8' --change 'CMD ["python3"]' \
    --change "LABEL org.tf-playground.base-recipe=$1" - "$LOCAL_BASE" >/dev/null
  sudo_ rm -rf "$rootfs"
  trap - EXIT
}

started=$SECONDS
if [ -n "$BASE" ]; then
  echo "base: $BASE (given)"
elif [ -z "$FORCE_DEBIAN" ] && { docker image inspect "$OFFICIAL" >/dev/null 2>&1 ||
                                  timeout 120 docker pull -q "$OFFICIAL" >/dev/null 2>&1; }; then
  BASE=$OFFICIAL
  echo "base: $BASE (official)"
else
  BASE=$LOCAL_BASE
  recipe=$(base_recipe)
  have=$(docker image inspect -f '{{index .Config.Labels "org.tf-playground.base-recipe"}}' \
         "$LOCAL_BASE" 2>/dev/null || true)
  if [ "$have" = "$recipe" ]; then
    echo "base: $BASE (Debian packages, cached, recipe $recipe)"
  else
    echo "base: building $BASE from Debian's packages (debootstrap from $(debian_mirror)) ..."
    build_debian_base "$recipe"
    echo "base: $BASE built in $((SECONDS - started)) s (recipe $recipe)"
  fi
fi

# build TAG WHAT CONTEXT [ARGS...]: one docker build, its log shown only when it fails.
build() {
  local tag=$1 what=$2 context=$3 started=$SECONDS log
  shift 3
  log=$(mktemp /tmp/playground-image-build.XXXXXX.log)
  if ! docker build "${NETWORK[@]}" --build-arg BASE_IMAGE="$BASE" "$@" -t "$tag" "$context" >"$log" 2>&1; then
    tail -40 "$log" >&2
    echo "build-image.sh: docker build of $context failed (full log: $log)" >&2
    exit 1
  fi
  rm -f "$log"
  echo "image: $tag ($what) built in $((SECONDS - started)) s on $BASE; $(($(docker image inspect -f '{{.Size}}' "$tag") / 1000000)) MB"
}
build "$TAG" "$VARIANT" . --build-arg TF_VARIANT="$VARIANT" --build-arg TF_EXTRA_VERSIONS="$EXTRA_VERSIONS"
# The proxy (deploy/proxy): nginx and openssl from Debian's packages on the same base.
if [ -n "$PROXY_TAG" ]; then
  build "$PROXY_TAG" nginx deploy/proxy
fi
# Prometheus (deploy/prometheus) from Debian's packages, for the compose profile `metrics`.
if [ -n "$PROMETHEUS_TAG" ]; then
  build "$PROMETHEUS_TAG" prometheus deploy/prometheus
fi
# Images a rebuild left untagged on the local base (3 GB each for the app; CI builds on one
# machine again and again). The label comes only from that base, so no other image is touched.
if [ "$BASE" = "$LOCAL_BASE" ]; then
  docker image prune -f --filter label=org.tf-playground.base-recipe >/dev/null
fi
