#!/usr/bin/env python3
"""The Python module against torch.nn.functional.conv2d on CUDA: error, and what a call costs.

For alexnet1 and three shapes of the `layers` suite (bench/shapes.json, their GPU batches), and
each of vkconv's precisions, on fresh uniform [-1, 1] float32 NumPy inputs:

  error      ||y - ref|| / ||ref||, y = vkconv.Conv2d(...)(x), ref = PyTorch's conv2d in float64 on
             CUDA; over the path's bound (fp32 1e-5, fast 1e-3) fails the run (exit status 1)
  call       wall time of y = conv(x) on NumPy arrays: copy x to the device, the convolution, copy
             the result back into a new NumPy array (the median of --iterations calls, after warm-up)
  gpu        vkconv's GPU time of the convolution alone (Conv2d.time: timestamps, median)
  boundary   call - gpu: what the Python boundary and the host<->device copies cost
  torch call the same round trip with PyTorch: torch.from_numpy(x).cuda(), F.conv2d,
             .cpu().numpy() (TF32 off for the fp32 row, PyTorch's default TF32 for the fast row),
             synchronised, wall time, median
  torch gpu  PyTorch's conv2d on tensors already on the GPU (CUDA events, the calls queued behind a
             GPU wait so that they time the GPU's work alone; median)

    PYTHONPATH=<module folder> python3 python/bench_torch.py [--shapes a,b,...] [--batch N]
        [--iterations 20] [--json FILE]

Needs a Vulkan device that vkconv can use and PyTorch with CUDA (python/README.md: the GPU check).
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

import vkconv

HERE = os.path.dirname(os.path.abspath(__file__))
# PyTorch's GPU time is measured as the baseline is (the calls queued behind a GPU wait).
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
from torch_conv_reference import gpu_times_ms, require_gpu_wait  # noqa: E402

DEFAULT_SHAPES = ["alexnet1", "resnet50_l1_3x3_64", "resnet50_l2_1x1_256_128", "mobilenet_dw_32_112"]


def pair(v):
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


def load_shapes(path, names):
    with open(path) as f:
        doc = json.load(f)
    found = {s["name"]: s for body in doc["suites"].values() for s in body["shapes"]}
    missing = [n for n in names if n not in found]
    if missing:
        sys.exit("unknown shape(s): " + ", ".join(missing) + f" (in {path})")
    return [found[n] for n in names]


def median_wall_ms(fn, warmup, iterations):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iterations):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def torch_gpu_ms(fn, warmup, iterations):
    return statistics.median(gpu_times_ms(fn, warmup, iterations))


def run_shape(ctx, s, batch, precisions, warmup, iterations, rng):
    kh, kw = pair(s["kernel"])
    g = s.get("groups", 1)
    args = dict(stride=pair(s.get("stride", 1)), padding=pair(s.get("padding", 0)),
                dilation=pair(s.get("dilation", 1)), groups=g)
    x = rng.uniform(-1, 1, (batch, s["in_channels"], s["height"], s["width"])).astype(np.float32)
    w = rng.uniform(-1, 1, (s["out_channels"], s["in_channels"] // g, kh, kw)).astype(np.float32)
    b = rng.uniform(-1, 1, s["out_channels"]).astype(np.float32) if s.get("bias", True) else None

    cuda = torch.device("cuda")
    xd, wd = torch.from_numpy(x).to(cuda), torch.from_numpy(w).to(cuda)
    bd = torch.from_numpy(b).to(cuda) if b is not None else None
    ref = F.conv2d(xd.double(), wd.double(), bd.double() if bd is not None else None, **args)
    ref_norm = torch.linalg.vector_norm(ref).item()

    rows = []
    for precision in precisions:
        t0 = time.perf_counter()
        conv = vkconv.Conv2d(ctx, w, b, precision=precision, input_shape=x.shape, **args)
        plan_ms = (time.perf_counter() - t0) * 1e3
        y = conv(x)
        yd = torch.from_numpy(y).to(cuda).double()
        err = torch.linalg.vector_norm(yd - ref).item() / ref_norm if torch.isfinite(yd).all() else float("inf")
        del yd
        bound = vkconv.error_bound(conv.config().path)
        call_ms = median_wall_ms(lambda: conv(x), warmup, iterations)
        gpu_ms = statistics.median(conv.time(x, warmup, max(iterations, 20)))

        tf32 = precision == "fast"  # fp32 row: strict fp32, as vkconv's fp32 path; fast row: PyTorch's default
        torch.backends.cudnn.allow_tf32 = tf32

        def torch_call():
            out = F.conv2d(torch.from_numpy(x).to(cuda), wd, bd, **args).cpu().numpy()
            torch.cuda.synchronize()
            return out

        torch_call_ms = median_wall_ms(torch_call, warmup, iterations)
        torch_gpu = torch_gpu_ms(lambda: F.conv2d(xd, wd, bd, **args), warmup, max(iterations, 20))
        rows.append(dict(shape=s["name"], batch=batch, precision=precision, path=vkconv.path_name(conv.config().path),
                         config=str(conv.config()), error=err, bound=bound, ok=err <= bound, plan_ms=plan_ms,
                         call_ms=call_ms, gpu_ms=gpu_ms, boundary_ms=call_ms - gpu_ms,
                         torch_call_ms=torch_call_ms, torch_gpu_ms=torch_gpu, torch_tf32=tf32,
                         bytes_copied=x.nbytes + y.nbytes))
        del conv
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default=",".join(DEFAULT_SHAPES), help="names in bench/shapes.json")
    ap.add_argument("--shapes-file", default=os.path.join(HERE, "..", "bench", "shapes.json"))
    ap.add_argument("--batch", type=int, default=0, help="override every shape's batch (default: its GPU batch)")
    ap.add_argument("--precisions", default="fast,fp32")
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--device", type=int, default=None, help="vkconv device index (vkconv.devices())")
    ap.add_argument("--json", default="")
    a = ap.parse_args()

    require_gpu_wait()
    ctx = vkconv.Context(device=a.device)
    print(f"vkconv device: {ctx.device.name} ({ctx.device.driver_name} {ctx.device.driver_info})")
    print(f"torch {torch.__version__}, CUDA device: {torch.cuda.get_device_name()}, cuDNN {torch.backends.cudnn.version()}")
    rng = np.random.default_rng(1)
    rows = []
    header = (f"{'shape':26} {'N':>4} {'prec':5} {'path':11} {'error':>9} {'bound':>6} {'call ms':>9} {'gpu ms':>8} "
              f"{'bound. ms':>9} {'GB/s':>6} {'torch call':>10} {'torch gpu':>9}")
    print(header)
    for s in load_shapes(a.shapes_file, [n for n in a.shapes.split(",") if n]):
        for r in run_shape(ctx, s, a.batch or s["batch"], a.precisions.split(","), a.warmup, a.iterations, rng):
            rows.append(r)
            gbs = r["bytes_copied"] / (r["boundary_ms"] * 1e-3) / 1e9 if r["boundary_ms"] > 0 else float("nan")
            print(f"{r['shape']:26} {r['batch']:4} {r['precision']:5} {r['path']:11} {r['error']:9.2e} {r['bound']:6.0e} "
                  f"{r['call_ms']:9.3f} {r['gpu_ms']:8.3f} {r['boundary_ms']:9.3f} {gbs:6.1f} "
                  f"{r['torch_call_ms']:10.3f} {r['torch_gpu_ms']:9.3f}" + ("" if r["ok"] else "  OVER THE BOUND"),
                  flush=True)
    print("call: y = conv(x) on NumPy arrays, copies included; gpu: the convolution alone; bound. = call - gpu;\n"
          "GB/s: bytes of x and y over bound. ms; torch call: from_numpy(x).cuda(), conv2d, .cpu().numpy()")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(device=ctx.device.name, driver=ctx.device.driver_info, torch=torch.__version__,
                           rows=rows), f, indent=1)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
