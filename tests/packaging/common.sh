# Shared by the packaging tests (sourced): a scratch folder removed at exit, failing with a
# message, and a daemon started in the foreground and stopped the way systemd stops it.
set -euo pipefail
WORK="$(mktemp -d /tmp/coffer-pkg-XXXXXX)"
DAEMON_PID=""
cleanup() {
  [ -n "$DAEMON_PID" ] && kill "$DAEMON_PID" 2>/dev/null || true
  if declare -F before_cleanup >/dev/null; then before_cleanup; fi  # a test's own undo (umount …)
  rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "-- $*"; }

# start_daemon VAULT COMMAND…: runs COMMAND (a coffer-daemon) with COFFER_HOME=VAULT and waits
# for its daemon.json.
start_daemon() {
  local vault="$1"; shift
  COFFER_HOME="$vault" COFFER_PORT=0 "$@" >"$WORK/daemon.log" 2>&1 &
  DAEMON_PID=$!
  for _ in $(seq 100); do [ -f "$vault/daemon.json" ] && return 0; sleep 0.1; done
  cat "$WORK/daemon.log"
  fail "the daemon did not start"
}

# stop_daemon VAULT SIGNAL: the clean shutdown a service manager expects — exit 0, daemon.json
# removed, the "daemon stopped" line logged.
stop_daemon() {
  local vault="$1" signal="$2" code
  kill -s "$signal" "$DAEMON_PID"
  set +e; wait "$DAEMON_PID"; code=$?; set -e
  DAEMON_PID=""
  [ "$code" = 0 ] || fail "the daemon exited with $code on SIG$signal"
  [ ! -e "$vault/daemon.json" ] || fail "daemon.json left after a clean shutdown"
  grep -q '"msg":"daemon stopped"' "$vault/logs/daemon.log" || fail "no clean-stop line in the log"
}
