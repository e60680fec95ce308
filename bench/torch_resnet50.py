#!/usr/bin/env python3
"""PyTorch's ResNet-50 trunk, the figures vkconv-bench --network resnet50 is compared with:
torchvision's resnet50 from conv1 to layer4 (its max-pool included), eval(), fp16 and
channels-last, cudnn.benchmark on, run three ways: eager, eager captured once and replayed as a
CUDA graph, and torch.compile (default mode). Each pass is timed by CUDA events around it (for
eager that includes whatever time the GPU waits for Python to launch kernels: it is how eager
runs), median of --iterations after --warmup passes.

usage: torch_resnet50.py [--batch 32,1] [--image 224] [--iterations 100] [--json FILE]
"""
import argparse
import json
import statistics

import torch
import torchvision


def trunk(model):
    return torch.nn.Sequential(model.conv1, model.bn1, model.relu, model.maxpool,
                               model.layer1, model.layer2, model.layer3, model.layer4)


def time_passes(fn, warmup, iterations):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iterations):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return {"median": statistics.median(times), "min": min(times), "runs": len(times)}


def cuda_graph(net, x):
    static_x = x.clone()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            net(static_x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        net(static_x)
    return graph.replay


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", default="32,1")
    ap.add_argument("--image", type=int, default=224)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--ways", default="eager,cuda_graph,compile")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(2026)
    model = torchvision.models.resnet50()  # torchvision's own initialisation, no download
    net = trunk(model).eval().half().cuda().to(memory_format=torch.channels_last)
    doc = {"torch_version": torch.__version__, "cudnn_version": torch.backends.cudnn.version(),
           "device": torch.cuda.get_device_name(), "image": args.image,
           "timing": "CUDA events around each pass, median", "results": []}
    with torch.inference_mode():
        for batch in (int(b) for b in args.batch.split(",")):
            x = torch.randn(batch, 3, args.image, args.image, device="cuda", dtype=torch.half)
            x = x.contiguous(memory_format=torch.channels_last)
            for way in args.ways.split(","):
                if way == "eager":
                    fn = lambda: net(x)  # noqa: E731
                elif way == "cuda_graph":
                    fn = cuda_graph(net, x)
                elif way == "compile":
                    compiled = torch.compile(net)
                    fn = lambda: compiled(x)  # noqa: E731
                else:
                    raise SystemExit("unknown way %r" % way)
                try:
                    t = time_passes(fn, args.warmup, args.iterations)
                    r = {"batch": batch, "way": way, "status": "ok", "time_ms": t}
                except Exception as e:  # a way that fails here is reported, not fatal
                    r = {"batch": batch, "way": way, "status": "failed", "message": str(e)[:500]}
                doc["results"].append(r)
                print("batch %3d %-10s %s" % (batch, way, "%.3f ms (median)" % r["time_ms"]["median"]
                                              if r["status"] == "ok" else r["status"] + ": " + r["message"]),
                      flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)


if __name__ == "__main__":
    main()
