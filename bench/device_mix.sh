#!/usr/bin/env bash
# bench/device_mix.sh - one device call for a session short of device time:
# the 2-D evaluation (bench/eval2d_device.sh, every backend, EVAL_DUMP=1,
# --budget 5 --points 20) with EVAL_SECONDS of its own, then
# build/bench_columns, then the split sweep with inputs on the host at
# 2^SPLIT_LOG2 floats (bench_split --sweep --loc auto --n SPLIT_LOG2) in
# what is left of TOTAL seconds.  Output in $OUT: eval2d.txt, columns.txt,
# split.txt.
#   bash bench/device_mix.sh TOTAL EVAL_SECONDS SPLIT_LOG2
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
TOTAL=$1 EVAL=$2 LOG2=$3
t0=$(date +%s)
mkdir -p "$OUT"
EVAL_DUMP=1 bash bench/eval2d_device.sh "$EVAL" --budget 5 --points 20 >/dev/null 2>&1
make build/bench_columns build/bench_split >"$OUT/build_mix.log" 2>&1
timeout 60 build/bench_columns >"$OUT/columns.txt" 2>&1
left=$(( TOTAL - ($(date +%s) - t0) - 5 ))
if [ "$left" -gt 20 ]; then
    OCL_ICD_VENDORS=/tmp/icd timeout "$left" build/bench_split --sweep --loc auto --n "$LOG2" >"$OUT/split.txt" 2>&1
    echo "(bench_split rc $?, $left s allowed)" >>"$OUT/split.txt"
fi
nvidia-smi --query-gpu=name --format=csv,noheader
grep -E '^mean|^split-half: mean|^\(|^total' "$OUT/eval2d.txt"
tail -8 "$OUT/columns.txt"
grep -E '^\| [0-9]|^\(' "$OUT/split.txt" | cut -c1-160
