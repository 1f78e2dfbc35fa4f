#!/usr/bin/env bash
# bench/fastpath_device.sh BASE [ROUNDS] - a skel call's fixed cost before
# and after, on one machine in one run: builds build/bench_peers here and in
# BASE (another checkout of skel, e.g. the commit before the change), then
# runs the two alternately, ROUNDS (3) times each:
#     bench_peers --kernels sum,dot --sizes $SIZES      (default 10:16)
# and once each `bench_peers --overhead`.  Logs: $OUT/peers_{base,new}_R.txt,
# $OUT/overhead_{base,new}.txt, their seq and simd lines in $OUT/times.txt; the summary (skel seq's ratio to the
# `omp simd reduction` loop per size and round) is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
BASE=${1:?usage: bench/fastpath_device.sh BASE [ROUNDS]}
ROUNDS=${2:-3}
SIZES=${SIZES:-10:16}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export SKEL_CACHE_DIR=/tmp/skel-cache-fastpath
{ date -u '+%Y-%m-%d %H:%M UTC'; lscpu | grep -E 'Model name|^CPU\(s\)'; gcc --version | head -1; } | tee "$OUT/machine.txt"
make -s build/bench_peers >"$OUT/build_new.log" 2>&1 & (cd "$BASE" && make -s build/bench_peers >"$OUT/build_base.log" 2>&1); wait
for r in $(seq "$ROUNDS"); do
    for w in base new; do
        bin=build/bench_peers; [ $w = base ] && bin=$BASE/build/bench_peers
        "$bin" --kernels sum,dot --sizes "$SIZES" >"$OUT/peers_${w}_$r.txt" 2>&1
    done
done
for w in base new; do
    bin=build/bench_peers; [ $w = base ] && bin=$BASE/build/bench_peers
    "$bin" --overhead >"$OUT/overhead_$w.txt" 2>&1
done
# summary: skel seq's ratio to the omp simd loop per size, each round (base, then new)
for k in sum dot; do
    for n in $(grep -F "| $k |" "$OUT/peers_new_1.txt" | grep -F "| skel seq |" | awk -F'|' '{gsub(/ /, "", $3); print $3}'); do
        line="| $k | $n |"
        for w in base new; do
            for f in "$OUT"/peers_${w}_*.txt; do
                line="$line $(grep -F "| $k | $n | skel seq |" "$f" | awk -F'|' '{split($7, a, " "); printf "%s", a[1]}')"
            done
            line="$line |"
        done
        echo "$line"
    done
done
for f in "$OUT"/peers_*_*.txt; do echo "== $f"; grep -E "omp simd|skel seq \|" "$f"; done >"$OUT/times.txt"
for w in base new; do echo "== $w --overhead"; grep -h "^|" "$OUT/overhead_$w.txt"; done
