#!/usr/bin/env bash
# Installs the playground on a fresh Debian machine: system packages and a world-readable venv.
#   scripts/install.sh           bubblewrap + the venv (enough to run the app)
#   scripts/install.sh --test    also Chromium with a CJK font (browser tests), strace (seccomp profile test),
#                                nginx and openssl (the proxy's config run locally, tests/support/proxy_support.py), iproute2
#                                and unshare (the no-DNS origin test's network namespace), and
#                                Docker's engine with debootstrap (the image's build-and-run tests)
#   scripts/install.sh --tf 2.15.1,2.18.1
#                                also these TensorFlow versions, each in its own venv beside the default
#                                ($VENV-tf2.15.1, ...): tensorflow-cpu and the numpy it accepts, which is all
#                                the engine imports (with --test, pytest too: the engine tests run
#                                there); `python -m playground versions` lists them
# The venv lives outside any home directory (default /opt/tf-playground/venv) because sandboxed
# workers run as an unprivileged uid, which cannot enter /root (mode 0700).
set -euo pipefail
cd "$(dirname "$0")/.."
extra_versions=""
args=("$@")
for i in "${!args[@]}"; do
  case "${args[$i]}" in
    --tf) extra_versions="${args[$((i + 1))]:-}" ;;
    --tf=*) extra_versions="${args[$i]#--tf=}" ;;
  esac
done
VENV="${PLAYGROUND_VENV:-/opt/tf-playground/venv}"
packages=(bubblewrap python3-venv)
if [[ " $* " == *" --test "* ]]; then
  # fonts-wqy-zenhei: Chromium draws the Chinese page (and its screenshots) in real glyphs.
  # nginx, openssl: the proxy's tests on the host; iproute2, util-linux (unshare): the no-DNS
  # origin test's network namespace.
  packages+=(chromium fonts-wqy-zenhei strace debootstrap nginx openssl iproute2 util-linux)
  # Debian's engine, unless one is installed already (Docker's own docker-ce conflicts with it).
  command -v dockerd >/dev/null || packages+=(docker.io)
fi

sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_ apt-get update -qq
  sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  # Debian starts the nginx service on port 80 when it installs it; the tests only need the binary.
  if [[ " ${missing[*]} " == *" nginx "* ]] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    sudo_ systemctl disable --now nginx >/dev/null 2>&1 || true
  fi
fi

# Debian's interpreter, not a pyenv build under /root that a dropped uid cannot start.
PYTHON="${PLAYGROUND_BASE_PYTHON:-/usr/bin/python3}"
if [ ! -x "$VENV/bin/python" ]; then
  sudo_ mkdir -p "$(dirname "$VENV")"
  sudo_ "$PYTHON" -m venv "$VENV"
fi
sudo_ "$VENV/bin/pip" install -q --disable-pip-version-check -r requirements.txt
sudo_ chmod -R a+rX "$VENV"
# Extra TensorFlow versions: the worker only needs TF itself (and the numpy its wheel accepts); the
# playground package reaches the worker on its own path. tensorflow-cpu: a fraction of the full wheel.
for version in ${extra_versions//,/ }; do
  case "$version" in
    2.1[2-9].*|2.[2-9][0-9].*) ;;
    *) echo "install.sh: --tf $version: the playground supports TensorFlow 2.12 and later (X.Y.Z)" >&2; exit 2 ;;
  esac
  extra="$VENV-tf$version"
  [ -x "$extra/bin/python" ] || sudo_ "$PYTHON" -m venv "$extra"
  sudo_ "$extra/bin/python" -m pip install -q --disable-pip-version-check "tensorflow-cpu==$version"
  # The engine tests run on each extra version too (tests/integration/test_versions.py): pytest, as pinned.
  if [[ " $* " == *" --test "* ]]; then
    sudo_ "$extra/bin/python" -m pip install -q --disable-pip-version-check "$(grep -E '^pytest==' requirements.txt)"
  fi
  sudo_ chmod -R a+rX "$extra"
  echo "installed: $extra (tensorflow $version)"
done
echo "installed: $VENV ($("$VENV/bin/python" -c 'import sys; print(sys.version.split()[0])'))"
