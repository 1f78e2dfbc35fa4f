#!/usr/bin/env bash
# bench/stall.sh - A/B of two skel_cl.h: the working tree's ("ev" in the
# logs) against bench/var/blockread/skel_cl.h ("br"; not committed, the run
# tool's carry brings it).  In session 10 the working tree waited for reads
# through their events and the variant's reads were blocking, as they are
# now in the working tree too (bench/RESULTS_OPENCL.md in git history).
# Runs bench/firstcall.c, the OpenCL/CUDA comparison of bench/gpu.c,
# bench/omp_stall.c, and the tuner evaluation's host half on the
# applications whose misses were omp/16 stalls, with `top -H` sampled each
# second during it (which threads were busy).  Logs: $OUT/stall.txt, eval_*.txt, top.txt.gz
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}; mkdir -p "$OUT" build
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd SKEL_CACHE_DIR=/tmp/skel-cache-stall
LOG="$OUT/stall.txt"
CF="-O2 -g -O3 -march=native -std=c99 -Wall -Wextra -fopenmp"
for b in omp_stall firstcall eval gpu; do
    cc $CF -I. bench/$b.c -o build/bench_${b}_ev -ldl -lpthread -lm &
    cc $CF -Ibench/var/blockread -I. bench/$b.c -o build/bench_${b}_br -ldl -lpthread -lm &
done
wait
{ date -u; nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } >>"$LOG"
for v in ev br; do echo "== firstcall $v" >>"$LOG"; build/bench_firstcall_$v 238919 626033 >>"$LOG" 2>&1; done
for v in ev br; do echo "== compare $v" >>"$LOG"; build/bench_gpu_$v --compare opencl --lo 20 --hi 28 >>"$LOG" 2>&1; done
for v in ev br; do echo "== omp_stall $v" >>"$LOG"; build/bench_omp_stall_$v 11172445 16 >>"$LOG" 2>&1; done
top -H -b -d 1 -w 160 > "$OUT/top.txt" &
TOP=$!
for v in ev br; do
    EVAL_BIN=build/bench_eval_$v EVAL_APPS="${STALL_APPS:-dot vsum mse}" EVAL_DUMP=1 \
        bash bench/eval_device.sh "host_$v" "${STALL_EVAL_S:-110}" --budget 5
done
kill $TOP; gzip "$OUT/top.txt"
(cd "$OUT" && tar czf svg.tgz svg_* && rm -rf svg_*)
date -u >>"$LOG"
