#!/usr/bin/python3
"""Draws vkconv's time per layer against cuDNN's modes and the layer's floors, from one GPU run's
JSON files (bench/gpu/check.sh --bench leaves them in json/): each layer's times as a fraction of
cuDNN TF32's (PyTorch's default), on a log scale, cheapest at the left.

    /usr/bin/python3 bench/plot_layers.py VKCONV_FAST.json TORCH.json -o docs/layers.png \
        [--peak-tflops 989] [--title "..."]

The memory floor is vkconv-bench's floor_ms (each tensor moved once at the measured copy
bandwidth); the compute floor, with --peak-tflops, the layer's flops at that rate. Needs
matplotlib (Debian: python3-matplotlib).
"""
import argparse
import json
import math
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot_layers.py needs matplotlib: apt-get install python3-matplotlib")

MODES = [("tf32", "cuDNN TF32"), ("fp16_channels_last", "cuDNN fp16 channels-last"), ("fp32", "cuDNN strict fp32")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vkconv")
    ap.add_argument("torch")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--peak-tflops", type=float, default=0, help="the GPU's dense fp16 matrix peak")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    with open(a.vkconv) as f:
        vk = json.load(f)
    with open(a.torch) as f:
        th = json.load(f)
    torch_ms = {(r["name"], r["mode"]): r["time_ms"]["median"] for r in th["results"] if r.get("status") == "ok"}
    rows = []
    for r in vk["results"]:
        name = r["name"]
        tf32 = torch_ms.get((name, "tf32"))
        if r.get("status", "ok") != "ok" or "time_ms" not in r or not tf32:
            continue
        row = {"name": name, "vkconv": r["time_ms"]["median"] / tf32, "floor": r.get("floor_ms", 0) / tf32}
        if a.peak_tflops and r.get("tflops"):
            # flops = tflops * median; at the peak they take flops / peak.
            row["compute"] = r["tflops"] * r["time_ms"]["median"] / a.peak_tflops / tf32
        for mode, _ in MODES[1:]:
            if (name, mode) in torch_ms:
                row[mode] = torch_ms[(name, mode)] / tf32
        rows.append(row)
    if not rows:
        sys.exit("no layer has both a vkconv time and a cuDNN TF32 time")
    rows.sort(key=lambda x: x["vkconv"])
    fig, ax = plt.subplots(figsize=(11, 0.28 * len(rows) + 2.2))
    y = list(range(len(rows)))
    ax.barh(y, [x["vkconv"] for x in rows], color="#2b6cb0", label="vkconv fast")
    ax.scatter([x.get("fp16_channels_last", math.nan) for x in rows], y, marker="o", color="#dd6b20", s=18,
               label="cuDNN fp16 channels-last", zorder=3)
    ax.scatter([x.get("fp32", math.nan) for x in rows], y, marker="s", color="#718096", s=14,
               label="cuDNN strict fp32", zorder=3)
    ax.scatter([x["floor"] for x in rows], y, marker="|", color="black", s=120, label="memory floor", zorder=3)
    if a.peak_tflops:
        ax.scatter([x.get("compute", math.nan) for x in rows], y, marker="x", color="#c53030", s=22,
                   label="compute floor (%g TFLOP/s; off the left edge: memory-bound)" % a.peak_tflops, zorder=3)
    ax.axvline(1.0, color="#2f855a", linewidth=1.2, label="cuDNN TF32 (= 1)")
    ax.set_xscale("log")
    # Depthwise layers' compute floors lie far left of everything else: they are memory-bound.
    ax.set_xlim(0.03, 6)
    ax.set_yticks(y)
    ax.set_yticklabels([x["name"] for x in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("time / cuDNN TF32's time (log scale; lower is faster)")
    geo = math.exp(sum(math.log(x["vkconv"]) for x in rows) / len(rows))
    ax.set_title(a.title or "%s, vkconv %s: %d layers, geometric mean %.3f of cuDNN TF32" % (
        vk["device"]["name"], vk.get("vkconv_commit", "?")[:7], len(rows), geo), fontsize=9)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.05), ncol=3, frameon=False)
    ax.grid(axis="x", which="both", alpha=0.25)
    fig.tight_layout()
    fig.savefig(a.output, dpi=110)
    print("wrote %s: %d layers, vkconv fast %.3f of cuDNN TF32 (geometric mean)" % (a.output, len(rows), geo))


if __name__ == "__main__":
    main()
