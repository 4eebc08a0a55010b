#!/usr/bin/env bash
# Installs the Debian 12 packages Coffer needs to build and test. Idempotent: installs only what
# is missing, and runs `apt-get update` only when something is.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev libboost-test1.81-dev
  libspdlog-dev libsqlite3-dev libssl-dev libarchive-dev
  procps ripgrep
  wordnet-base
  chromium  # the web console's browser tests (tests/console, driven by playwright-core)
  debootstrap  # the .deb installed in a clean Debian 12 root (tests/packaging)
  file  # cpack's DEB generator needs it to compute the package's shared-library dependencies
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: missing packages (${missing[*]}) and not root; install them or run as root" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
