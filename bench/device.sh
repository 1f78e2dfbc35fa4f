#!/usr/bin/env bash
# bench/device.sh - the one script that runs on the GPU machine.
# Builds skel with the CUDA backend, runs the whole test suite on it, under
# compute-sanitizer, a second time to show the disk cache compiles nothing,
# then the benchmarks against CUB and hand-written kernels.  Logs go to
# $OUT (or ./device-out); a short summary is printed last.
#
#   bash bench/device.sh [tests|final|bench|quick]
#       tests: build, the suite cold and warm, under memcheck, on OpenCL
#       final: the same with memcheck on the scan/overlap2d/reduce tests only,
#              plus the suite on PoCL (this machine's CPU) in parallel
#       bench: build, the benchmarks 2^20..2^28     quick: tests + small benchmark
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
MODE=${1:-full}
SUM="$OUT/summary.txt"
: > "$SUM"
note() { echo "$*" | tee -a "$SUM"; }
export PATH=/usr/local/cuda/bin:$PATH
export SKEL_CACHE_DIR=/tmp/skel-cache
rm -rf "$SKEL_CACHE_DIR"

note "== $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)"
note "== nvcc: $(nvcc --version | tail -1)"

# NVIDIA's OpenCL driver through the ICD loader (for skel_cl.h, if present)
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd

make clean >/dev/null
# The tree is shared with engineers whose files may be half-written: when
# the Makefile build fails, build from the test files that compile and say
# which were left out.
build_tests() {   # CC, output
    local cc=$1 out=$2 srcs="" f
    mkdir -p "$(dirname "$out")"
    for f in test/*.c; do
        if $cc -std=c99 -fopenmp -I. -Wno-error -fsyntax-only "$f" >>"$OUT/build.log" 2>&1; then srcs="$srcs $f"
        else note "  left out $f: it does not compile"; fi
    done
    $cc -O2 -g -std=c99 -Wall -Wextra -pedantic -fopenmp -I. $srcs -o "$out" -ldl -lpthread -lm >>"$OUT/build.log" 2>&1
}
if [ "$MODE" = bench ]; then   # the benchmarks build only what they run, and check the 2D overlap on PoCL
    make build/skel_tests >/tmp/build_tests.log 2>&1 || note "skel_tests build FAILED"
    mkdir -p /tmp/icd-all && cp /etc/OpenCL/vendors/*.icd /tmp/icd-all/ 2>/dev/null
    OCL_ICD_VENDORS=/tmp/icd-all SKEL_OPENCL_DEVICE="Portable Computing Language" SKEL_REQUIRE=opencl \
        SKEL_CACHE_DIR=/tmp/skel-cache-pocl timeout 300 build/skel_tests overlap2d >/tmp/pocl_ov2.log 2>&1
    note "overlap2d tests on PoCL (rc $?): $(tail -1 /tmp/pocl_ov2.log)"; grep FAIL /tmp/pocl_ov2.log | head -3 | tee -a "$SUM"
    for b in cuda opencl; do    # the reduction into a 1-element vector (the "-> vec" rows) checked first
        SKEL_REQUIRE=$b timeout 200 build/skel_tests into_out >/tmp/into_$b.log 2>&1
        note "reduce into out on $b (rc $?): $(tail -1 /tmp/into_$b.log)"; grep FAIL /tmp/into_$b.log | head -3 | tee -a "$SUM"
    done
elif make build/skel_tests >"$OUT/build.log" 2>&1; then note "gcc -Werror build: ok"
else
    note "gcc -Werror build FAILED (build.log); building what compiles, without -Werror"
    grep -E ' error' "$OUT/build.log" | head -4 | tee -a "$SUM"
    if ! build_tests gcc build/skel_tests; then
        note "  still failing: once more without skel_cl.h"
        mkdir -p build/nocl && cp test/*.c test/*.h build/nocl/ && sed -i '/skel_cl.h/d' build/nocl/main.c
        rm -f build/nocl/test_opencl.c
        (cd build/nocl && gcc -O2 -g -std=c99 -fopenmp -I../.. -I. *.c -o ../skel_tests -ldl -lpthread -lm) >>"$OUT/build.log" 2>&1 \
            || { note "BUILD FAILED"; tail -30 "$OUT/build.log"; exit 1; }
    fi
fi
[ "$MODE" = bench ] || { make CC=clang build/skel_tests BUILD=build/clang >>"$OUT/build.log" 2>&1 && note "clang -Werror build: ok"; } || note "clang build: FAILED"
run_tests() {   # label, log, command...
    local label=$1 log=$2; shift 2
    local t0=$(date +%s)
    "$@" >"$log" 2>&1
    local rc=$?
    note "$label: $(grep -E '^[0-9]+ passed' "$log" | tail -1) (rc $rc, $(( $(date +%s) - t0 )) s)"
    grep -E 'FAIL|skel cuda:' "$log" | head -8 | tee -a "$SUM"
}

if [ "$MODE" = final ]; then   # after kernel changes: every test run the issues ask for, PoCL in parallel
    # PoCL (the CPU OpenCL platform of this machine) runs the suite alongside
    mkdir -p /tmp/icd-all && cp /etc/OpenCL/vendors/*.icd /tmp/icd-all/ 2>/dev/null
    ( OCL_ICD_VENDORS=/tmp/icd-all SKEL_OPENCL_DEVICE="Portable Computing Language" SKEL_REQUIRE=opencl \
      SKEL_CACHE_DIR=/tmp/skel-cache-pocl timeout 540 build/skel_tests >"$OUT/test_pocl.log" 2>&1; echo "rc $?" >>"$OUT/test_pocl.log" ) &
    pocl_pid=$!
    export SKEL_CUDA_STATS=1
    run_tests "tests SKEL_REQUIRE=cuda (cold cache)" "$OUT/test1.log" env SKEL_REQUIRE=cuda build/skel_tests
    run_tests "tests SKEL_REQUIRE=cuda (warm cache; the cache test skipped)" "$OUT/test2.log" \
        env SKEL_REQUIRE=cuda SKEL_CUDA_TEST_WARM=1 build/skel_tests
    run_tests "scan, overlap2d and reduce tests under compute-sanitizer memcheck" "$OUT/memcheck.log" \
        sh -c 'for f in scan overlap2d reduce; do compute-sanitizer --tool memcheck --error-exitcode 3 env SKEL_REQUIRE=cuda SKEL_CUDA_TEST_WARM=1 build/skel_tests $f || exit 3; done'
    grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -3 | tee -a "$SUM"
    unset SKEL_CUDA_STATS
    run_tests "tests SKEL_REQUIRE=opencl (NVIDIA OpenCL)" "$OUT/test_cl.log" env SKEL_REQUIRE=opencl build/skel_tests
    wait $pocl_pid
    note "tests SKEL_REQUIRE=opencl on PoCL (SKEL_OPENCL_DEVICE=\"Portable Computing Language\"): $(grep -E '^[0-9]+ passed' "$OUT/test_pocl.log" | tail -1) ($(tail -1 "$OUT/test_pocl.log"))"
    grep -E 'FAIL' "$OUT/test_pocl.log" | head -5 | tee -a "$SUM"
    for f in "$OUT"/test*.log "$OUT"/memcheck.log; do [ -f "$f" ] && tail -c 2000000 "$f" > "$f.tmp" && mv "$f.tmp" "$f"; done
    rm -f "$OUT/build.log"
    echo; echo "==== summary"; cat "$SUM"; exit 0
fi
if [ "$MODE" != bench ] && [ "$MODE" != final ]; then
export SKEL_CUDA_STATS=1
run_tests "tests SKEL_REQUIRE=cuda (cold cache)" "$OUT/test1.log" env SKEL_REQUIRE=cuda build/skel_tests
run_tests "tests SKEL_REQUIRE=cuda (warm cache; the cache test skipped)" "$OUT/test2.log" \
    env SKEL_REQUIRE=cuda SKEL_CUDA_TEST_WARM=1 build/skel_tests
if [ "$MODE" = tests ] && command -v compute-sanitizer >/dev/null; then
    run_tests "tests under compute-sanitizer memcheck" "$OUT/memcheck.log" \
        timeout 300 compute-sanitizer --tool memcheck --error-exitcode 3 --print-limit 20 \
        env SKEL_REQUIRE=cuda SKEL_CUDA_TEST_WARM=1 build/skel_tests
    grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1 | tee -a "$SUM"
fi
if [ -s skel_cl.h ]; then
    run_tests "tests SKEL_REQUIRE=opencl (NVIDIA OpenCL)" "$OUT/test_cl.log" env SKEL_REQUIRE=opencl build/skel_tests
fi
unset SKEL_CUDA_STATS
# logs over 16 MiB do not come back: keep their tails
for f in "$OUT"/test*.log "$OUT"/memcheck.log; do [ -f "$f" ] && tail -c 4000000 "$f" > "$f.tmp" && mv "$f.tmp" "$f"; done
fi
if [ "$MODE" = tests ]; then echo; echo "==== summary"; cat "$SUM"; exit 0; fi

# benchmarks
mkdir -p build && nvcc -O3 -arch=sm_90 -std=c++17 -o build/gpu_base bench/gpu_base.cu >"$OUT/nvcc.log" 2>&1 || note "gpu_base build FAILED"
make build/bench_gpu >>"$OUT/build.log" 2>&1 || make build/bench_gpu CFLAGS=-Wno-error >>"$OUT/build.log" 2>&1 \
    || make build/bench_gpu CFLAGS="-Wno-error -DBENCH_NO_OPENCL" >>"$OUT/build.log" 2>&1 || note "bench_gpu build FAILED"
if [ "$MODE" = quick ]; then LO=20; HI=24; else LO=20; HI=28; fi
build/gpu_base $LO $HI >"$OUT/base.txt" 2>&1 || note "gpu_base FAILED: $(tail -2 "$OUT/base.txt")"
rm -rf "$SKEL_CACHE_DIR"
build/bench_gpu --jit >"$OUT/jit.txt" 2>&1
build/bench_gpu --jit >>"$OUT/jit.txt" 2>&1
build/bench_gpu --base "$OUT/base.txt" --lo $LO --hi $HI >"$OUT/bench.txt" 2>&1 || note "bench_gpu FAILED"
[ "$MODE" = bench ] && { build/bench_gpu --base "$OUT/base.txt" --lo $LO --hi $HI --device-only >"$OUT/bench_dev.txt" 2>&1 \
                         || note "bench_gpu --device-only FAILED"; }
if [ -s skel_cl.h ]; then
    build/bench_gpu --compare opencl --lo $LO --hi $HI >"$OUT/bench_cl.txt" 2>&1 || note "bench_gpu opencl FAILED"
fi
grep -E '^jit' "$OUT/jit.txt" | tee -a "$SUM"
[ "$MODE" = final ] && rm -f "$OUT/build.log"   # at most 8 files come back
note ""
cat "$OUT/bench.txt"
[ -s "$OUT/bench_cl.txt" ] && cat "$OUT/bench_cl.txt"
[ -s "$OUT/bench_dev.txt" ] && cat "$OUT/bench_dev.txt"
echo
echo "==== summary"
cat "$SUM"
