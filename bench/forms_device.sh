#!/usr/bin/env bash
# bench/forms_device.sh - the expressive forms on the GPU machine, in one
# call: the benchmarks of bench/results/forms.md on a quiet GPU first
# (bench/forms.c: CUDA, then the CPU part), the
# examples on CUDA and OpenCL, then the whole test suite with
# SKEL_REQUIRE=cuda, alongside the forms tests on NVIDIA's OpenCL and under
# compute-sanitizer.  Logs go to $OUT (or ./device-out); a summary is
# printed last.
#
#   bash bench/forms_device.sh compare BASE
#       (about 3 minutes) this tree against the tree at BASE (say, main's
#       checkout) in one call: build both benchmarks and a test binary of
#       test_forms.c and test_cuda.c; the forms tests on every backend and
#       the CUDA tests (but the NVRTC compile check, which CI runs) with
#       SKEL_REQUIRE=cuda,opencl; then Pearson and MapOverlap3D on CUDA,
#       three rounds, each BASE then this tree, and on NVIDIA's OpenCL,
#       two rounds (bench/results/forms.md's target table)
#   bash bench/forms_device.sh [quick]
#       quick (about 2 minutes): build the benchmark, the examples and a
#       test binary of test_forms.c alone; the forms tests on CUDA and on
#       NVIDIA's OpenCL and the examples on both, then the GPU benchmark
#       on CUDA (and on OpenCL while time is left)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
SUM="$OUT/summary.txt"
: > "$SUM"
note() { echo "$*" | tee -a "$SUM"; }
export PATH=/usr/local/cuda/bin:$PATH
export SKEL_CACHE_DIR=/tmp/skel-cache
rm -rf "$SKEL_CACHE_DIR"
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd

note "== $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)"
note "== $(lscpu | grep 'Model name' | sed 's/  */ /g'), $(nproc) cores"
if [ "${1:-}" = compare ]; then
    base=$(cd "${2:?compare needs the base tree}" && pwd)
    t0=$(date +%s)
    mkdir -p build
    ( cd "$base" && make -s build/bench_forms ) >"$OUT/build.log" 2>&1 &
    cc -O2 -g -std=c99 -Wall -Wextra -Werror -pedantic -fopenmp -I. test/main.c test/test_forms.c test/test_cuda.c \
        -o build/forms_cuda_tests -ldl -lpthread -lm >>"$OUT/build.log" 2>&1 &
    if make -s build/bench_forms >>"$OUT/build.log" 2>&1 && wait; then note "builds (gcc -Werror): ok, $(( $(date +%s) - t0 )) s"
    else note "BUILD FAILED"; grep -E 'error' "$OUT/build.log" | head -5 | tee -a "$SUM"; exit 1; fi
    t0=$(date +%s)
    SKEL_REQUIRE=cuda,opencl SKEL_CACHE_DIR=/tmp/skel-cache-t timeout 200 build/forms_cuda_tests -v forms >"$OUT/tests.log" 2>&1
    rc=$?
    note "forms tests, every backend, SKEL_REQUIRE=cuda,opencl: $(tail -1 "$OUT/tests.log") (rc $rc, $(( $(date +%s) - t0 )) s)"
    t0=$(date +%s); np=0; nf=0
    for t in $(build/forms_cuda_tests --list | grep '^cuda_' | grep -v compiles_for); do
        if SKEL_REQUIRE=cuda,opencl SKEL_CACHE_DIR=/tmp/skel-cache-t timeout 60 build/forms_cuda_tests -v "$t" >>"$OUT/tests.log" 2>&1
        then np=$((np + 1)); else nf=$((nf + 1)); note "FAILED $t"; fi
    done
    note "cuda tests but the NVRTC compile check, SKEL_REQUIRE=cuda,opencl: $np passed, $nf failed ($(( $(date +%s) - t0 )) s)"
    grep -h FAIL "$OUT/tests.log" | head -8 | tee -a "$SUM"
    for round in 1 2 3; do
        for b in "$base/build/bench_forms" build/bench_forms; do
            echo "--- cuda round $round: $b" >>"$OUT/forms_gpu.txt"
            timeout 60 "$b" gpu --only pearson,heat --reps 7 >>"$OUT/forms_gpu.txt" 2>&1
        done
    done
    for round in 1 2; do
        for b in "$base/build/bench_forms" build/bench_forms; do
            echo "--- opencl round $round: $b" >>"$OUT/forms_gpu.txt"
            timeout 60 "$b" gpu --backend opencl --only pearson,heat --reps 5 >>"$OUT/forms_gpu.txt" 2>&1
        done
    done
    grep -v '^|---\|^| workload' "$OUT/forms_gpu.txt"
    echo "==== summary"; cat "$SUM"
    exit 0
fi
if [ "${1:-}" = quick ]; then
    t0=$(date +%s)
    mkdir -p build
    ( cc -O2 -g -std=c99 -Wall -Wextra -Werror -pedantic -fopenmp -I. test/main.c test/test_forms.c \
          -o build/forms_tests -ldl -lpthread -lm ) >"$OUT/build.log" 2>&1 &
    if make -j14 build/bench_forms build/pearson build/psnr build/nbody build/poisson build/nearest build/heat3d \
            >>"$OUT/build.log" 2>&1 && wait $!; then note "build (gcc -Werror): ok, $(( $(date +%s) - t0 )) s"
    else note "BUILD FAILED"; grep -E 'error' "$OUT/build.log" | head -5 | tee -a "$SUM"; exit 1; fi
    for b in cuda opencl; do
        ( t1=$(date +%s)
          SKEL_REQUIRE=$b SKEL_TEST_BACKENDS=$b SKEL_CACHE_DIR=/tmp/skel-cache-$b timeout 55 build/forms_tests \
              >"$OUT/forms_$b.log" 2>&1
          rc=$?
          echo "forms tests on $b: $(tail -1 "$OUT/forms_$b.log") (rc $rc, $(( $(date +%s) - t1 )) s)" >"$OUT/forms_$b.sum"
          line=""
          for e in pearson psnr nbody poisson nearest heat3d; do
              r=$(SKEL_BACKEND=$b SKEL_CACHE_DIR=/tmp/skel-cache-$b timeout 10 build/$e 2>&1 | tail -1)
              case "$r" in *OK*) line="$line $e:ok";; *) line="$line $e:FAIL($r)";; esac
          done
          echo "examples on $b:$line" >>"$OUT/forms_$b.sum" ) &
    done
    wait
    cat "$OUT"/forms_*.sum | tee -a "$SUM"
    grep -h FAIL "$OUT"/forms_*.log | head -8 | tee -a "$SUM"
    t0=$(date +%s)
    timeout 50 stdbuf -oL build/bench_forms gpu --reps 5 >"$OUT/forms_gpu.txt" 2>&1 || note "bench_forms gpu (cuda): rc $?"
    note "benchmark on cuda: $(( $(date +%s) - t0 )) s"
    timeout 15 stdbuf -oL build/bench_forms gpu --backend opencl --reps 3 >"$OUT/forms_gpu_opencl.txt" 2>&1 ||
        note "bench_forms gpu (opencl): rc $?"
    cat "$OUT/forms_gpu.txt" "$OUT/forms_gpu_opencl.txt"
    echo "==== summary"; cat "$SUM"
    exit 0
fi

make clean >/dev/null
t0=$(date +%s)
if make -j16 build/skel_tests build/bench_forms all >"$OUT/build.log" 2>&1; then note "build (gcc -Werror): ok, $(( $(date +%s) - t0 )) s"
else note "BUILD FAILED"; grep -E 'error' "$OUT/build.log" | head -5 | tee -a "$SUM"; exit 1; fi

t0=$(date +%s)
build/bench_forms gpu --reps 11 >"$OUT/forms_gpu.txt" 2>&1 || note "bench_forms gpu FAILED"
build/bench_forms cpu --reps 9 >>"$OUT/forms_gpu.txt" 2>&1 || note "bench_forms cpu FAILED"
note "benchmarks: $(( $(date +%s) - t0 )) s"
for b in cuda opencl; do
    line=""
    for e in pearson psnr nbody poisson nearest heat3d; do
        r=$(SKEL_BACKEND=$b timeout 60 build/$e 2>&1 | tail -1)
        case "$r" in *OK*) line="$line $e:ok";; *) line="$line $e:FAIL($r)";; esac
    done
    note "examples on $b:$line"
done

run_tests() {   # label, log, command...
    local label=$1 log=$2; shift 2
    local t1=$(date +%s)
    "$@" >"$log" 2>&1
    local rc=$?
    note "$label: $(grep -E '^[0-9]+ passed' "$log" | tail -1) (rc $rc, $(( $(date +%s) - t1 )) s)"
    grep -E 'FAIL|skel cuda:|ERROR SUMMARY' "$log" | head -8 | tee -a "$SUM"
}
# the forms on NVIDIA's OpenCL and under memcheck, beside the whole suite
( run_tests "forms tests SKEL_REQUIRE=opencl (NVIDIA OpenCL)" "$OUT/test_cl.log" \
      env SKEL_REQUIRE=opencl SKEL_CACHE_DIR=/tmp/skel-cache-cl build/skel_tests forms
  if command -v compute-sanitizer >/dev/null; then
      run_tests "forms tests on cuda under compute-sanitizer memcheck" "$OUT/memcheck.log" \
          timeout 240 compute-sanitizer --tool memcheck --error-exitcode 3 --print-limit 10 \
          env SKEL_REQUIRE=cuda SKEL_CACHE_DIR=/tmp/skel-cache-mc build/skel_tests forms
  fi ) &
side=$!
SKEL_CUDA_STATS=1 run_tests "whole suite SKEL_REQUIRE=cuda (cold cache)" "$OUT/test_cuda.log" \
    env SKEL_REQUIRE=cuda build/skel_tests
wait $side
for f in "$OUT"/test*.log "$OUT"/memcheck.log; do [ -f "$f" ] && tail -c 3000000 "$f" > "$f.tmp" && mv "$f.tmp" "$f"; done
rm -f "$OUT/build.log"
echo
cat "$OUT/forms_gpu.txt"
echo
echo "==== summary"
cat "$SUM"
