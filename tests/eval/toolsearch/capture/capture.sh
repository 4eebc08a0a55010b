#!/usr/bin/env bash
# Installs the pinned MCP servers (package-lock.json) and captures their tool lists into
# ../servers/. By hand only: needs the npm registry; make test reads the committed JSON.
set -euo pipefail
cd "$(dirname "$0")"
PUPPETEER_SKIP_DOWNLOAD=1 npm ci --ignore-scripts --no-audit --no-fund
node capture.mjs "$@"
