#!/usr/bin/env bash
# bench/startup.sh - on the GPU machine: what skel's first call costs a
# program with all three headers (bench/firstcall.c --startup), against
# the same program built on the headers in bench/old/ (not committed: the
# code before GPU probing became lazy, e.g. `git show a050abd:skel.h`),
# what a GPU Map is timed at with and without skel_wait (--wait), an
# OpenMP 2-thread call after a 256-thread one (bench/omp_team.c, also on
# bench/old/), and the hardening tests with CUDA and NVIDIA's OpenCL.
# Logs: $OUT (or ./device-out); a summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd SKEL_CACHE_DIR=/tmp/skel-cache-startup
rm -rf "$SKEL_CACHE_DIR"
B="-O2 -g -O3 -march=native -std=c99 -fopenmp -w"
{ date -u '+%Y-%m-%d %H:%M UTC'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1; nproc; } > "$OUT/summary.txt"
make -s build/bench_firstcall build/bench_omp_team build/skel_tests >"$OUT/build.log" 2>&1 || echo "build FAILED" >> "$OUT/summary.txt"
if [ -f bench/old/skel.h ]; then
    gcc $B -DBENCH_OLD_HEADERS -Ibench/old -Ibench bench/firstcall.c -o build/bench_firstcall_old -ldl -lpthread -lm >>"$OUT/build.log" 2>&1
    gcc $B -Ibench/old -Ibench bench/omp_team.c -o build/bench_omp_team_old -ldl -lpthread -lm >>"$OUT/build.log" 2>&1
fi
for b in build/bench_firstcall build/bench_firstcall_old; do
    [ -x $b ] && { echo "== $b --startup 21"; $b --startup 21; } >> "$OUT/summary.txt" 2>&1
done
{ echo "== wait"; build/bench_firstcall --wait; } >> "$OUT/summary.txt" 2>&1
for b in build/bench_omp_team build/bench_omp_team_old; do
    [ -x $b ] && { echo "== $b"; timeout 60 $b; } >> "$OUT/summary.txt" 2>&1
done
for f in threads_ limits_ alloc_ wait_ files_ startup_ cuda_disk; do
    echo "== SKEL_REQUIRE=cuda,opencl skel_tests $f: $(SKEL_REQUIRE=cuda,opencl timeout 120 build/skel_tests $f > "$OUT/test_$f.log" 2>&1; echo rc $?) $(tail -1 "$OUT/test_$f.log")" >> "$OUT/summary.txt"
    grep FAIL "$OUT/test_$f.log" | head -3 >> "$OUT/summary.txt"
done
cat "$OUT/summary.txt"
