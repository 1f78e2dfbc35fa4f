#!/usr/bin/env bash
# bench/pool_ab.sh - the worker pool of this tree against other header
# trees, in one run: bench/pool_probe.c built once per tree (each DIR holds
# a skel.h; skel_cuda.h and skel_cl.h come from DIR if there, else from
# this tree), then `bench_pool_probe R C` for
# every size, the trees alternately, ROUNDS times.  SKEL_POOL_ADAPT=0 by
# default, so that every pool call runs in parallel and a change in the
# pool's own costs shows (the caller-alone rule would hide it); set
# SKEL_POOL_ADAPT=1 to time what users get.  Logs in $OUT (or ./device-out).
#
#   bash bench/pool_ab.sh ROUNDS "R C[,R C...]" DIR...
# e.g. with a branch's headers copied where the device tool carries them:
#   mkdir -p .exp/w1 && git show exp/pool-w1:skel.h > .exp/w1/skel.h &&
#   bash bench/pool_ab.sh 2 "117 56,18 785" .exp/w1
set -uo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:?usage: pool_ab.sh ROUNDS "R C[,R C...]" DIR...}
SIZES=${2:?usage: pool_ab.sh ROUNDS "R C[,R C...]" DIR...}
shift 2
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT" build
export SKEL_POOL_ADAPT=${SKEL_POOL_ADAPT:-0}
LOG="$OUT/pool_ab.txt"
echo "== $(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs; SKEL_POOL_ADAPT=$SKEL_POOL_ADAPT" > "$LOG"
progs=() names=()
for d in . "$@"; do     # every tree built alike (this one: ".")
    [ -f "$d/skel.h" ] || { echo "pool_ab.sh: $d has no skel.h" | tee -a "$LOG"; exit 1; }
    p="build/pool_probe_${#progs[@]}"
    cc -O3 -march=native -std=c99 -fopenmp -I"$d" -I. bench/pool_probe.c -o "$p" -ldl -lpthread -lm >> "$LOG" 2>&1 ||
        { echo "pool_ab.sh: $d does not build" | tee -a "$LOG"; exit 1; }
    progs+=("$p"); names+=("$([ "$d" = . ] && echo this || echo "$d")")
done
IFS=, read -ra sizes <<< "$SIZES"
for r in $(seq "$ROUNDS"); do
    for sz in "${sizes[@]}"; do
        for i in "${!progs[@]}"; do
            echo "== round $r, $sz, ${names[$i]}" >> "$LOG"
            # (word splitting of $sz gives the probe its two arguments)
            timeout 60 "${progs[$i]}" $sz >> "$LOG" 2>&1 || echo "(rc $?)" >> "$LOG"
        done
    done
done
# medians per pattern and width, one row per tree and size
python3 - "$LOG" <<'EOF' | tee -a "$LOG"
import re, sys, collections
d = collections.defaultdict(list)
key = None
for line in open(sys.argv[1]):
    m = re.match(r'== round \d+, (.+), (.+)$', line)
    if m:
        key = (m.group(1), m.group(2))
        continue
    m = re.match(r'(\S+)\s+(\S+): min \S+ med (\S+)', line)
    if m and key:
        d[key + (m.group(1), m.group(2))].append(float(m.group(3)))
print('\nmedian ms over the rounds: size, tree, pattern: seq/1 | pool/2 | pool/4 | pool/8 | pool/16')
rows = sorted({k[:3] for k in d})
for size, tree, pat in rows:
    cells = []
    for v in ('seq/1', 'pool/2', 'pool/4', 'pool/8', 'pool/16'):
        x = sorted(d.get((size, tree, pat, v), []))
        cells.append('%.4f' % x[len(x) // 2] if x else '-')
    print('%-10s %-24s %-13s %s' % (size, tree, pat, ' | '.join(cells)))
EOF
