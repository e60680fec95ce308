#!/usr/bin/env python3
"""Prints one compact table from the JSON files bench/run_h200.sh leaves in a results folder:
vkconv-bench's (fast and fp32 precision) and torch_conv_reference.py's, one row per shape.

usage: summarize_results.py DIR
"""
import glob
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print("(could not read %s: %s)" % (path, e))
        return None


def cell(r, key="median"):
    if r is None:
        return "-"
    if r.get("status") != "ok":
        return r.get("status", "?")
    return "%.4g" % r["time_ms"][key]


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "."
    vk = {}        # (precision, name) -> result
    order = []     # shape names in first-seen order
    header = []
    for path in sorted(glob.glob(os.path.join(folder, "vkconv_*.json"))):
        doc = load(path)
        if not doc:
            continue
        if not header:
            d = doc["device"]
            header.append("device: %s (%s %s), vkconv %s, %s" % (
                d["name"], d["driver_name"], d["driver_info"], doc["vkconv_commit"], doc["date"]))
            c = doc.get("copy_bandwidth", {})
            header.append("copy bandwidth: %.0f GB/s (read+write, %d MiB buffers)" % (
                c.get("gbps", 0), c.get("bytes", 0) // 1048576))
        if not doc.get("meets_run_minimums", True):
            header.append("WARNING: %s has fewer than 5 warm-up or 50 timed runs" % path)
        for r in doc["results"]:
            vk[(doc["precision"], r["name"])] = r
            if r["name"] not in order:
                order.append(r["name"])
    torch_results, modes = {}, []
    doc = load(os.path.join(folder, "torch.json")) if os.path.exists(
        os.path.join(folder, "torch.json")) else None
    if doc:
        modes = doc["modes"]
        header.append("torch %s, cuDNN %s, %s (cudnn.benchmark on)" % (
            doc["torch_version"], doc["cudnn_version"], doc["device"]))
        for r in doc["results"]:
            torch_results[(r["mode"], r["name"])] = r
            if r["name"] not in order:
                order.append(r["name"])
    if not order:
        print("no results in %s" % folder)
        return 1

    short = {"fp32": "t.fp32", "fp32_channels_last": "t.fp32cl", "tf32": "t.tf32",
             "fp16_channels_last": "t.fp16cl"}
    cols = ["name", "N", "fast ms", "TFLOP/s", "x-floor", "fp32 ms", "x-floor"]
    cols += [short.get(m, m) + " ms" for m in modes] + (["best torch/fast"] if modes else [])
    rows, mismatched = [], set()
    for name in order:
        fast, fp32 = vk.get(("fast", name)), vk.get(("fp32", name))
        any_vk = fast or fp32
        batch = any_vk["problem"]["batch"] if any_vk else next(
            (r["batch"] for (m, n), r in torch_results.items() if n == name), "-")
        row = [name, str(batch), cell(fast),
               "%.1f" % fast["tflops"] if fast and fast.get("status") == "ok" else "-",
               "%.2f" % fast["x_floor"] if fast and fast.get("x_floor") else "-",
               cell(fp32), "%.2f" % fp32["x_floor"] if fp32 and fp32.get("x_floor") else "-"]
        best = None
        for m in modes:
            t = torch_results.get((m, name))
            if t and any_vk and t["batch"] != batch:  # not the same problem: no comparison
                mismatched.add(name)
                t = None
            row.append(cell(t))
            if t and t.get("status") == "ok":
                best = min(best or 1e30, t["time_ms"]["median"])
        if modes:
            ok = fast and fast.get("status") == "ok" and best
            row.append("%.2f" % (best / fast["time_ms"]["median"]) if ok else "-")
        rows.append(row)
    width = [max(len(str(r[i])) for r in rows + [cols]) for i in range(len(cols))]
    print("\n".join(header))
    print("  ".join(c.rjust(width[i]) if i else c.ljust(width[i]) for i, c in enumerate(cols)))
    for r in rows:
        print("  ".join(str(c).rjust(width[i]) if i else str(c).ljust(width[i])
                        for i, c in enumerate(r)))
    if mismatched:
        print("torch ran another batch than vkconv for: " + ", ".join(sorted(mismatched)))
    print("ms = median; x-floor = time / (min bytes / copy bandwidth); "
          "best torch/fast > 1 means vkconv fast is faster than the best torch mode")
    return 0


if __name__ == "__main__":
    sys.exit(main())
