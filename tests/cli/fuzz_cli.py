#!/usr/bin/python3
"""Fuzz test of the vkconv command-line tool, with a fixed seed.

`vkconv run` with random problem flags (mostly small values, often a value at or past a cap, a
product past int64, or a negative or zero one) and random warm-up and iteration counts: every
invocation must either exit 0 with a passing check ("PASS"), or exit non-zero (below 128) with exactly one stderr line
starting "vkconv: error:". A signal, a crash, a hang (timeout) or any other exit is a failure.

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
    for i in range(opts.runs):
        args = invocation(rng)
        label = "vkconv " + " ".join(args)
        try:
            res = subprocess.run([opts.vkconv] + args, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            failures.append("%s: no answer within 120 s" % label)
            continue
        lines = [l for l in res.stderr.splitlines() if l.strip() and not l.startswith("vkconv: warning:")]
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
