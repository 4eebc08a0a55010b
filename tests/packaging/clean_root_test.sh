#!/usr/bin/env bash
# The .deb in a clean Debian 12 root (issue 17): a minimal bookworm made by debootstrap (cached as
# <build>/packaging-cache/bookworm-minbase.tar after the first run), where apt installs the
# package with its dependencies from Debian, the installed daemon starts, loads the plugins and
# answers the CLI, stops cleanly on SIGTERM, and `apt-get purge` removes every file the package
# installed. Needs root (chroot, mount) and Debian's mirror; without them it fails, saying why.
# usage: clean_root_test.sh <build dir>
BUILD="$(cd "$1" && pwd)"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ROOT="$WORK/root"
MIRROR="${COFFER_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CACHE="$BUILD/packaging-cache/bookworm-minbase.tar"
before_cleanup() { umount "$ROOT/proc" 2>/dev/null || true; }
[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || fail "debootstrap is not installed (scripts/install-deps.sh)"

step "cpack -G DEB"
( cd "$BUILD" && cpack -G DEB -B "$WORK/out" >"$WORK/cpack.log" 2>&1 ) || { cat "$WORK/cpack.log"; fail "cpack failed"; }
DEB="$(ls "$WORK"/out/coffer_*.deb)"

step "a clean bookworm root"
mkdir -p "$ROOT"
if [ -f "$CACHE" ]; then
  tar -xf "$CACHE" -C "$ROOT"
else
  debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log"; fail "debootstrap failed (network? mirror $MIRROR)"; }
  mkdir -p "$(dirname "$CACHE")"
  tar -cf "$CACHE.tmp" -C "$ROOT" . && mv "$CACHE.tmp" "$CACHE"
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
mount -t proc proc "$ROOT/proc" || fail "cannot mount /proc in the root"
cp "$DEB" "$ROOT/tmp/coffer.deb"
in_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive "$@"; }
in_root dpkg -s coffer >/dev/null 2>&1 && fail "the root already has coffer"

step "apt-get install ./coffer.deb (dependencies from Debian)"
in_root apt-get update -qq >"$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log"; fail "apt-get update failed"; }
in_root apt-get install -y -qq --no-install-recommends /tmp/coffer.deb >>"$WORK/apt.log" 2>&1 \
  || { tail -30 "$WORK/apt.log"; fail "apt-get install failed"; }
in_root dpkg -s coffer | grep -q '^Status: install ok installed' || fail "not installed"
in_root dpkg -L coffer >"$WORK/files"

step "the installed daemon runs"
# chroot, env and sh each exec the next, so $! is the daemon itself.
chroot "$ROOT" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root COFFER_HOME=/root/vault COFFER_PORT=0 \
  /bin/sh -c 'exec /usr/bin/coffer-daemon >/tmp/daemon.log 2>&1' &
DAEMON_PID=$!
for _ in $(seq 150); do [ -f "$ROOT/root/vault/daemon.json" ] && break; sleep 0.1; done
[ -f "$ROOT/root/vault/daemon.json" ] || { cat "$ROOT/tmp/daemon.log"; fail "the daemon did not start in the root"; }
plugins="$(in_root /bin/sh -c 'COFFER_HOME=/root/vault COFFER_NO_SPAWN=1 coffer --json plugin list')" || fail "coffer plugin list failed"
for name in mcp_server skill knowledge_base memory claude_code codex; do
  echo "$plugins" | grep -q "\"name\":\"$name\"[^}]*\"status\":\"loaded\"" || fail "plugin $name not loaded: $plugins"
done
kill -TERM "$DAEMON_PID"
set +e; wait "$DAEMON_PID"; code=$?; set -e
DAEMON_PID=""
[ "$code" = 0 ] || fail "the daemon exited with $code on SIGTERM"
[ ! -e "$ROOT/root/vault/daemon.json" ] || fail "daemon.json left after SIGTERM"

step "apt-get purge coffer"
in_root apt-get purge -y -qq coffer >"$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log"; fail "purge failed"; }
if in_root dpkg -s coffer 2>/dev/null | grep -q '^Status: install ok'; then fail "still installed"; fi
left=""
while read -r f; do
  [ -d "$ROOT$f" ] && continue  # shared folders (/usr/bin …) stay
  [ -e "$ROOT$f" ] && left="$left $f"
done <"$WORK/files"
[ -z "$left" ] || fail "left behind:$left"
echo "ok: installed with its dependencies, ran and purged cleanly in a clean bookworm root"
