#!/usr/bin/env bash
# The .deb (issue 17): `cpack -G DEB` from the build folder, then
#   1. its contents: the three programs, the bundled plugins with their manifests, the schemas
#      and docs under /usr — and none of the test programs;
#   2. its dependencies resolve on this Debian 12 system (`apt-get install --simulate`, changes
#      nothing);
#   3. installed with dpkg into a scratch root (its own dpkg database), the daemon from that root
#      starts, loads the plugins from the root's /usr/lib/coffer/plugins, answers the CLI and
#      stops cleanly on SIGTERM (exit 0, daemon.json removed);
#   4. removed with dpkg, it leaves no file behind.
# usage: deb_test.sh <build dir>
BUILD="$(cd "$1" && pwd)"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

step "cpack -G DEB"
( cd "$BUILD" && cpack -G DEB -B "$WORK/out" >"$WORK/cpack.log" 2>&1 ) || { cat "$WORK/cpack.log"; fail "cpack failed"; }
DEB="$(ls "$WORK"/out/coffer_*.deb)"
[ -f "$DEB" ] || fail "no .deb produced"
echo "package: $(basename "$DEB") ($(stat -c %s "$DEB") bytes)"

step "contents"
dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|' >"$WORK/files"
for f in /usr/bin/coffer /usr/bin/coffer-daemon /usr/bin/coffer-mcp-shim \
         /usr/lib/coffer/plugins/libmcp_server.so /usr/lib/coffer/plugins/mcp_server.plugin.json \
         /usr/lib/coffer/plugins/libskill.so /usr/lib/coffer/plugins/libknowledge_base.so \
         /usr/share/coffer/schemas/mcp_server.schema.json /usr/share/doc/coffer/README.md \
         /usr/share/doc/coffer/packaging.md /usr/include/coffer/abi.h; do
  grep -qx "$f" "$WORK/files" || fail "$f is not in the package"
done
if grep -E 'coffer-test-upstream|coffer-fake-agent|/tests?/|unit_|integration_' "$WORK/files"; then
  fail "test programs are in the package"
fi
dpkg-deb -f "$DEB" Depends | grep -q 'libboost-json1.81.0' || fail "Depends lacks the Boost.JSON runtime: $(dpkg-deb -f "$DEB" Depends)"

step "dependencies resolve (apt-get install --simulate)"
apt-get install --simulate -qq "$DEB" >"$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log"; fail "its dependencies do not resolve"; }

step "install into a scratch root"
ROOT="$WORK/root"
mkdir -p "$ROOT/var/lib/dpkg/info" "$ROOT/var/lib/dpkg/updates"
: >"$ROOT/var/lib/dpkg/status"
# The scratch root's database holds no other package, so dependencies are checked above instead.
dpkg --root="$ROOT" --log=/dev/null --force-depends --force-not-root -i "$DEB" >"$WORK/dpkg.log" 2>&1 \
  || { cat "$WORK/dpkg.log"; fail "dpkg -i failed"; }
dpkg --root="$ROOT" -s coffer | grep -q '^Status: install ok installed' || fail "dpkg does not list it as installed"
[ -x "$ROOT/usr/bin/coffer-daemon" ] || fail "coffer-daemon not installed"

step "the installed daemon runs from the root"
VAULT="$WORK/vault"
start_daemon "$VAULT" "$ROOT/usr/bin/coffer-daemon"
PLUGINS="$(COFFER_HOME="$VAULT" COFFER_NO_SPAWN=1 "$ROOT/usr/bin/coffer" --json plugin list)" || fail "coffer plugin list failed"
echo "$PLUGINS" | python3 -c '
import json, os, sys
plugins = {p["name"]: p for p in json.load(sys.stdin)["plugins"]}
for name in ("mcp_server", "skill", "knowledge_base"):
    p = plugins.get(name)
    assert p and p["status"] == "loaded", f"{name}: {p}"
    assert os.path.realpath(p["file"]).startswith(sys.argv[1] + "/usr/lib/coffer/plugins/"), p["file"]
' "$ROOT" || fail "the installed plugins were not loaded from the root: $PLUGINS"
stop_daemon "$VAULT" TERM

step "remove"
dpkg --root="$ROOT" --log=/dev/null --force-not-root -r coffer >"$WORK/dpkg-r.log" 2>&1 || { cat "$WORK/dpkg-r.log"; fail "dpkg -r failed"; }
left="$(find "$ROOT/usr" -mindepth 1 \( -type f -o -type l \) 2>/dev/null | head -5 || true)"
[ -z "$left" ] || fail "files left after removal: $left"
if dpkg --root="$ROOT" -s coffer 2>/dev/null | grep -q '^Status: install ok'; then fail "still installed"; fi
echo "ok: installed, ran and removed cleanly"
