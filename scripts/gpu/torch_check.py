#!/usr/bin/env python3
"""On the GPU machine (which has PyTorch): vkconv's NumPy mode against torch.nn.functional.conv2d.

For a set of problems (stride, padding, dilation, groups, depthwise, no bias, alexnet1 at a small
batch), writes random float32 inputs as .npy, runs `vkconv run --input ... --output ...` with each
precision, and compares the output with PyTorch's conv2d computed in float64 on the CPU:
relative error ||out - ref|| / ||ref||, bound 1e-5 (fp32) and 1e-3 (fast, fp16 operands).

    python3 scripts/gpu/torch_check.py VKCONV_BINARY WORKDIR
"""
import subprocess
import sys

import numpy as np
import torch

PROBLEMS = [  # (N, C, H, W, K, R, S, stride, padding, dilation, groups, bias)
    (2, 3, 224, 224, 96, 11, 11, 4, 2, 1, 1, True),      # alexnet1, batch 2
    (3, 16, 31, 29, 24, 3, 3, 1, 1, 1, 1, True),
    (2, 8, 40, 36, 16, 5, 3, 2, (2, 1), 1, 1, False),
    (1, 12, 33, 33, 12, 3, 3, 1, 2, 2, 1, True),
    (2, 12, 28, 28, 18, 3, 3, 1, 1, 1, 3, True),         # grouped
    (2, 32, 30, 30, 32, 3, 3, 2, 1, 1, 32, True),        # depthwise
    (4, 64, 14, 14, 128, 1, 1, 1, 0, 1, 1, False),       # 1x1
    (1, 5, 17, 23, 7, 7, 5, (3, 2), (3, 2), (1, 2), 1, True),
]

BOUNDS = {"fp32": 1e-5, "fast": 1e-3}


def pair(v):
    return v if isinstance(v, tuple) else (v, v)


def main():
    binary, work = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(11)
    failures = 0
    for i, (n, c, h, w, k, r, s, stride, pad, dil, groups, bias) in enumerate(PROBLEMS):
        x = rng.uniform(-1, 1, (n, c, h, w)).astype(np.float32)
        wt = rng.uniform(-1, 1, (k, c // groups, r, s)).astype(np.float32)
        b = rng.uniform(-1, 1, (k,)).astype(np.float32) if bias else None
        np.save(f"{work}/x{i}.npy", x)
        np.save(f"{work}/w{i}.npy", wt)
        if bias:
            np.save(f"{work}/b{i}.npy", b)
        ref = torch.nn.functional.conv2d(
            torch.from_numpy(x).double(), torch.from_numpy(wt).double(),
            torch.from_numpy(b).double() if bias else None,
            stride=pair(stride), padding=pair(pad), dilation=pair(dil), groups=groups).numpy()
        for precision, bound in BOUNDS.items():
            sh, sw = pair(stride)
            ph, pw = pair(pad)
            dh, dw = pair(dil)
            cmd = [binary, "run", "--precision", precision, "--iterations", "0",
                   "--input", f"{work}/x{i}.npy", "--weight", f"{work}/w{i}.npy",
                   "--output", f"{work}/y{i}.npy", "--stride", f"{sh},{sw}",
                   "--padding", f"{ph},{pw}", "--dilation", f"{dh},{dw}", "--groups", str(groups)]
            if bias:
                cmd += ["--bias", f"{work}/b{i}.npy"]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"problem {i} {precision}: vkconv failed ({proc.returncode}): {proc.stderr.strip()}")
                failures += 1
                continue
            y = np.load(f"{work}/y{i}.npy").astype(np.float64)
            err = (np.linalg.norm(y - ref) / np.linalg.norm(ref)) if y.shape == ref.shape else float("inf")
            if not np.isfinite(err):
                err = float("inf")
            path = next((l.split(":", 1)[1].strip() for l in proc.stdout.splitlines()
                         if l.startswith("path:")), "?")
            ok = err <= bound
            failures += not ok
            print(f"problem {i} {precision:5s} {str(x.shape):18s} k{r}x{s} s{stride} p{pad} d{dil} g{groups}"
                  f" bias={bias}: rel err {err:.2e} (bound {bound:g}) {'PASS' if ok else 'FAIL'}  [{path}]")
    total = len(PROBLEMS) * len(BOUNDS)
    print(f"torch check: {total - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
