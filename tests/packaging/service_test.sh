#!/usr/bin/env bash
# `coffer daemon install-service` / `uninstall-service` (issue 17):
#   1. --no-enable writes coffer-daemon.service into $XDG_CONFIG_HOME/systemd/user, naming this
#      build's coffer-daemon and the vault; `systemd-analyze verify` finds nothing to say;
#   2. the unit's own ExecStart line starts the daemon, and the unit's KillSignal stops it cleanly
#      (exit 0, daemon.json removed) — what `systemctl --user stop` does;
#   3. with a user manager (`systemctl --user` answers), enable --now starts it and
#      uninstall-service stops it; without one, install-service exits 1 saying why, the unit
#      still written;
#   4. uninstall-service removes the file; a second one says there is none.
# usage: service_test.sh <build bin dir>
BIN="$(cd "$1" && pwd)"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export XDG_CONFIG_HOME="$WORK/config" COFFER_HOME="$WORK/vault dir" COFFER_NO_SPAWN=1
UNIT="$XDG_CONFIG_HOME/systemd/user/coffer-daemon.service"

step "install-service --no-enable"
out="$("$BIN/coffer" --json daemon install-service --no-enable)"
[ -f "$UNIT" ] || fail "no unit file at $UNIT"
echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["enabled"] is False and d["unit"]==sys.argv[1], d' "$UNIT" \
  || fail "unexpected answer: $out"
grep -qx "ExecStart=\"$BIN/coffer-daemon\" --home \"$COFFER_HOME\"" "$UNIT" || fail "ExecStart: $(grep ExecStart "$UNIT")"
grep -qx 'KillSignal=SIGTERM' "$UNIT" || fail "no KillSignal=SIGTERM"
grep -qx 'WantedBy=default.target' "$UNIT" || fail "not WantedBy=default.target"

step "systemd-analyze verify"
verify="$(systemd-analyze verify "$UNIT" 2>&1)" || fail "systemd-analyze verify failed: $verify"
[ -z "$verify" ] || fail "systemd-analyze verify complained: $verify"
# The check can fail: a unit naming a program that does not exist is refused.
sed "s|$BIN/coffer-daemon|$WORK/missing-daemon|" "$UNIT" >"$WORK/broken.service"
if systemd-analyze verify "$WORK/broken.service" >/dev/null 2>&1; then fail "verify accepted a missing ExecStart program"; fi

step "the unit's ExecStart starts the daemon, its KillSignal stops it cleanly"
exec_line="$(sed -n 's/^ExecStart=//p' "$UNIT")"
eval "set -- $exec_line"  # the unit quotes each argument as systemd (and the shell) reads it
start_daemon "$COFFER_HOME" "$@"
"$BIN/coffer" daemon status >/dev/null || fail "coffer daemon status does not see it"
stop_daemon "$COFFER_HOME" "$(sed -n 's/^KillSignal=SIG//p' "$UNIT")"

step "enable"
if systemctl --user show-environment >/dev/null 2>&1; then
  "$BIN/coffer" daemon install-service || fail "install-service failed with a user manager"
  systemctl --user is-active --quiet coffer-daemon.service || fail "the service is not active"
  "$BIN/coffer" daemon uninstall-service || fail "uninstall-service failed"
  if systemctl --user is-active --quiet coffer-daemon.service; then fail "still active after uninstall"; fi
else
  echo "(no systemd user manager here: checking the refusal instead)"
  set +e; err="$("$BIN/coffer" daemon install-service 2>&1 >/dev/null)"; code=$?; set -e
  [ "$code" = 1 ] || fail "install-service without a user manager exited $code"
  echo "$err" | grep -q 'could not enable it' || fail "no reason given: $err"
  [ -f "$UNIT" ] || fail "the unit was not written"
fi

step "uninstall-service"
"$BIN/coffer" daemon uninstall-service --no-enable >/dev/null
[ ! -e "$UNIT" ] || fail "unit still there"
"$BIN/coffer" daemon uninstall-service --no-enable | grep -q 'no coffer-daemon.service installed' || fail "second uninstall"
echo "ok"
