#!/usr/bin/env bash
# `make fuzz`: long runs of every fuzz target (tests/fuzz/README.md).
#
#   scripts/fuzz.sh has-libfuzzer                 exit 0 when clang++ can link a libFuzzer target
#   scripts/fuzz.sh libfuzzer <dir> <seconds> [target …]
#       configures <dir> with clang (the whole tree with -fsanitize=address,undefined,
#       fuzzer-no-link; targets linked with -fsanitize=fuzzer), builds the targets and runs each
#       for <seconds>; new inputs go to <dir>/fuzz-corpus/<target>/, crashes to
#       <dir>/fuzz-artifacts/<target>/ (the committed seed corpus is only read).
#   scripts/fuzz.sh driver <dir> <seconds> [target …]
#       the same with the plain driver, in an already configured tree (`make fuzz` passes the
#       ASan + UBSan tree of `make test-sanitize`).
# Prints executions per second for each target; exits 1 if any target failed.
set -euo pipefail
cd "$(dirname "$0")/.."

has_libfuzzer() {
  command -v clang++ >/dev/null 2>&1 && command -v clang >/dev/null 2>&1 || return 1
  local tmp
  tmp=$(mktemp -d)
  printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' > "$tmp/t.cpp"
  local rc=0
  clang++ -fsanitize=fuzzer,address "$tmp/t.cpp" -o "$tmp/t" >/dev/null 2>&1 || rc=1
  rm -rf "$tmp"
  return $rc
}

mode=${1:-}
if [ "$mode" = has-libfuzzer ]; then has_libfuzzer; exit $?; fi
if [ "$mode" != libfuzzer ] && [ "$mode" != driver ] || [ $# -lt 3 ]; then
  echo "usage: $0 has-libfuzzer | {libfuzzer|driver} <build dir> <seconds> [target …]" >&2
  exit 64
fi
dir=$2
seconds=$3
shift 3
only=("$@")

if [ "$mode" = libfuzzer ]; then
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g" \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCOFFER_SANITIZE=address,undefined,fuzzer-no-link -DCOFFER_FUZZ_ENGINE=libfuzzer >/dev/null
fi
list="$dir/fuzz_targets.txt"
[ -f "$list" ] || { echo "fuzz: $list is missing; is $dir configured?" >&2; exit 1; }

selected=()
while IFS=$'\t' read -r name exe corpus dict; do
  if [ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $name "* ]]; then selected+=("$name"); fi
done < "$list"
[ ${#selected[@]} -gt 0 ] || { echo "fuzz: no such target: ${only[*]}" >&2; exit 64; }
cmake --build "$dir" --target $(printf 'fuzz_%s ' "${selected[@]}")

# As in `make test-sanitize`; leaks are reported here (a parser that leaks per input is a bug).
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
summary=()
while IFS=$'\t' read -r name exe corpus dict; do
  [[ " ${selected[*]} " == *" $name "* ]] || continue
  artifacts="$dir/fuzz-artifacts/$name"
  log="$dir/fuzz-logs/$name.log"
  mkdir -p "$artifacts" "$(dirname "$log")"
  echo "fuzz: $name for ${seconds}s"
  if [ "$mode" = libfuzzer ]; then
    work="$dir/fuzz-corpus/$name"
    mkdir -p "$work"
    args=(-max_total_time="$seconds" -print_final_stats=1 -timeout=20 -rss_limit_mb=2048
          -artifact_prefix="$artifacts/")
    [ -n "$dict" ] && args+=(-dict="$dict")
    if "$exe" "${args[@]}" "$work" "$corpus" >"$log" 2>&1; then rc=0; else rc=$?; fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    summary+=("$(printf '%-12s %12s runs %8s exec/s  corpus %s' "$name" "${runs:-?}" "${rate:-?}" "$(ls "$work" | wc -l)")")
  else
    dict_args=()
    [ -n "$dict" ] && dict_args=(--dict "$dict")
    if COFFER_FUZZ_ARTIFACTS="$artifacts" COFFER_FUZZ_SEED="${COFFER_FUZZ_SEED:-$RANDOM$RANDOM}" \
       "$exe" "$corpus" --seconds "$seconds" "${dict_args[@]}" >"$log" 2>&1; then rc=0; else rc=$?; fi
    summary+=("$(printf '%-12s %s' "$name" "$(grep '^fuzz:' "$log" | tail -1)")")
  fi
  if [ $rc -ne 0 ]; then
    failed+=("$name")
    tail -30 "$log"
  fi
done < "$list"

printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (logs in $dir/fuzz-logs, inputs in $dir/fuzz-artifacts)" >&2
  exit 1
fi
echo "fuzz: no failures"
