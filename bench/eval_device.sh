#!/usr/bin/env bash
# bench/eval_device.sh - the tuner evaluation (bench/eval.c) on the GPU
# machine, every backend, one application at a time so that a time limit
# cuts between applications, not inside one.  Output: $OUT/eval_<tag>.txt
# and the plots in $OUT/svg_<tag>/ (packed into one archive by the caller).
#
#   bash bench/eval_device.sh TAG SECONDS [bench_eval options...]
#   e.g. bash bench/eval_device.sh host 300 --budget 4
#        bash bench/eval_device.sh device 300 --budget 4 --on-device
#   EVAL_APPS="taylor nbody" runs only those; EVAL_BIN=path runs another
#   build of bench/eval.c (e.g. one against earlier headers, for an A/B).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
TAG=$1; LIMIT=$2; shift 2
mkdir -p "$OUT/svg_$TAG"
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd SKEL_CACHE_DIR=/tmp/skel-cache-eval SKEL_RETUNE=1
BIN=${EVAL_BIN:-build/bench_eval}
[ -n "${EVAL_BIN:-}" ] || make build/bench_eval >/dev/null 2>&1 || make build/bench_eval CFLAGS=-Wno-error >/dev/null 2>&1
t0=$(date +%s)
for app in ${EVAL_APPS:-dot vsum mse psnr pearson mandelbrot taylor nbody}; do
    left=$(( LIMIT - ($(date +%s) - t0) ))
    [ "$left" -gt 20 ] || { echo "(time limit: $app and later not run)" >>"$OUT/eval_$TAG.txt"; break; }
    timeout "$left" "$BIN" --only "$app" --svg-dir "$OUT/svg_$TAG" "$@" >>"$OUT/eval_$TAG.txt" 2>&1 \
        || echo "($app: bench_eval rc $?)" >>"$OUT/eval_$TAG.txt"
done
