#!/usr/bin/env bash
# bench/tasks_device.sh - issue 26's scheduler targets on the GPU machine in
# one short call: the task tests with CUDA required, then bench/tasks.c
# (overhead; the thesis ch. 6 applications and the farm of 64 calls under
# static, eager, ws and dmda).  Logs go to $OUT (or ./device-out):
#   tests.log   test_tasks.c (SKEL_REQUIRE=cuda)
#   bench.txt   bench_tasks's tables
#   summary.txt the machine and the headline lines
#
#   bash bench/tasks_device.sh [reps [bench_tasks options]]   (default 5)
#   GPU=opencl ...: the GPU place (default cuda; PoCL to try it without a GPU)
#   TESTS=0 ...: no tests
#   LIMIT=S ...: bench_tasks's time limit in seconds (default 120)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
REPS=${1:-5}
shift || true
TESTS=${TESTS:-1}
GPU=${GPU:-cuda}
LIMIT=${LIMIT:-120}
SUM="$OUT/summary.txt"
: > "$SUM"
note() { echo "$*" | tee -a "$SUM"; }
export PATH=/usr/local/cuda/bin:$PATH
export SKEL_CACHE_DIR=/tmp/skel-cache-tasks
note "== $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
note "== $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs; $(gcc --version | head -1); commit $(git rev-parse --short HEAD 2>/dev/null)"
mkdir -p build
if [ "$TESTS" = 1 ]; then
    gcc -O2 -g -std=c99 -Wall -Wextra -Werror -pedantic -fopenmp -I. test/main.c test/test_tasks.c \
        -o build/task_tests -ldl -lpthread -lm >"$OUT/build.log" 2>&1 &
fi
make -s build/bench_tasks >>"$OUT/build.log" 2>&1 || note "bench build FAILED"
wait || true
if [ "$TESTS" = 1 ]; then
    SKEL_REQUIRE=cuda timeout 30 build/task_tests -v tasks_ >"$OUT/tests.log" 2>&1
    note "task tests, SKEL_REQUIRE=cuda (rc $?): $(tail -1 "$OUT/tests.log")"
    grep -E "FAIL|SKIP" "$OUT/tests.log" | head -5 | tee -a "$SUM"
fi

timeout "$LIMIT" build/bench_tasks --gpu "$GPU" --reps "$REPS" "$@" >"$OUT/bench.txt" 2>&1
note "bench_tasks --gpu $GPU --reps $REPS $* (rc $?):"
grep -E "^(links|empty|[0-9]+ tasks|==|[a-z0-9]+: best|farm64 one|FAILED|MISMATCH)" "$OUT/bench.txt" | tee -a "$SUM"
