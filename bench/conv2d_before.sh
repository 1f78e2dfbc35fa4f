#!/usr/bin/env bash
# bench/conv2d_before.sh - SKEL_CONV2D 3x3..7x7 on CUDA, this tree against the
# code before issue 29 (the headers of d68e17a^, from git, or from the folder
# BEFORE_DIR), ROUNDS rounds of the two programs in turn (default 3).  Needs
# a GPU.
#   bash bench/conv2d_before.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/before
if [ -n "${BEFORE_DIR:-}" ]; then cp "$BEFORE_DIR"/skel.h "$BEFORE_DIR"/skel_cuda.h build/before/   # a copy without git
else git show d68e17a^:skel.h > build/before/skel.h; git show d68e17a^:skel_cuda.h > build/before/skel_cuda.h; fi
cc -O2 -std=c99 -I. -o build/conv2d_now bench/conv2d_before.c -ldl -lpthread -lm
cc -O2 -std=c99 -I. -DOLD -o build/conv2d_before bench/conv2d_before.c -ldl -lpthread -lm
for r in $(seq "${1:-3}"); do
    SKEL_BACKEND=cuda build/conv2d_before 31
    SKEL_BACKEND=cuda build/conv2d_now 31
done
