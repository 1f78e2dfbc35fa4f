#!/usr/bin/env bash
# bench/tasks_overhead.sh - the empty-task overhead of this tree against a
# baseline tree, in one run: both trees' bench_tasks built side by side,
# then `bench_tasks --only overhead` RUNS times each, interleaved
# (baseline, this tree, baseline, ...).  The overhead tables of
# bench/results/tasks.md come from it.  Logs in $OUT (or ./device-out).
#
#   bash bench/tasks_overhead.sh BASELINE_DIR [runs]   (default 3)
# On the GPU machine, with this tree carried as /work/main's .dev/NAME:
#   cd .dev/NAME && bash bench/tasks_overhead.sh ../.. 3
set -uo pipefail
cd "$(dirname "$0")/.."
BASE=$(cd "${1:?usage: tasks_overhead.sh BASELINE_DIR [runs]}" && pwd)
RUNS=${2:-3}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export SKEL_CACHE_DIR=/tmp/skel-cache-overhead
{ echo "== $(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs"
  echo "== baseline $(git -C "$BASE" log --oneline -1 2>/dev/null | cut -c1-60)"; } > "$OUT/over.txt"
(cd "$BASE" && make -s build/bench_tasks) > "$OUT/build.txt" 2>&1 &
make -s build/bench_tasks >> "$OUT/build.txt" 2>&1 &
wait
for i in $(seq "$RUNS"); do
    echo "== run $i baseline"; "$BASE/build/bench_tasks" --only overhead
    echo "== run $i this tree"; build/bench_tasks --only overhead
done >> "$OUT/over.txt" 2>&1
grep -E "^==|us a task|us$|efficiency" "$OUT/over.txt"
