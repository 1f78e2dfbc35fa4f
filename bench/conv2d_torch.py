#!/usr/bin/env python3
"""bench/conv2d_torch.py - PyTorch's conv2d (cuDNN) on the same problem as
bench/conv2d.c: one n x n float channel, one k x k filter (padding k // 2),
k = 3..31, TF32 off, cudnn.benchmark on (it picks its fastest algorithm per
shape).  Median of 15 calls timed with CUDA events, after warm-up.
Prints "cudnn KxK ms TFLOP/s" lines (2 flops a tap)."""
import sys
import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.benchmark = True
dev = torch.device("cuda")
x = torch.randint(-8, 9, (1, 1, n, n), device=dev).float()
print(f"# torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name(0)}")
print(f"{'filter':<8} {'ms':>8} {'TFLOP/s':>8}")
for k in range(3, 32, 2):
    w = torch.randint(-3, 4, (1, 1, k, k), device=dev).float()
    for _ in range(5):
        y = torch.nn.functional.conv2d(x, w, padding=k // 2)
    torch.cuda.synchronize()
    times = []
    for _ in range(15):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        y = torch.nn.functional.conv2d(x, w, padding=k // 2)
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    ms = times[len(times) // 2]
    print(f"{k}x{k:<5} {ms:8.4f} {2.0 * k * k * n * n / (ms * 1e-3) * 1e-12:8.2f}", flush=True)
