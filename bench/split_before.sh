#!/usr/bin/env bash
# bench/split_before.sh - the split sweep of this tree against a baseline
# tree in one run on the GPU machine: both trees' bench_split built side by
# side, then `bench_split --sweep --loc L` for each tree in turn (baseline,
# this tree, ...), host-resident inputs twice and GPU-resident once, the
# split, coherence and CUDA tests of this tree (SKEL_REQUIRE=cuda,opencl)
# after the first round, and, while time is left (SPLIT_BEFORE_S seconds
# in all, default 300), this tree's page-locked sweep.  The sweep tables
# and plots of bench/results/splits.md come from it.  Logs in $OUT (or
# ./device-out); this tree's plots as $OUT/split_sweep_{host,device,pinned}.svg.
#
#   bash bench/split_before.sh BASELINE_DIR
# On the GPU machine, with this tree carried as /work/main's .dev/NAME:
#   cd .dev/NAME && bash bench/split_before.sh ../..
set -uo pipefail
cd "$(dirname "$0")/.."
BASE=$(cd "${1:?usage: split_before.sh BASELINE_DIR}" && pwd)
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT" build
LIMIT=${SPLIT_BEFORE_S:-300}
T0=$(date +%s)
R="$OUT/before.txt"
export PATH=/usr/local/cuda/bin:$PATH SKEL_CACHE_DIR=/tmp/skel-cache-before
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" > "$R"
(cd "$BASE" && make -s build/bench_split) > "$OUT/build.txt" 2>&1 &
make -s build/bench_split >> "$OUT/build.txt" 2>&1 &
cc -O1 -g -std=c99 -Wall -Wextra -Werror -pedantic -fopenmp -I. test/main.c test/test_split.c \
   test/test_coherence.c test/test_cuda.c -o build/split_tests -ldl -lpthread -lm >> "$OUT/build.txt" 2>&1 &
wait
[ -x "$BASE/build/bench_split" ] && [ -x build/bench_split ] && [ -x build/split_tests ] ||
    { echo "BUILD FAILED" >> "$R"; tail -30 "$OUT/build.txt" >> "$R"; exit 1; }
echo "build $(( $(date +%s) - T0 )) s" >> "$R"
sweep() {   # tree label loc [svg]
    local bin=$1 label=$2 loc=$3 t=$(date +%s)
    echo "== $label --sweep --loc $loc" >> "$R"
    timeout 120 "$bin" --sweep --loc "$loc" ${4:+--svg "$4"} >> "$R" 2>&1
    echo "($label, rc $?, $(( $(date +%s) - t )) s)" >> "$R"
}
sweep "$BASE/build/bench_split" baseline host
sweep build/bench_split "this tree" host
sweep "$BASE/build/bench_split" baseline device
sweep build/bench_split "this tree" device "$OUT/split_sweep"
t=$(date +%s)
timeout 90 env SKEL_REQUIRE=cuda,opencl build/split_tests > "$OUT/tests.log" 2>&1
rc=$?
echo "== split, coherence and CUDA tests, SKEL_REQUIRE=cuda,opencl: $(grep -E '^[0-9]+ passed' "$OUT/tests.log" | tail -1) (rc $rc, $(( $(date +%s) - t )) s)" >> "$R"
grep -E 'FAIL' "$OUT/tests.log" | head -12 >> "$R"
left() { [ $(( $(date +%s) - T0 )) -lt $(( LIMIT - $1 )) ]; }
left 60 && sweep "$BASE/build/bench_split" baseline host
left 40 && sweep build/bench_split "this tree" host "$OUT/split_sweep"
left 40 && sweep build/bench_split "this tree" pinned "$OUT/split_sweep"
echo "total $(( $(date +%s) - T0 )) s" >> "$R"
cat "$R"
