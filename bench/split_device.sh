#!/usr/bin/env bash
# bench/split_device.sh - the split calls' run on the GPU machine (issue 25).
#   bash bench/split_device.sh [bench|tests|all|quick|pin]
#     bench: build/bench_split (sweep, real workloads, chain; plots into $OUT)
#     tests: the split, coherence and CUDA tests (one small binary) with
#            SKEL_REQUIRE=cuda,opencl: splits over the host, CUDA and
#            NVIDIA's OpenCL, and several logical parts on the one GPU
#     all:   bench, then tests (default)
#     quick: bench_split --quick, then tests
#     pin:   tests, then page-locking: bench_split --pinning, the host-data
#            sweep pageable (--loc host) and by the default rule (--loc
#            auto) alternately, two rounds, and bench_split_profile --k 0
#            and 32 under SKEL_CUDA_PINNED=0 and auto with SKEL_TRACE
#            (traces in $OUT/traces.tgz; bench/split_profile.py reads them)
# Logs and results in $OUT (default ./device-out).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT" build
MODE=${1:-all}
SUM="$OUT/summary.txt"
: > "$SUM"
note() { echo "$*" | tee -a "$SUM"; }
export PATH=/usr/local/cuda/bin:$PATH
export SKEL_CACHE_DIR=/tmp/skel-cache
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
note "== $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1); $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
t0=$(date +%s)
# the benchmark (make) and a test binary of the split areas only, side by side
make -s build/bench_split >"$OUT/build.log" 2>&1 &
cc -O1 -g -std=c99 -Wall -Wextra -Werror -pedantic -fopenmp -I. test/main.c test/test_split.c \
   test/test_coherence.c test/test_cuda.c -o build/split_tests -ldl -lpthread -lm >>"$OUT/build.log" 2>&1 &
wait
[ -x build/bench_split ] && [ -x build/split_tests ] || { note "BUILD FAILED"; tail -30 "$OUT/build.log" | tee -a "$SUM"; exit 1; }
note "build: $(( $(date +%s) - t0 )) s"
bench() {   # extra arguments for bench_split
    local t=$(date +%s)
    timeout 200 build/bench_split "$@" --svg "$OUT/split_sweep" >"$OUT/bench.md" 2>"$OUT/bench.err"
    note "bench_split $* (rc $?, $(( $(date +%s) - t )) s)"; cat "$OUT/bench.md" >> "$SUM"; tail -5 "$OUT/bench.err" >> "$SUM"
}
tests() {
    local t=$(date +%s)
    # (the NVRTC check of every suite kernel, cold, takes minutes: bench/device.sh runs it)
    timeout 90 env SKEL_REQUIRE=cuda,opencl SKEL_TEST_NVRTC_CHECK=${SKEL_TEST_NVRTC_CHECK:-0} build/split_tests >"$OUT/tests.log" 2>&1
    local rc=$?
    note "split, coherence and CUDA tests, SKEL_REQUIRE=cuda,opencl: $(grep -E '^[0-9]+ passed' "$OUT/tests.log" | tail -1) (rc $rc, $(( $(date +%s) - t )) s)"
    grep -E 'FAIL|SKIP' "$OUT/tests.log" | head -12 | tee -a "$SUM"
}
pin() {
    local t r loc k mode
    make -s build/bench_split_profile >>"$OUT/build.log" 2>&1
    t=$(date +%s)
    SKEL_VERBOSE=1 timeout 150 build/bench_split --pinning >/tmp/pinning.md 2>"$OUT/pinning.err"
    note "bench_split --pinning (rc $?, $(( $(date +%s) - t )) s)"; cat /tmp/pinning.md >> "$SUM"
    for r in 1 2; do for loc in host auto; do
        t=$(date +%s)
        timeout 100 build/bench_split --sweep --loc $loc --svg "$OUT/split_sweep" >/tmp/sweep.md 2>&1
        note "bench_split --sweep --loc $loc, round $r (rc $?, $(( $(date +%s) - t )) s)"; grep "^|" /tmp/sweep.md >> "$SUM"
    done; done
    mkdir -p /tmp/split-traces
    for k in 0 32; do for mode in 0 auto; do
        note "bench_split_profile --k $k, SKEL_CUDA_PINNED=$mode:"
        SKEL_CUDA_PINNED=$mode SKEL_TRACE=/tmp/split-traces/t_${mode}_$k.txt timeout 60 build/bench_split_profile --k $k --calls 30 2>&1 | tail -2 | tee -a "$SUM"
    done; done
    tar czf "$OUT/traces.tgz" -C /tmp split-traces
}
case "$MODE" in
pin) tests; pin ;;
bench) bench ;;
tests) tests ;;
quick) bench --quick; tests ;;
*) bench; tests ;;
esac
note "total $(( $(date +%s) - t0 )) s"
