#!/usr/bin/env bash
# Checks the README's promise on a brand-new Debian 12: debootstraps a minimal bookworm root, adds
# only make, git and ca-certificates, clones this repository's main branch into it and runs
# `make test` there (the project's scripts must install everything else). Needs root and network
# access to a Debian mirror and the npm registry. Usage:
#   sudo scripts/fresh-debian-check.sh [ROOT_DIR] [make target, default: test]
# The root gets its own /dev nodes (never a bind of the machine's /dev) and is removed at the end
# only after every mount under it is gone, with --one-file-system.
set -euo pipefail
ROOT=${1:-/var/tmp/coffer-fresh-root}
TARGET=${2:-test}
REPO=$(cd "$(dirname "$0")/.." && pwd)
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

cleanup() {
  for m in "$ROOT/proc" "$ROOT/dev/pts"; do
    if mountpoint -q "$m"; then umount "$m" || umount -l "$m" || true; fi
  done
  if grep -q " $ROOT" /proc/mounts; then
    echo "fresh-check: something is still mounted under $ROOT; leaving it in place" >&2
    return
  fi
  [ -n "${KEEP_ROOT:-}" ] || rm -rf --one-file-system "$ROOT"
}
trap cleanup EXIT

if [ -e "$ROOT" ]; then echo "fresh-check: $ROOT exists; remove it or pass another directory" >&2; exit 2; fi
debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR"
mount -t proc proc "$ROOT/proc"
for n in "null c 1 3" "zero c 1 5" "random c 1 8" "urandom c 1 9" "tty c 5 0" "full c 1 7"; do
  set -- $n
  rm -f "$ROOT/dev/$1"; mknod -m 666 "$ROOT/dev/$1" "$2" "$3" "$4"
done
mkdir -p "$ROOT/dev/shm" "$ROOT/dev/pts"
chmod 1777 "$ROOT/dev/shm"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# The machine's extra certificate authorities (e.g. an egress proxy's), so npm reaches its registry.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$ROOT/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
fi
for v in http_proxy https_proxy HTTP_PROXY HTTPS_PROXY no_proxy NO_PROXY; do
  [ -n "${!v:-}" ] && echo "export $v='${!v}'" >> "$ROOT/root/.profile"
done
chroot "$ROOT" /bin/bash -lc 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make git ca-certificates && update-ca-certificates'
git clone -q --branch main "$REPO" "$ROOT/root/coffer"
start=$(date +%s)
chroot "$ROOT" /bin/bash -lc "cd /root/coffer && make $TARGET"
echo "fresh-check: make $TARGET passed in a new Debian 12 root in $(( $(date +%s) - start )) s"
