#!/usr/bin/python3
"""Fuzz test of the vkconv command-line tool, with a fixed seed.

`vkconv run` with random problem flags (mostly small values, often a value at or past a cap, a
product past int64, or a negative or zero one) and random warm-up and iteration counts: every
invocation must either exit 0 with a passing check ("PASS"), or exit non-zero (below 128) with exactly one stderr line
starting "vkconv: error:". A signal, a crash, a hang (timeout) or any other exit is a failure.

Then the files the tool reads: `.npy` inputs of every dtype NumPy writes (each byte order, object
arrays, structured and string dtypes, zero-size and huge shapes, damaged headers), a tuning cache
and a shapes file nested past any vkconv format or larger than its limit, and byte noise in each:
the same verdicts apply (with a tuning cache vkconv cannot read, the run goes on and warns).

    python3 fuzz_cli.py path/to/vkconv [--runs N] [--seed S]
"""
import argparse
import random
import os
import subprocess
import sys
import tempfile
import time

ERROR_PREFIX = "vkconv: error:"
EXTREMES = [0, -1, 1, 2, 4096, (1 << 24) - 1, 1 << 24, (1 << 24) + 1, 1 << 31, (1 << 62), (1 << 63) - 1,
            -(1 << 63), 99999999999999999999]
FIELDS = ["--batch", "--in-channels", "--height", "--width", "--out-channels", "--groups"]
PAIRS = ["--kernel", "--stride", "--padding", "--dilation"]


def value(rng):
    r = rng.random()
    if r < 0.75:
        return rng.randint(1, 6)
    if r < 0.95:
        return rng.choice(EXTREMES)
    return rng.randint(-(1 << 62), 1 << 62)


def invocation(rng):
    # A small valid problem, then a few flags drawn from the distribution above.
    args = {"--batch": "1", "--in-channels": "4", "--height": "8", "--width": "8", "--out-channels": "8",
            "--kernel": "3", "--stride": "1", "--padding": "1", "--dilation": "1", "--groups": "1"}
    if rng.random() < 0.3:
        # Fields each within their 2^24 cap whose products (elements, GEMM K) are not: the
        # cases that wrapped to 0 or to a small size before the checks were 128-bit.
        for flag in rng.sample(FIELDS[:5] + ["--kernel"], rng.randint(2, 4)):
            args[flag] = str(rng.randint(1 << 12, 1 << 24))
        args["--padding"] = "0"
        args["--kernel"] = args["--kernel"] if int(args["--kernel"]) <= 8 else "1,%s" % args["--kernel"]
        if args["--kernel"].startswith("1,"):
            args["--padding"] = "0,%d" % ((int(args["--kernel"][2:]) + 1) // 2)
    else:
        for flag in rng.sample(FIELDS + PAIRS, rng.randint(1, 4)):
            if flag in PAIRS and rng.random() < 0.5:
                args[flag] = "%d,%d" % (value(rng), value(rng))
            else:
                args[flag] = str(value(rng))
    out = ["run", "--precision", rng.choice(["fp32", "fast"])]
    for flag, v in args.items():
        out += [flag, v]
    r = rng.random()
    if r < 0.8:
        out += ["--iterations", "0"]
    elif r < 0.9:
        out += ["--iterations", str(rng.choice([1, 2, 10001, 2147483647, -1])),
                "--warmup", str(rng.choice([0, 1, 10001, 2147483647, -5]))]
    else:
        out += ["--iterations", "1", "--warmup", str(rng.choice([0, 2147483647]))]
    return out


def npy_cases(tmp, rng):
    """(label, args) pairs: `vkconv run` on .npy files of every dtype NumPy writes, and damaged ones."""
    try:
        import numpy as np
    except ImportError:
        in_ci = os.environ.get("CI", "") not in ("", "0", "false", "no", "off")
        print("%s: NumPy is missing: the .npy cases cannot be written" % ("FAIL" if in_ci else "SKIPPED"))
        if in_ci:
            sys.exit(1)
        return []
    w = os.path.join(tmp, "w.npy")
    np.save(w, np.ones((2, 2, 3, 3), np.float32))
    dtypes = ["?", "b", "B", "i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8", "g", "c8", "c16", "G",
              "M8[s]", "m8[s]", "U4", "S4", "V4", "O", [("a", "<f4"), ("b", "<i4")]]
    cases = []
    for i, dt in enumerate(dtypes):
        for order in ("<", ">"):
            name = os.path.join(tmp, "x_%d%s.npy" % (i, "le" if order == "<" else "be"))
            try:
                d = np.dtype(dt)
                d = d.newbyteorder(order) if d.byteorder not in ("|",) and d.fields is None else d
                a = np.zeros((1, 2, 6, 6), d) if d.kind != "O" else np.array([[[[1.0] * 6] * 6] * 2], dtype=object)
                np.save(name, a, allow_pickle=True)
            except (TypeError, ValueError):
                continue
            cases.append(("npy dtype %s" % d.str, ["run", "--input", name, "--weight", w, "--precision", "fp32",
                                                   "--iterations", "0"]))
    base = os.path.join(tmp, "x_good.npy")
    np.save(base, np.ones((1, 2, 6, 6), np.float32))
    with open(base, "rb") as f:
        good = f.read()
    damaged = {
        "zero-size": None,
        "header length past the file": good[:8] + b"\xff\xff" + good[10:],
        "version 2 header length 4 GiB": b"\x93NUMPY\x02\x00\xff\xff\xff\xff" + good[10:],
        "shape past int64": good.replace(b"(1, 2, 6, 6)", b"(99999999999999999999, 2, 6, 6)"[:12]),
        "header noise": bytes(b ^ (0x41 if 10 <= i < 60 and rng.random() < 0.2 else 0) for i, b in enumerate(good)),
    }
    for label, data in damaged.items():
        name = os.path.join(tmp, "x_%s.npy" % label.replace(" ", "_"))
        if data is None:
            np.save(name, np.zeros((1, 0, 6, 6), np.float32))
        else:
            with open(name, "wb") as f:
                f.write(data)
        cases.append(("npy " + label, ["run", "--input", name, "--weight", w, "--precision", "fp32",
                                       "--iterations", "0"]))
    return cases


def json_cases(tmp, rng):
    """(label, args) pairs: a tuning cache and a shapes file nested deep, oversized, or noisy."""
    small = ["--batch", "1", "--in-channels", "2", "--height", "6", "--width", "6", "--out-channels", "2",
             "--kernel", "3", "--precision", "fp32", "--iterations", "0"]
    texts = {
        "nested 100000 deep": "[" * 100000 + "]" * 100000,
        "nested 33 deep": "{\"format\": \"vkconv tuning cache\", \"version\": 2, \"devices\": " + "[" * 33 + "]" * 33 + "}",
        "70 MB": "\"" + "x" * (70 << 20) + "\"",
        "noise": "".join(chr(rng.randint(1, 255)) for _ in range(4096)),
        "version 2^64-1": "{\"format\": \"vkconv tuning cache\", \"version\": 18446744073709551615, \"devices\": {}}",
    }
    cases = []
    for label, text in texts.items():
        folder = os.path.join(tmp, "cache_" + label.replace(" ", "_").replace("^", ""))
        os.makedirs(folder)
        with open(os.path.join(folder, "tuning.json"), "w") as f:
            f.write(text)
        cases.append(("tuning cache " + label, ["run"] + small + ["--cache-dir", folder]))
        shapes = os.path.join(tmp, "shapes_%s.json" % label.replace(" ", "_").replace("^", ""))
        with open(shapes, "w") as f:
            f.write(text)
        cases.append(("shapes file " + label, ["run", "--shapes", shapes, "--shape", "alexnet1", "--iterations", "0"]))
    return cases


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vkconv")
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=18)
    opts = parser.parse_args()
    rng = random.Random(opts.seed)
    # A private cache folder unless the caller chose one: never the user's ~/.cache/vkconv.
    private = tempfile.TemporaryDirectory(prefix="vkconv_cli_fuzz_")
    os.environ.setdefault("VKCONV_CACHE_DIR", private.name)
    failures, passed, refused = [], 0, 0
    start = time.time()
    files = npy_cases(private.name, rng) + json_cases(private.name, rng)
    draws = [("vkconv " + " ".join(a), a) for a in (invocation(rng) for _ in range(opts.runs))]
    for i, (label, args) in enumerate(draws + files):
        try:
            res = subprocess.run([opts.vkconv] + args, capture_output=True, text=True, errors="replace", timeout=120)
        except subprocess.TimeoutExpired:
            failures.append("%s: no answer within 120 s" % label)
            continue
        lines = [l for l in res.stderr.splitlines() if l.strip() and not l.startswith("vkconv: warning:")]
        if "\ufffd" in res.stdout + res.stderr:
            failures.append("%s: wrote bytes that are not UTF-8 (a file's raw bytes in a message)" % label)
        if res.returncode == 0 and "PASS" in res.stdout and not lines:
            passed += 1
            verdict = "ok (ran, PASS)"
        elif 0 < res.returncode < 128 and len(lines) == 1 and lines[0].startswith(ERROR_PREFIX):
            refused += 1
            verdict = "ok (" + lines[0][:100] + ")"
        else:
            how = ("killed by signal %d" % -res.returncode if res.returncode < 0 else
                   "exit %d" % res.returncode)
            failures.append("%s: %s\nstdout:\n%s\nstderr:\n%s" % (label, how, res.stdout[-2000:], res.stderr[-2000:]))
            verdict = "FAIL: " + how
        print("%3d %s\n    %s" % (i, label, verdict), flush=True)
    print("%d run and passed, %d refused with one error line, %d failed (%.1f s)" % (
        passed, refused, len(failures), time.time() - start))
    for f in failures:
        print("FAIL: " + f)
    if failures or passed == 0 or refused == 0:
        if not failures:
            print("FAIL: the draws must include both runs and refusals")
        sys.exit(1)


if __name__ == "__main__":
    main()
