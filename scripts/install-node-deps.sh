#!/usr/bin/env bash
# Installs what the end-to-end tests (tests/e2e) need: Node.js and npm (Debian's packages when
# missing) and the npm packages pinned in tests/e2e/package-lock.json (`npm ci`). Idempotent: does
# nothing when node_modules already matches the lock file.
#
#   scripts/install-node-deps.sh           install if needed
#   scripts/install-node-deps.sh --check   only check; exit 1 (saying what is missing) if anything is
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
E2E="$ROOT/tests/e2e"
STAMP="$E2E/node_modules/.coffer-lock.sha256"
MIN_NODE_MAJOR=18
CHECK_ONLY=0
[ "${1:-}" = "--check" ] && CHECK_ONLY=1

say() { echo "install-node-deps: $*" >&2; }

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

lock_hash() { sha256sum "$E2E/package-lock.json" "$E2E/package.json" | sha256sum | cut -d' ' -f1; }

# --- Node.js and npm -------------------------------------------------------------------------
missing=()
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  if [ $CHECK_ONLY = 1 ]; then
    say "missing: ${missing[*]} (run scripts/install-node-deps.sh)"
    exit 1
  fi
  say "installing ${missing[*]} (Debian packages)"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
      say "need root (or sudo) to install ${missing[*]}"
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ "$(node_major)" -lt "$MIN_NODE_MAJOR" ]; then
  say "node $(node --version 2>/dev/null) is too old: the e2e tests need Node.js >= $MIN_NODE_MAJOR"
  exit 1
fi

# --- the pinned npm packages -----------------------------------------------------------------
want="$(lock_hash)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ -d "$E2E/node_modules/@modelcontextprotocol/sdk" ]; then
  exit 0
fi
if [ $CHECK_ONLY = 1 ]; then
  say "tests/e2e/node_modules is missing or does not match package-lock.json (run scripts/install-node-deps.sh)"
  exit 1
fi
say "npm ci in tests/e2e"
( cd "$E2E" && npm ci --no-audit --no-fund --loglevel=error >&2 )
echo "$want" > "$STAMP"
