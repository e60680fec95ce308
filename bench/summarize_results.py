#!/usr/bin/env python3
"""Prints the summary of a results folder that bench/gpu/check.sh leaves: each step's verdict with
the GPU's clocks while it ran (nvidia-smi.csv), the test suite's counts, failures and validation
messages (tests.json, tests.log), each sweep's choices against its fastest (sweep*.json), then
one table of vkconv-bench's JSON files (fast and fp32 precision) and torch_conv_reference.py's,
one row per shape, and per suite the geometric means of vkconv fast's time over each torch mode's
and, for network suites (shapes with a count), the network's sums. Parts whose files are absent
are left out.

usage: summarize_results.py DIR
"""
import datetime
import glob
import json
import math
import os
import re
import statistics
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


def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None


def gpu_samples(folder):
    """nvidia-smi.csv rows as (unix time, SM MHz, memory MHz, pstate, temperature C, watts)."""
    text = read_text(os.path.join(folder, "nvidia-smi.csv"))
    samples = []
    for line in (text or "").splitlines()[1:]:
        f = [x.strip() for x in line.split(",")]
        if len(f) < 6:
            continue
        try:
            t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
            num = lambda v: float(v.split()[0])
            samples.append((t, num(f[1]), num(f[2]), f[3], num(f[4]), num(f[5])))
        except (ValueError, IndexError):
            continue
    return samples


def print_steps(folder):
    """One line per step of steps.tsv, with the SM clock and temperature while it ran."""
    text = read_text(os.path.join(folder, "steps.tsv"))
    if not text:
        return
    samples = gpu_samples(folder)
    print("%-22s %-45s %6s  %s" % ("step", "verdict", "s", "SM MHz min/median/max, pstates, max C, max W"))
    for line in text.splitlines():
        name, verdict, secs, t0, t1 = (line.split("\t") + ["-"] * 5)[:5]
        gpu = ""
        try:
            inside = [s for s in samples if float(t0) <= s[0] <= float(t1)]
        except ValueError:
            inside = []
        if inside:
            sm = [s[1] for s in inside]
            gpu = "%.0f/%.0f/%.0f, %s, %.0f C, %.0f W" % (
                min(sm), statistics.median(sm), max(sm), "/".join(sorted({s[3] for s in inside})),
                max(s[4] for s in inside), max(s[5] for s in inside))
        print("%-22s %-45s %6s  %s" % (name, verdict, secs, gpu))
    print()


def print_tests(folder):
    """The suite's counts, its failed cases and the validation messages among them."""
    log = read_text(os.path.join(folder, "tests.log"))
    if log is None:
        return
    layer = re.findall(r"validation layer: (.*)", log)
    print("validation layer: " + (layer[-1] if layer else "(the portability summary did not print)"))
    doc = load(os.path.join(folder, "tests.json")) if os.path.exists(
        os.path.join(folder, "tests.json")) else None
    failed, messages, reasons = [], [], {}
    if doc:
        skipped = ran = 0
        for suite in doc.get("testsuites", []):
            for case in suite.get("testsuite", []):
                if case.get("result") == "SKIPPED":
                    skipped += 1
                    continue
                if case.get("status") != "RUN":
                    continue
                ran += 1
                text = "\n".join(f.get("failure", "") for f in case.get("failures", []))
                if case.get("failures"):
                    failed.append(suite["name"] + "." + case["name"])
                    # The message without gtest's "file:line" lines, on one line.
                    reasons[failed[-1]] = " | ".join(
                        line.strip() for line in text.splitlines()
                        if line.strip() and not re.match(r"^\S+:\d+$", line.strip()))
                    if "validation message" in text.lower():
                        found = re.findall(r"last(?: validation message)?: (.*)", text)
                        messages.append((failed[-1], found[-1] if found else text.strip()))
        print("tests: %d passed, %d failed, %d skipped (%s)" % (
            ran - len(failed), len(failed), skipped, doc.get("time", "?")))
    else:
        failed = sorted(set(re.findall(r"^\[  FAILED  \] (\S+)", log, re.M)))
        print("tests: the suite did not finish (no tests.json); %d failed before it stopped" % len(failed))
    print("validation messages: %d failed case(s) with validation messages" % len(messages))
    for name, message in messages[:10]:
        print("  %s: %s" % (name, message[:300]))
    for name in failed[:20]:
        print("  FAILED %s: %s" % (name, reasons.get(name, "")[:240]))
    if len(failed) > 20:
        print("  ... and %d more (tests.log)" % (len(failed) - 20))
    print()


def print_python(folder):
    """The Python module against PyTorch (check.sh --python): bench_torch.py's own table."""
    text = read_text(os.path.join(folder, "python_bench.log"))
    if text is None:
        return
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("vkconv device:")), None)
    print("python module (python/bench_torch.py):")
    for line in (lines[start:] if start is not None else lines[-20:]):
        print("  " + line)
    print()


def print_sweeps(folder, within=0.05):
    """Per sweep JSON file (`vkconv sweep --json`): the heuristic's choice (the sweep's default,
    with --no-tuning-cache) against the fastest configuration, as the sweep re-timed them after
    the candidates (its leaders: the default and the fastest first timings), else as first
    timed; the problems where the choice is more than 5% behind, and how many are within it."""
    for path in sorted(glob.glob(os.path.join(folder, "sweep*.json"))):
        doc = load(path)
        if not doc:
            continue
        misses, total = [], 0
        for problem in doc.get("problems", []):
            for p in problem.get("paths", []):
                first = {r["name"]: r["timing"]["median_ms"] for r in p.get("results", [])
                         if r.get("status") == "ok" and "timing" in r}
                again = {l["name"]: l["again"]["median_ms"] for l in p.get("leaders", [])}
                times = again or first
                default = p.get("default", {}).get("name")
                if not times or default not in times:
                    continue
                total += 1
                best = min(times, key=times.get)
                behind = times[default] / times[best] - 1
                if behind > within:
                    misses.append("  %s (%s): %.4f ms, %.1f%% behind %s at %.4f" % (
                        problem["name"], p["path"], times[default], behind * 100, best, times[best]))
        print("%s: the heuristic's choice within %.0f%% of the fastest timed on %d of %d" % (
            os.path.basename(path), within * 100, total - len(misses), total))
        for line in misses:
            print(line)


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "."
    for line in (read_text(os.path.join(folder, "vulkan.txt")) or "").splitlines():
        print(line)
    for line in (read_text(os.path.join(folder, "gpu.txt")) or "").splitlines():
        print(line)
    print()
    print_steps(folder)
    print_tests(folder)
    print_python(folder)
    print_sweeps(folder)
    print_network(folder)
    vk = {}        # (precision, name) -> result
    order = []     # shape names in first-seen order
    header = []
    for path in sorted(glob.glob(os.path.join(folder, "vkconv_*.json"))):
        if os.path.basename(path).startswith("vkconv_network_"):
            continue  # print_network's
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
            vk[(variant(doc, r), r["name"])] = r
            if r["name"] not in order:
                order.append(r["name"])
    torch_results, modes = {}, []
    doc = load(os.path.join(folder, "torch.json")) if os.path.exists(
        os.path.join(folder, "torch.json")) else None
    if doc:
        modes = doc["modes"]
        # Runs before the GPU wait (f184953) timed each call from an idle GPU: say which it was.
        timing = doc.get("timing", "events around each call from an idle GPU (PyTorch's CPU time counted)")
        header.append("torch %s, cuDNN %s, %s (cudnn.benchmark on; %s)" % (
            doc["torch_version"], doc["cudnn_version"], doc["device"], timing))
        for r in doc["results"]:
            torch_results[(r["mode"], r["name"])] = r
            if r["name"] not in order:
                order.append(r["name"])
    if not order:
        return 0

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
    print_suite_summary(vk, torch_results, modes, mismatched)
    print_tensor_summary(vk, torch_results, mismatched)
    print_precise_summary(vk, torch_results, mismatched)
    return 0


def variant(doc, r):
    """What a vkconv-bench result ran as: its precision ("fast", "fp32"), then its tensors' formats
    where they are not fp32 NCHW ("fast f16/nhwc") and "+epilogue" where the problem has a fused
    epilogue beyond the bias (bench/gpu/check.sh --bench-tensors, --bench-epilogue)."""
    v = doc["precision"]
    p = r.get("problem", {})
    formats = {p.get("input_format", "f32/nchw"), p.get("output_format", "f32/nchw")} - {"f32/nchw"}
    if formats:
        v += " " + p.get("input_format", "f32/nchw")
    words = r.get("problem_str", "").split()
    tail = words[next((i for i, w in enumerate(words) if w.startswith("bias=")), len(words)) + 1:]
    if [w for w in tail if not w.startswith(("in=", "out="))]:
        v += "+epilogue"
    return v


def print_network(folder):
    """vkconv-bench --network resnet50 against bench/torch_resnet50.py, batch by batch: the trunk's
    GPU time (vkconv: the 53 convolutions, the max-pool left out; torch: its whole trunk) and the
    ratios to eager and to the fastest of the three ways (issue #59's targets)."""
    torch_doc = load(os.path.join(folder, "torch_resnet50.json")) if os.path.exists(
        os.path.join(folder, "torch_resnet50.json")) else None
    ways = {}
    for r in (torch_doc or {}).get("results", []):
        if r.get("status") == "ok":
            ways.setdefault(r["batch"], {})[r["way"]] = r["time_ms"]["median"]
    lines = []
    for path in sorted(glob.glob(os.path.join(folder, "vkconv_network_*.json"))):
        doc = load(path)
        if not doc:
            continue
        vk = doc["total_gpu_ms"]
        line = "batch %d: vkconv %.3f ms (trunk %.3f + stem %.3f; plan %.0f ms, record %.3f ms CPU, submit %.1f us CPU)" % (
            doc["batch"], vk, doc["trunk_gpu_ms"]["median"], doc["stem_gpu_ms"]["median"], doc["plan_ms"],
            doc["record_ms"], doc["submit_us_median"])
        t = ways.get(doc["batch"], {})
        if t:
            line += "; torch " + ", ".join("%s %.3f" % (w, v) for w, v in sorted(t.items()))
            if "eager" in t:
                line += "; vkconv / eager %.3f" % (vk / t["eager"])
            line += ", / fastest %.3f" % (vk / min(t.values()))
        lines.append(line)
    if lines:
        print("ResNet-50 trunk, fp16 NHWC:")
        for line in lines:
            print("  " + line)


def print_tensor_summary(vk, torch_results, mismatched):
    """vkconv fast with fp16 NHWC tensors in and out against PyTorch's fp16 channels-last, per
    suite: the geometric mean of the time ratios over all shapes, the dense and the grouped ones,
    and the shapes above 1.0 among the 1x1 and the grouped ones (issue #58's targets)."""
    by_suite = {}
    for (v, name), r in vk.items():
        if v == "fast f16/nhwc" and r.get("status") == "ok" and name not in mismatched:
            t = torch_results.get(("fp16_channels_last", name))
            if t and t.get("status") == "ok":
                by_suite.setdefault(r.get("suite", "?"), []).append((r, r["time_ms"]["median"] / t["time_ms"]["median"]))
    if not by_suite:
        return
    print("fp16 NHWC in and out, vkconv fast / torch fp16_channels_last:")
    for suite, rows in by_suite.items():
        dense = [x for r, x in rows if r["problem"].get("groups", 1) == 1]
        grouped = [x for r, x in rows if r["problem"].get("groups", 1) != 1]
        parts = ["all %d %.3f" % (len(rows), geomean([x for _, x in rows]))]
        if dense and grouped:
            parts += ["dense %d %.3f" % (len(dense), geomean(dense)), "grouped %d %.3f" % (len(grouped), geomean(grouped))]
        above = ["%s %.2f" % (r["name"], x) for r, x in rows
                 if x > 1.0 and (r["problem"]["kernel"] == [1, 1] or r["problem"].get("groups", 1) != 1)]
        print("  %s: %s; 1x1 or grouped above 1.0: %s" % (suite, ", ".join(parts), ", ".join(above) or "none"))


def print_precise_summary(vk, torch_results, mismatched):
    """vkconv precise against PyTorch's strict fp32 (cudnn.allow_tf32 off), per suite: the geometric
    mean of the time ratios and the worst checked error (issue #60's targets)."""
    by_suite = {}
    for (v, name), r in vk.items():
        if v == "precise" and r.get("status") == "ok" and name not in mismatched:
            t = torch_results.get(("fp32", name))
            if t and t.get("status") == "ok":
                by_suite.setdefault(r.get("suite", "?"), []).append((r, r["time_ms"]["median"] / t["time_ms"]["median"]))
    if by_suite:
        print("precise, vkconv / torch strict fp32:")
        for suite, rows in by_suite.items():
            print("  %s: %d shapes, geometric mean %.3f, worst relative error %.2e" % (
                suite, len(rows), geomean([x for _, x in rows]), max((r.get("rel_error") or 0) for r, _ in rows)))


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def print_suite_summary(vk, torch_results, modes, mismatched):
    """Per suite of vkconv fast's results, against each torch mode: the geometric mean of the time
    ratios (over all its shapes, and over the dense and the grouped ones where it has both), how
    many shapes vkconv fast beats TF32 on, and, where shapes carry a count (how often each runs in
    one pass of its network), the network's sums: each shape's time times its count."""
    by_suite = {}
    for (precision, name), r in vk.items():
        if precision == "fast" and r.get("status") == "ok" and name not in mismatched:
            by_suite.setdefault(r.get("suite", "?"), []).append(r)
    lines = []
    for suite, results in by_suite.items():
        paired = [(r, {m: torch_results.get((m, r["name"])) for m in modes}) for r in results]
        paired = [(r, t) for r, t in paired if all(x and x.get("status") == "ok" for x in t.values())]
        if not paired or not modes:
            continue
        dense = [(r, t) for r, t in paired if r["problem"].get("groups", 1) == 1]
        parts = [("all", paired)]
        if 0 < len(dense) < len(paired):
            parts += [("dense", dense), ("grouped", [(r, t) for r, t in paired if r["problem"].get("groups", 1) != 1])]
        for label, rows in parts:
            fast = [r["time_ms"]["median"] for r, _ in rows]
            means = ", ".join("%s %.3f" % (m, geomean([f / t[m]["time_ms"]["median"] for f, (_, t) in zip(fast, rows)]))
                              for m in modes)
            faster = ""
            if "tf32" in modes:
                faster = ", faster than tf32 on %d" % sum(f <= t["tf32"]["time_ms"]["median"] for f, (_, t) in zip(fast, rows))
            lines.append("%s, %s %d shapes: fast / torch geometric mean %s%s" % (suite, label, len(rows), means, faster))
        if any(r.get("count", 1) > 1 for r, _ in paired):
            total = sum(r["time_ms"]["median"] * r.get("count", 1) for r, _ in paired)
            sums = ", ".join("%s %.3f (fast / it %.3f)" % (
                m, sum(t[m]["time_ms"]["median"] * r.get("count", 1) for r, t in paired),
                total / sum(t[m]["time_ms"]["median"] * r.get("count", 1) for r, t in paired)) for m in modes)
            lines.append("%s, one pass (%d convolutions of %d shapes): fast %.3f ms; torch %s" % (
                suite, sum(r.get("count", 1) for r, _ in paired), len(paired), total, sums))
    if lines:
        print("suite summary (shapes with every torch mode timed):")
        for line in lines:
            print("  " + line)


if __name__ == "__main__":
    sys.exit(main())
