#!/usr/bin/env bash
# bench/explore.sh - A/B runs of the GPU kernel geometry on the GPU machine.
# Builds bench/gpu.c once per setting of the SKEL_GPU_* configuration
# macros (skel.h, CONFIGURATION MACROS) and runs the device-resident table
# of the workloads they touch, against CUB and the copy bandwidth of the
# same run.  With bench/old/skel*.h present (earlier headers, not
# committed) that version runs too, as the "before" column, and so does
# every bench/var/NAME/ holding a variant's headers and, in NAME/defs, its
# compiler options (not committed either; the run tool's carry brings them).  Logs: $OUT.
#
#   bash bench/explore.sh [lo hi] [workloads]   (default 22 28 map,reduce,dot,scan,conv2d)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
LO=${1:-22}; HI=${2:-28}; WL=${3:-map,reduce,dot,scan,conv2d}
mkdir -p "$OUT" build
export PATH=/usr/local/cuda/bin:$PATH
export SKEL_CACHE_DIR=/tmp/skel-cache-explore
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
LOG="$OUT/explore.txt"
: > "$LOG"
say() { echo "$*" | tee -a "$LOG"; }
say "== $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"

CF="-O2 -g -O3 -march=native -std=c99 -Wall -Wextra -fopenmp"
nvcc -O3 -arch=sm_90 -std=c++17 -o build/gpu_base bench/gpu_base.cu >"$OUT/nvcc.log" 2>&1 || say "gpu_base build FAILED"
build/gpu_base "$LO" "$HI" >"$OUT/base.txt" 2>&1 || say "gpu_base FAILED"
# name:header folder:defines ("." = the working tree)
variants=("default:.:")
[ -f bench/old/skel.h ] && variants+=("before:bench/old:")
for d in bench/var/*/; do   # a variant's compiler options, if any, in its file "defs"
    [ -f "$d/skel.h" ] && variants+=("$(basename "$d"):$d:$(cat "$d/defs" 2>/dev/null)")
done
pids=()
for v in "${variants[@]}"; do
    IFS=: read -r name dir defs <<<"$v"
    cc $CF $defs -I"$dir" -I. bench/gpu.c -o "build/bench_gpu_$name" -ldl -lpthread -lm >>"$OUT/build.log" 2>&1 &
    pids+=($!)
    if [ "$dir" != . ]; then    # its tests, for the kernels a variant changes
        cc $CF $defs -I"$dir" -I. test/*.c -o "build/skel_tests_$name" -ldl -lpthread -lm >>"$OUT/build.log" 2>&1 &
        pids+=($!)
    fi
done
make build/skel_tests >>"$OUT/build.log" 2>&1 || say "skel_tests build FAILED"
for p in "${pids[@]}"; do wait "$p"; done

# correctness first: the changed kernels on both GPU backends
for t in ${EXPLORE_TESTS:-cuda:scan cuda:overlap2d cuda:reduce cuda:map opencl:reduce opencl:overlap2d}; do
    b=${t%%:*}; f=${t#*:}
    SKEL_REQUIRE=$b timeout 200 build/skel_tests "$f" >>"$OUT/tests.log" 2>&1
    say "tests $f (SKEL_REQUIRE=$b, rc $?): $(tail -1 "$OUT/tests.log")"
done
for v in "${variants[@]}"; do
    name=${v%%:*}
    [ -x "build/skel_tests_$name" ] || continue
    for f in ${VAR_TESTS:-scan overlap2d}; do
        SKEL_REQUIRE=cuda timeout 200 "build/skel_tests_$name" "$f" >>"$OUT/tests.log" 2>&1
        say "tests $f of $name (SKEL_REQUIRE=cuda, rc $?): $(tail -1 "$OUT/tests.log")"
    done
done

run_variant() {   # name workloads [bench_gpu options]
    local bin="build/bench_gpu_$1" w=$2
    shift 2
    [ -x "$bin" ] || { say "($bin: not built)"; return; }
    say ""
    say "#### $(basename "$bin") $*"
    "$bin" --base "$OUT/base.txt" --lo "$LO" --hi "$HI" --only "$w" --device-only "$@" 2>&1 | grep -vE '^#|^$' | tee -a "$LOG"
}
for v in "${variants[@]}"; do run_variant "${v%%:*}" "$WL"; done
say ""
say "#### OpenCL (NVIDIA) vs CUDA, default"
build/bench_gpu_default --compare opencl --lo 20 --hi "$HI" --only map,reduce,dot,scan,ov1d,conv2d 2>&1 | grep -vE '^$' | tee -a "$LOG"
grep -E '^(copy_d2d|cub_reduce|cub_scan) ' "$OUT/base.txt" | tee -a "$LOG"
