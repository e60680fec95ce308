#!/usr/bin/env python3
"""Times torch.nn.functional.conv2d on the shapes of bench/shapes.json (the list vkconv-bench
reads), so that vkconv's figures have a cuDNN baseline measured the same way: warm-up, then at
least 50 timed runs, each between CUDA events, queued behind a GPU wait so that the events time
the GPU's work and not PyTorch's CPU time per call, and the median reported.

Modes (--modes, comma-separated):
  fp32                strict fp32, NCHW (TF32 off: the same arithmetic as vkconv's fp32 path)
  fp32_channels_last  strict fp32, NHWC (channels_last) activations and weights
  tf32                PyTorch's default for convolutions on Ampere and newer (TF32 allowed), NCHW
  fp16_channels_last  fp16 activations and weights, NHWC: the closest to vkconv's fast path
                      (which reads fp32 and multiplies in fp16 with fp32 accumulation)
GB/s always counts fp32 sizes (input + weights + bias + output, as vkconv-bench does), so the
fp16 mode's GB/s is a figure of merit, not the bytes it moved.

--epilogue relu_residual times what a ResNet block's last conv does in PyTorch, y = relu(conv2d(x)
+ b + z), as its eager code runs it (conv2d, then `out += identity`, then an in-place relu), and
beside it cuDNN's own fused conv + add + bias + relu where PyTorch exposes it
(torch.cudnn_convolution_add_relu; reported as the mode with "+fused" appended). vkconv-bench's
`--activation relu --residual` is the same epilogue.
"""
import argparse
import datetime
import json
import os
import sys

import torch
import torch.nn.functional as F

MODES = {
    "fp32": dict(dtype=torch.float32, channels_last=False, tf32=False),
    "fp32_channels_last": dict(dtype=torch.float32, channels_last=True, tf32=False),
    "tf32": dict(dtype=torch.float32, channels_last=False, tf32=True),
    "fp16_channels_last": dict(dtype=torch.float16, channels_last=True, tf32=False),
}


# GPU clock cycles of torch.cuda._sleep before the timed calls: about 50 ms at 2 GHz, longer than
# PyTorch takes to queue the timed calls (at most a few hundred microseconds each).
QUEUE_AHEAD_CYCLES = 100_000_000


def pair(v):
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


def load_shapes(path, suites, shape_names):
    with open(path) as f:
        doc = json.load(f)
    shapes = []
    for suite, body in doc["suites"].items():
        for s in body["shapes"]:
            if (shape_names and s["name"] in shape_names) or (not shape_names and suite in suites):
                shapes.append(dict(s, suite=suite))
    missing = set(shape_names) - {s["name"] for s in shapes}
    if missing:
        sys.exit("unknown shape(s): " + ", ".join(sorted(missing)))
    return shapes


def percentile(sorted_values, q):  # linear interpolation, as numpy and vkconv-bench do
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def problem_figures(s, batch):
    kh, kw = pair(s["kernel"])
    sh, sw = pair(s.get("stride", 1))
    ph, pw = pair(s.get("padding", 0))
    dh, dw = pair(s.get("dilation", 1))
    c, k, g = s["in_channels"], s["out_channels"], s.get("groups", 1)
    oh = (s["height"] + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (s["width"] + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    flops = 2.0 * batch * oh * ow * k * (c // g) * kh * kw
    elements = (batch * c * s["height"] * s["width"] + k * (c // g) * kh * kw
                + (k if s.get("bias", True) else 0) + batch * k * oh * ow)
    return flops, 4.0 * elements


def require_gpu_wait():
    """Exits where this torch cannot queue the timed calls behind a GPU wait (gpu_times_ms)."""
    if not hasattr(torch.cuda, "_sleep"):
        sys.exit("this torch has no torch.cuda._sleep, which the timing needs (see QUEUE_AHEAD_CYCLES)")


def gpu_times_ms(fn, warmup, iterations):
    """fn's GPU time in ms, each of `iterations` calls between CUDA events after `warmup` untimed
    ones, sorted. python/bench_torch.py times PyTorch with it too."""
    for _ in range(warmup):
        fn()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(iterations)]
    # Keep the GPU busy while the timed calls are queued, so that each runs as soon as the one
    # before ends and its events time the GPU's work. Otherwise a call shorter than PyTorch's
    # own CPU time per call (tens of microseconds: batch 1, small layers) leaves the GPU idle
    # between its start event and its kernels, and that idle time would count as cuDNN's.
    # vkconv-bench times its dispatches with GPU timestamps, which count no CPU time either.
    torch.cuda.synchronize()
    torch.cuda._sleep(QUEUE_AHEAD_CYCLES)
    for start, end in events:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return sorted(start.elapsed_time(end) for start, end in events)


def time_mode(s, batch, mode, warmup, iterations, epilogue="", fused=False):
    m = MODES[mode]
    torch.backends.cudnn.allow_tf32 = m["tf32"]
    torch.backends.cuda.matmul.allow_tf32 = m["tf32"]
    fmt = torch.channels_last if m["channels_last"] else torch.contiguous_format
    dev = torch.device("cuda")
    kh, kw = pair(s["kernel"])
    g = s.get("groups", 1)
    x = (torch.rand(batch, s["in_channels"], s["height"], s["width"], device=dev) * 2 - 1)
    w = (torch.rand(s["out_channels"], s["in_channels"] // g, kh, kw, device=dev) * 2 - 1)
    b = (torch.rand(s["out_channels"], device=dev) * 2 - 1) if s.get("bias", True) else None
    x = x.to(dtype=m["dtype"], memory_format=fmt)
    w = w.to(dtype=m["dtype"], memory_format=fmt)
    b = b.to(m["dtype"]) if b is not None else None
    args = dict(stride=pair(s.get("stride", 1)), padding=pair(s.get("padding", 0)),
                dilation=pair(s.get("dilation", 1)), groups=g)
    z = None
    if epilogue == "relu_residual":
        with torch.no_grad():
            out_shape = F.conv2d(x[:1], w, b, **args).shape[1:]
        z = (torch.rand(batch, *out_shape, device=dev) * 2 - 1).to(dtype=m["dtype"], memory_format=fmt)

    def eager():
        y = F.conv2d(x, w, b, **args)
        y += z
        return torch.relu_(y)

    def cudnn_fused():
        return torch.cudnn_convolution_add_relu(x, w, z, 1.0, b, args["stride"], args["padding"], args["dilation"], g)

    fn = (cudnn_fused if fused else eager) if z is not None else (lambda: F.conv2d(x, w, b, **args))
    with torch.no_grad():  # the first warm-up call also runs cudnn.benchmark's algorithm search
        ms = gpu_times_ms(fn, warmup, iterations)
    del x, w, b, z
    return ms


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", default=os.path.join(here, "shapes.json"))
    ap.add_argument("--suite", default="alexnet1,layers", help="comma-separated suites")
    ap.add_argument("--shape", default="", help="comma-separated shape names (instead of suites)")
    ap.add_argument("--modes", default="fp32,fp32_channels_last", help=",".join(MODES))
    ap.add_argument("--batch", type=int, default=0, help="override every shape's batch")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--json", default="", help="write the results to this file")
    ap.add_argument("--epilogue", default="", choices=("", "relu_residual"),
                    help="relu_residual: relu(conv2d(x) + b + z), eager and cuDNN's fused op")
    a = ap.parse_args()
    modes = [m for m in a.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            sys.exit("unknown mode %s (known: %s)" % (m, ", ".join(MODES)))
    if a.iterations < 50 or a.warmup < 5:
        print("WARNING: fewer than 5 warm-up or 50 timed runs: not benchmark grade")
    if not torch.cuda.is_available():
        sys.exit("torch sees no CUDA device")
    require_gpu_wait()
    torch.backends.cudnn.benchmark = True
    shapes = load_shapes(a.shapes, a.suite.split(","), [n for n in a.shape.split(",") if n])

    run = dict(tool="torch_conv_reference.py",
               date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
               torch_version=torch.__version__, cuda_version=torch.version.cuda,
               cudnn_version=torch.backends.cudnn.version(),
               device=torch.cuda.get_device_name(0), shapes_file=a.shapes, modes=modes,
               cudnn_benchmark=True, warmup=a.warmup, iterations=a.iterations,
               timing="CUDA events around each call, the calls queued behind torch.cuda._sleep(%d)"
                      % QUEUE_AHEAD_CYCLES,
               meets_run_minimums=a.iterations >= 50 and a.warmup >= 5, epilogue=a.epilogue, results=[])
    print("torch %s, CUDA %s, cuDNN %s, %s" % (run["torch_version"], run["cuda_version"],
                                              run["cudnn_version"], run["device"]))
    print("%-30s %-20s %10s %8s %8s %8s" % ("name", "mode", "median ms", "spread", "TFLOP/s", "GB/s"))
    for s in shapes:
        batch = a.batch or s["batch"]
        flops, min_bytes = problem_figures(s, batch)
        variants = [(m, False) for m in modes] + ([(m, True) for m in modes] if a.epilogue else [])
        for mode, fused in variants:
            r = dict(name=s["name"], suite=s["suite"], mode=mode + ("+fused" if fused else ""), batch=batch,
                     flops=flops, min_bytes=min_bytes)
            try:
                ms = time_mode(s, batch, mode, a.warmup, a.iterations, a.epilogue, fused)
                med = percentile(ms, 0.5)
                r.update(status="ok", spread=(percentile(ms, 0.9) - percentile(ms, 0.1)) / med,
                         time_ms=dict(runs=len(ms), median=med, min=ms[0], max=ms[-1],
                                      p10=percentile(ms, 0.1), p90=percentile(ms, 0.9)),
                         tflops=flops / (med * 1e-3) / 1e12, gbps=min_bytes / (med * 1e-3) / 1e9)
                print("%-30s %-20s %10.4f %8.3f %8.2f %8.1f" % (s["name"], r["mode"], med, r["spread"],
                                                               r["tflops"], r["gbps"]))
            except (RuntimeError, AttributeError) as e:  # out of memory, an op this PyTorch lacks: record it
                r.update(status="failed", message=str(e).split("\n")[0])
                print("%-30s %-20s failed: %s" % (s["name"], r["mode"], r["message"]))
                torch.cuda.empty_cache()
            run["results"].append(r)
            if a.json:  # rewritten after every measurement, so a run cut short keeps its results
                with open(a.json + ".tmp", "w") as f:
                    json.dump(run, f, indent=1)
                os.replace(a.json + ".tmp", a.json)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
