#!/usr/bin/env bash
# bench/profile.sh - Nsight Compute on the GPU machine: one launch of each
# skel kernel the targets name and of the CUB / hand-written baselines,
# 2^26 floats, device-resident.  Sections: speed of light, occupancy, launch
# statistics, warp states, memory workload.  Logs: $OUT/ncu_*.txt.
#
#   bash bench/profile.sh [log2n] [workloads]     (default 26 map,reduce,scan,conv2d)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
N=${1:-26}; W=${2:-map,reduce,scan,conv2d}
mkdir -p "$OUT" build
export PATH=/usr/local/cuda/bin:$PATH
export SKEL_CACHE_DIR=/tmp/skel-cache-profile
NCU="ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats
     --section WarpStateStats --section MemoryWorkloadAnalysis"
[ build/gpu_base -nt bench/gpu_base.cu ] || nvcc -O3 -arch=sm_90 -std=c++17 -o build/gpu_base bench/gpu_base.cu >"$OUT/nvcc.log" 2>&1 ||
    echo "gpu_base build FAILED"
cc -O3 -march=native -std=c99 -fopenmp ${CFLAGS_EXTRA:-} -I. bench/gpu.c -o build/bench_gpu -ldl -lpthread -lm || exit 1
build/bench_gpu --lo "$N" --hi "$N" --only "$W" --device-only >/dev/null 2>&1    # fills the kernel cache
IFS=, read -ra ws <<<"$W"
for w in "${ws[@]}"; do
    case $w in map) k=skel_map;; reduce) k=skel_reduce;; dot) k=skel_reduce;; scan) k=skel_scan;;
                ov1d) k=skel_overlap_rows;; conv2d) k=skel_overlap2d;; *) continue;; esac
    $NCU --launch-skip 2 --launch-count 1 -k "regex:$k" build/bench_gpu --lo "$N" --hi "$N" --only "$w" --device-only >"$OUT/ncu_$w.txt" 2>&1
    echo "== $w: $(grep -E 'Duration|DRAM Throughput|Registers Per|Achieved Occupancy' "$OUT/ncu_$w.txt" | tr -s ' ' | tr '\n' ';')"
done
$NCU -k "regex:DeviceReduceKernel|DeviceScanKernel|saxpy|conv2d" --launch-skip 0 --launch-count 6 \
    build/gpu_base "$N" "$N" >"$OUT/ncu_base.txt" 2>&1
echo "== base: $(grep -E '^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Registers Per|Achieved Occupancy' "$OUT/ncu_base.txt" | tr -s ' ' | tr '\n' ';')"
