#!/usr/bin/env python3
"""bench/conv2d_plot.py - the 3..31 filter curve of bench/conv2d.c as an SVG.

    python3 bench/conv2d_plot.py GPU_CUDA.txt GPU_OPENCL.txt TORCH.txt OUT.svg

Reads the tables `bench_conv2d gpu` and bench/conv2d_torch.py print and
draws TFLOP/s against the filter width: skel on CUDA and on NVIDIA's OpenCL
(the default tiling, 0), the shared-memory tile kernel (tiling 3, what
every filter ran before the register tiling), a user function's sums (the
general kernel), cuDNN, the fp32 peak and half of it, and the copy
bandwidth's roof (the TFLOP/s a kernel that moves its bytes at the copy
rate of the same run would reach)."""
import re
import sys


def table(path, backend_col=True):
    rows = {}
    for line in open(path):
        f = line.split()
        if not f or f[0].startswith("#") or f[0] == "filter":
            continue
        m = re.match(r"(\d+)x(\d+)(/user)?$", f[0])
        if not m or m.group(1) != m.group(2):
            continue
        k = int(m.group(1))
        if backend_col:
            key = ("user" if m.group(3) else f[1]) + "/" + f[2]
            rows.setdefault(key, {})[k] = float(f[4])
        else:
            rows.setdefault("cudnn", {})[k] = float(f[2])
    return rows


def header(path):
    peak = copy = n = 0.0
    for line in open(path):
        m = re.search(r"# (\d+) x \d+ .*fp32 peak ([\d.]+) TFLOP/s; copy ([\d.]+) ms", line)
        if m:
            n, peak, copy = float(m.group(1)), float(m.group(2)), float(m.group(3))
    return n, peak, copy


def main():
    cuda, ocl, torch, out = sys.argv[1:5]
    n, peak, copy = header(cuda)
    series = table(cuda)
    series.update(table(ocl))
    series.update(table(torch, backend_col=False))
    ks = list(range(3, 32, 2))
    roof = {k: 2.0 * k * k * n * n / (copy * 1e-3) * 1e-12 for k in ks} if copy else {}
    lines = [
        ("cuda/0", "skel CUDA (default tiling)", "#1f77b4", 3, ""),
        ("opencl/0", "skel NVIDIA OpenCL (default tiling)", "#2ca02c", 2, ""),
        ("cuda/3", "skel CUDA, shared-memory tile only (before)", "#ff7f0e", 2, "6,3"),
        ("user/0", "skel CUDA, user function (general kernel)", "#9467bd", 2, "2,3"),
        ("cudnn", "PyTorch conv2d (cuDNN, TF32 off)", "#d62728", 2, ""),
    ]
    W, H, L, R, T, B = 760, 460, 70, 250, 30, 50
    ymax = max([peak] + [v for s in series.values() for v in s.values()]) * 1.05
    def x(k): return L + (k - 3) / 28.0 * (W - L - R)
    def y(v): return T + (1 - min(v, ymax) / ymax) * (H - T - B)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{L}" y="18" font-size="14">2D convolution, {int(n)} x {int(n)} floats on the device, H100: TFLOP/s against the filter</text>']
    for v in range(0, int(ymax) + 1, 10):
        svg.append(f'<line x1="{L}" y1="{y(v):.1f}" x2="{W - R}" y2="{y(v):.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{L - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
    for k in ks:
        svg.append(f'<text x="{x(k):.1f}" y="{H - B + 18}" text-anchor="middle">{k}</text>')
    svg.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">filter width (k x k)</text>')
    svg.append(f'<text x="18" y="{(T + H - B) / 2}" transform="rotate(-90 18 {(T + H - B) / 2})" text-anchor="middle">TFLOP/s (2 flops a tap)</text>')
    legend = []
    if peak:
        for frac, lab, dash in ((1.0, f"fp32 peak {peak:.1f}", "8,4"), (0.5, "50% of the peak", "2,4")):
            svg.append(f'<line x1="{L}" y1="{y(frac * peak):.1f}" x2="{W - R}" y2="{y(frac * peak):.1f}" stroke="black" stroke-dasharray="{dash}"/>')
            legend.append((lab, "black", 1, dash))
    if roof:
        pts = " ".join(f"{x(k):.1f},{y(roof[k]):.1f}" for k in ks)
        svg.append(f'<polyline points="{pts}" fill="none" stroke="#7f7f7f" stroke-width="1.5" stroke-dasharray="4,2"/>')
        legend.append((f"copy bandwidth's roof ({copy:.3f} ms a pass)", "#7f7f7f", 1.5, "4,2"))
    for key, lab, col, wid, dash in lines:
        s = series.get(key)
        if not s:
            continue
        pts = " ".join(f"{x(k):.1f},{y(s[k]):.1f}" for k in ks if k in s)
        svg.append(f'<polyline points="{pts}" fill="none" stroke="{col}" stroke-width="{wid}"'
                   + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        for k in ks:
            if k in s:
                svg.append(f'<circle cx="{x(k):.1f}" cy="{y(s[k]):.1f}" r="2.5" fill="{col}"/>')
        legend.append((lab, col, wid, dash))
    for i, (lab, col, wid, dash) in enumerate(legend):
        ly = T + 20 + 20 * i
        svg.append(f'<line x1="{W - R + 10}" y1="{ly}" x2="{W - R + 35}" y2="{ly}" stroke="{col}" stroke-width="{wid}"'
                   + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        svg.append(f'<text x="{W - R + 40}" y="{ly + 4}" font-size="11">{lab}</text>')
    svg.append("</svg>")
    open(out, "w").write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
