#!/usr/bin/env bash
# bench/conv2d_device.sh - issue 29's run on the GPU machine, about 4
# minutes: the 3..31 filter sweep of bench/conv2d.c on CUDA (the default
# tiling, both metrics, no register tiling; SKEL_VERBOSE logs the tiling
# factors computed from the device's limits) and on OpenCL (default), the
# other shapes, types and edges at 15x15, PyTorch/cuDNN on the same
# problem, the CPU sweep on the machine's cores against the hand loops, the
# tiling factors for sm_80 and sm_90 limits, then the 2D convolution's tests
# on CUDA with the time left.
# Writes at most 8 files to $OUT (default ./device-out); a summary last.
#
#   bash bench/conv2d_device.sh [TILINGS]     (default 0,1,2,3)
#   SKEL_TESTS=path: a skel_tests binary built elsewhere (else make builds it)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
TIL=${1:-0,1,2,3}
mkdir -p "$OUT"
SUM="$OUT/summary.txt"
LOG="$OUT/tests.log"
: > "$SUM"; : > "$LOG"
T0=$(date +%s)
BUDGET=${BUDGET:-300}    # seconds for the whole script
left() { local l=$(( BUDGET - ($(date +%s) - T0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
note() { echo "$*" | tee -a "$SUM"; }
at() { note "-- $* at $(( $(date +%s) - T0 )) s"; }
export PATH=/usr/local/cuda/bin:$PATH
export SKEL_CACHE_DIR=/tmp/skel-cache-conv
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
note "== $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1)"
note "== $(lscpu | grep -E '^Model name' | sed 's/  */ /g'), $(nproc) CPUs; commit $(cat .commit 2>/dev/null)"
TESTS=${SKEL_TESTS:-build/skel_tests}
if ! "$TESTS" --list >/dev/null 2>&1; then
    TESTS=build/skel_tests
    make -s -j2 build/skel_tests build/bench_conv2d >>"$LOG" 2>&1 || note "build FAILED: $(grep -m3 error "$LOG")"
else
    make -s build/bench_conv2d >>"$LOG" 2>&1 || note "build FAILED: $(grep -m3 error "$LOG")"
fi
at built
{ SKEL_VERBOSE=1 timeout "$(left 120)" build/bench_conv2d gpu --tilings "$TIL" --reps 11
  timeout "$(left 20)" build/bench_conv2d gpu --lo 15 --hi 15 --tilings 0 --shapes --user --reps 11; } >"$OUT/gpu_cuda.txt" 2>&1
at "cuda sweep"
timeout "$(left 40)" build/bench_conv2d gpu --backend opencl --tilings 0 --reps 11 >"$OUT/gpu_opencl.txt" 2>&1 || note "opencl sweep rc $?"
at "opencl sweep"
PYTHONUNBUFFERED=1 timeout "$(left 45)" python3 bench/conv2d_torch.py >"$OUT/torch.txt" 2>&1 || note "torch rc $?"
at torch
{ OMP_WAIT_POLICY=passive timeout "$(left 45)" build/bench_conv2d cpu --reps 7
  OMP_WAIT_POLICY=passive timeout "$(left 15)" build/bench_conv2d cpu --backend omp --lo 15 --hi 15 --reps 7; } >"$OUT/cpu.txt" 2>&1
at "cpu sweep"
build/bench_conv2d factors --tilings 0,1,2 >"$OUT/factors.txt" 2>&1
# the 2D convolution's tests on CUDA with what time is left (the CPU
# variants and PoCL run in CI; NVIDIA's OpenCL runs the same template)
SKEL_TEST_BACKENDS=cuda SKEL_REQUIRE=cuda timeout "$(left 90)" "$TESTS" conv2d >"$LOG" 2>&1
note "tests conv2d on cuda (rc $?): $(tail -1 "$LOG")"
grep -m3 FAIL "$LOG" | tee -a "$SUM"
at tests
for f in gpu_cuda gpu_opencl torch cpu; do echo "==== $f"; grep -v '^skel: ' "$OUT/$f.txt"; done
echo "==== summary"; cat "$SUM"
