#!/usr/bin/env bash
# bench/streams_device.sh - the stream tests with CUDA required, then seed
# 001's image stream (bench/streams.c), on the GPU machine, in one short
# call.  Logs go to $OUT (or ./device-out):
#   tests.log      test_streams.c's cases (SKEL_REQUIRE=cuda; GPU workers on
#                  CUDA and on NVIDIA's OpenCL)
#   overhead.txt   bench_streams --overhead
#   bench.txt      bench_streams --stats: every configuration, 3 runs each
#   trace.txt      SKEL_TRACE of one run of the fastest configuration
#   summary.txt    the machine and the headline lines
#
#   bash bench/streams_device.sh [images [size]]   (default 64 4096)
#   GPUS=opencl ...: GPU workers on those places (default cuda; PoCL to try
#   the script on a machine without a GPU)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
IMAGES=${1:-64}
SIZE=${2:-4096}
GPUS=${GPUS:-cuda}
SUM="$OUT/summary.txt"
: > "$SUM"
note() { echo "$*" | tee -a "$SUM"; }
export PATH=/usr/local/cuda/bin:$PATH
export SKEL_CACHE_DIR=/tmp/skel-cache-streams
if command -v nvidia-smi >/dev/null; then     # NVIDIA's OpenCL through the ICD loader
    mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
    export OCL_ICD_VENDORS=/tmp/icd
fi

note "== $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
note "== $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs; $(gcc --version | head -1)"
mkdir -p build
gcc -O2 -g -std=c99 -Wall -Wextra -Werror -pedantic -fopenmp -I. test/main.c test/test_streams.c \
    -o build/stream_tests -ldl -lpthread -lm >"$OUT/build.log" 2>&1 &
make -s build/bench_streams >>"$OUT/build.log" 2>&1 || note "bench build FAILED"
wait || true
[ -x build/stream_tests ] || note "test build FAILED"

SKEL_REQUIRE=cuda timeout 120 build/stream_tests -v stream >"$OUT/tests.log" 2>&1
note "stream tests, SKEL_REQUIRE=cuda (rc $?): $(tail -1 "$OUT/tests.log")"
grep -E "FAIL|SKIP" "$OUT/tests.log" | head -5 | tee -a "$SUM"

timeout 60 build/bench_streams --overhead 50000 >"$OUT/overhead.txt" 2>&1
note "overhead (rc $?):"; tee -a "$SUM" <"$OUT/overhead.txt"

timeout 240 build/bench_streams --images "$IMAGES" --size "$SIZE" --gpus "$GPUS" --seq 2 --reps 3 --stats \
    >"$OUT/bench.txt" 2>&1
note "image stream (rc $?):"
sed -n '1p;/^configuration/,/^images made/p' "$OUT/bench.txt" | tee -a "$SUM"

# the fastest configuration again, traced, alone (no warm-up: a trace of one run)
BEST=$(awk '/^configuration/ { on = 1; next } /^\(/ { on = 0 }
            on && NF > 7 && $(NF-5) + 0 > best { best = $(NF-5) + 0; lab = $1; for (i = 2; i <= NF - 7; ++i) lab = lab " " $i }
            END { print lab }' "$OUT/bench.txt")
note "traced: '$BEST'"
SKEL_TRACE="$OUT/trace.txt" timeout 60 build/bench_streams --images "$IMAGES" --size "$SIZE" --gpus "$GPUS" \
    --seq 0 --reps 1 --no-warmup \
    --only "$BEST" >"$OUT/trace_run.txt" 2>&1
note "traced run (rc $?): $(grep -F "$BEST" "$OUT/trace_run.txt" | tail -1)"
ls -la "$OUT" >>"$SUM"
