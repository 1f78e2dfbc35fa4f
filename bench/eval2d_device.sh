#!/usr/bin/env bash
# bench/eval2d_device.sh - the 2-D held-out evaluation (bench/eval2d.c) on
# the GPU machine, every backend, in one device call: build, then one
# application at a time (so that a time limit cuts between applications),
# optionally the 1-D evaluation after it.  Output in $OUT: eval2d.txt (the
# table and, with EVAL_DUMP=1, the plans and every point), svg/ (plots).
#
#   bash bench/eval2d_device.sh SECONDS [bench_eval2d options...]
#   e.g. EVAL_DUMP=1 bash bench/eval2d_device.sh 400 --budget 5 --points 20
#   EVAL_APPS="sobel julia" runs only those.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
LIMIT=$1; shift
mkdir -p "$OUT/svg"
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd SKEL_CACHE_DIR=/tmp/skel-cache-eval2d SKEL_RETUNE=1
t0=$(date +%s)
{ date -u '+%Y-%m-%d %H:%M:%S UTC'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1
  nproc; git log -1 --format='%h %s' 2>/dev/null; } >"$OUT/eval2d.txt"
make build/bench_eval2d >"$OUT/build.log" 2>&1 || { echo "build failed" >>"$OUT/eval2d.txt"; tail -20 "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s" >>"$OUT/eval2d.txt"
for app in ${EVAL_APPS:-sobel dilate julia colsum rowmax moment}; do
    left=$(( LIMIT - ($(date +%s) - t0) ))
    [ "$left" -gt 15 ] || { echo "(time limit: $app and later not run)" >>"$OUT/eval2d.txt"; break; }
    timeout "$left" build/bench_eval2d --only "$app" --svg-dir "$OUT/svg" "$@" >>"$OUT/eval2d.txt" 2>&1 \
        || echo "($app: bench_eval2d rc $?)" >>"$OUT/eval2d.txt"
done
echo "total $(( $(date +%s) - t0 )) s" >>"$OUT/eval2d.txt"
# the applications' rows, and their mean (each point capped at 100%) and points below 80%
grep -E '^\| ' "$OUT/eval2d.txt" | grep -vE '^\| (application|\*\*all)' | tee "$OUT/rows.txt"
awk -F'|' '{ gsub(/[% ]/, "", $4); a += $4; b += $7; n++ }
    END { if (n) printf "mean of %d applications: %.1f%%, points below 80%%: %d\n", n, a / n, b }' "$OUT/rows.txt" | tee -a "$OUT/eval2d.txt"
grep -E '^split-half [a-z0-9]+:' "$OUT/eval2d.txt" | tr -d '%,' | awk '{ a += $3; b += $6; n++ }
    END { if (n) printf "split-half: mean of %d applications: %.1f%%, points below 80%%: %d\n", n, a / n, b }' | tee -a "$OUT/eval2d.txt"
grep -E '^\(|^total|^build' "$OUT/eval2d.txt"
