#!/usr/bin/env bash
# bench/pool.sh - the worker pool's numbers (bench/results/pool.md):
# bench_peers in each of its modes, and the interference run.
#
#   bash bench/pool.sh vm       this 2-vCPU machine; take the lock first:
#                               flock -x /work/cpu.lock bash bench/pool.sh vm
#   bash bench/pool.sh device   the GPU machine's 16 cores (one call of the
#                               device tool; TBB from .tbb/ when the machine
#                               has none: Debian 12's libtbb-dev headers in
#                               .tbb/include, libtbb.so.12 in .tbb/lib)
# Logs go to $OUT (default ./pool-out).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/pool-out}
mkdir -p "$OUT"
MODE=${1:-vm}
T=$(nproc)
log() { echo "$*" | tee -a "$OUT/pool.log"; }
# idle share of all CPUs over one second, in percent
idle() { local a b; a=($(head -1 /proc/stat)); sleep 1; b=($(head -1 /proc/stat))
         local t=0 i; for i in 1 2 3 4 5 6 7 8; do t=$((t + b[i] - a[i])); done
         echo $(( 100 * (b[4] - a[4]) / (t > 0 ? t : 1) )); }
# wait (up to 10 min) until the machine is at least 90% idle: processes
# that do not take the lock (compilers) still run on a shared machine
quiet() { local k=0 p; while p=$(idle); [ "$p" -lt 90 ] && [ $k -lt 120 ]; do sleep 4; k=$((k + 1)); done
          log "(machine $(idle)% idle)"; }
run() { quiet; log "\$ $*"; "$@" 2>&1 | tee -a "$OUT/pool.log"; }

log "== $(date -u '+%Y-%m-%d %H:%M UTC') $MODE: $T CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(gcc --version | head -1)"
TBB=()
if [ -e /usr/include/oneapi/tbb.h ]; then log "TBB: the system's"
elif [ -e .tbb/include/oneapi/tbb.h ]; then TBB=(TBB_INC="$PWD/.tbb/include" TBB_LIBDIR="$PWD/.tbb/lib"); log "TBB: carried (Debian 12 libtbb 2021.8)"
else log "TBB: none"; fi
make -s -j"$T" build/bench_peers "${TBB[@]}" >>"$OUT/build.log" 2>&1 \
    || { log "bench_peers build failed (build.log); again without TBB"; make -s -j"$T" build/bench_peers TBB_INC=/nonexistent >>"$OUT/build.log" 2>&1; }
P=build/bench_peers

if [ "$MODE" = device ]; then
    run $P --threads "$T" --sizes 24:24                      # the scaling targets, every kernel
    run $P --threads "$T" --sizes 10:20:2 --kernels saxpy,sum,dot   # reductions on one core; where threads pay
    run $P --threads "$T" --overhead
    run $P --threads "$T" --idle
    make -s build/skel_tests OPT=-O1 >>"$OUT/build.log" 2>&1 && run build/skel_tests pool
    exit 0
fi

run $P --threads "$T"                                        # every kernel, 2^10 .. 2^24
run $P --threads "$T" --overhead
run $P --threads "$T" --idle
log "== interference: quiet machine"
run $P --threads "$T" --calls
log "== interference: one process spinning on CPU 1"
taskset -c 1 sh -c 'while :; do :; done' &
SPIN=$!
sleep 1
run $P --threads "$T" --calls
kill "$SPIN"
