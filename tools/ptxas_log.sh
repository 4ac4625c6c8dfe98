#!/usr/bin/env bash
# A compiler launcher for the CUDA kernels (CMake's CUDA_COMPILER_LAUNCHER): runs the compile
# command it is given, which carries -Xptxas=-v, and keeps the compiler's report of registers,
# stack frame and spills for each object in LOG_DIR/<object>.log, where the test suite reads it
# (tests/tools/ptxas_report.py). The report's lines are printed too when VERBOSE is 1; every
# other line of the compiler's output always is.
#   ptxas_log.sh LOG_DIR VERBOSE COMPILER ARGS...
set -uo pipefail
log_dir=$1
verbose=$2
shift 2
object=""
previous=""
for arg in "$@"; do
  [[ $previous == "-o" ]] && object=$arg
  previous=$arg
done
mkdir -p "$log_dir"
log="$log_dir/$(basename "${object:-unknown}").log"
"$@" 2>"$log.tmp"
status=$?
if [[ $verbose == 1 ]]; then
  cat "$log.tmp" >&2
else
  grep -v '^ptxas info' "$log.tmp" | grep -v '^ *[0-9]* bytes stack frame' >&2
fi
# Only a finished compile's report replaces the last one.
if [[ $status == 0 ]]; then mv "$log.tmp" "$log"; else rm -f "$log.tmp"; fi
exit $status
