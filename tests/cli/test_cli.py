#!/usr/bin/python3
"""End-to-end test of the vkconv command-line tool and of vkconv-bench's problem flags.

1. NumPy mode: for a set of small, varied conv2d problems (stride, padding, dilation, groups
   including depthwise, no bias, 1x1, non-square), write random float32 .npy inputs, run
   `vkconv run --precision fp32 --input ... --output ...`, and compare the written Y with a
   float64 NumPy conv2d that follows torch.nn.functional.conv2d's semantics exactly.
2. Problem flags mean what torch's conv2d means: `vkconv run --batch 1 --in-channels 8 --height 16
   --width 16 --out-channels 8 --kernel 3` is stride 1, padding 0, dilation 1, groups 1, with bias;
   run prints that problem and its result matches the NumPy conv2d with those arguments; `vkconv
   sweep` prints the same problem; without problem flags alexnet1 (stride 4, padding 2) runs.
3. Bad invocations: each must exit non-zero (not by a signal) with exactly one stderr line, which
   starts with "vkconv: error:".
With --bench: only the vkconv-bench part of 2 (the same flags, the same problem printed).

3. With --precision fast, step 1 runs with `--precision fast`: the result is held to the bound of
   the path that ran (the "path:" line), and with --require-coopmat every problem with at least 8
   output channels per group must run a cooperative-matrix kernel (Mesa 26 in CI).

Run with a Python that has NumPy (on Debian: /usr/bin/python3):
    /usr/bin/python3 test_cli.py [--precision fast [--require-coopmat]] [--root DIR] path/to/vkconv
    /usr/bin/python3 test_cli.py --bench path/to/vkconv-bench
--root DIR runs vkconv inside the root DIR through chroot (path/to/vkconv is then a path inside
it); its files go to DIR/tmp. Without NumPy the test exits 77 (skipped), or 1 when env CI is set.
"""
import argparse
import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time

try:
    import numpy as np
except ImportError as e:
    in_ci = os.environ.get("CI", "") not in ("", "0", "false", "no", "off")
    print("%s: NumPy is missing (%s); on Debian: apt-get install python3-numpy" %
          ("FAIL" if in_ci else "SKIPPED", e), flush=True)
    sys.exit(1 if in_ci else 77)

REL_TOL = {"fp32": 1e-5, "coopmat-f16": 1e-3}  # errorBound(path)
# elementErrorBound(path): max |Y - ref| / RMS(ref)
ELEMENT_TOL = {"fp32": 1e-4, "coopmat-f16": 1e-2}
ERROR_PREFIX = "vkconv: error:"
ROOT = ""  # --root: vkconv runs inside this root through chroot


def conv2d_reference(x, w, b, stride, padding, dilation, groups):
    """torch.nn.functional.conv2d(x, w, b, stride, padding, dilation, groups) in float64.

    x: (N, C, H, W); w: (K, C/groups, R, S); b: (K,) or None. Zero padding on both sides;
    output size (H + 2*pad - dilation*(R-1) - 1) // stride + 1; input channel group g feeds
    output channels [g*K/groups, (g+1)*K/groups)."""
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    n, c, h, wd = x.shape
    k, cg, r, s = w.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    assert cg * groups == c and k % groups == 0
    oh = (h + 2 * ph - dh * (r - 1) - 1) // sh + 1
    ow = (wd + 2 * pw - dw * (s - 1) - 1) // sw + 1
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    kg = k // groups
    out = np.zeros((n, k, oh, ow))
    for g in range(groups):
        xg = xp[:, g * cg:(g + 1) * cg]
        wg = w[g * kg:(g + 1) * kg]
        for i in range(r):
            for j in range(s):
                # Input taps of kernel position (i, j) for every output position.
                patch = xg[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                           j * dw:j * dw + sw * (ow - 1) + 1:sw]
                out[:, g * kg:(g + 1) * kg] += np.einsum("nchw,kc->nkhw", patch, wg[:, :, i, j])
    if b is not None:
        out += b.astype(np.float64)[None, :, None, None]
    return out


# name, x shape (N,C,H,W), K, (R,S), stride, padding, dilation, groups, bias
PROBLEMS = [
    ("3x3 same padding", (2, 4, 9, 9), 8, (3, 3), (1, 1), (1, 1), (1, 1), 1, True),
    ("stride 2, no bias, non-square input", (1, 3, 13, 7), 5, (3, 3), (2, 2), (0, 0), (1, 1), 1, False),
    ("dilation 2", (2, 5, 12, 12), 6, (3, 3), (1, 1), (2, 2), (2, 2), 1, True),
    ("groups 2", (2, 6, 10, 8), 4, (3, 3), (1, 1), (1, 1), (1, 1), 2, True),
    ("depthwise 3x3", (2, 8, 11, 11), 8, (3, 3), (1, 1), (1, 1), (1, 1), 8, False),
    ("depthwise x2, 5x5 stride 2", (1, 4, 15, 14), 8, (5, 5), (2, 2), (2, 2), (1, 1), 4, True),
    ("1x1", (3, 16, 5, 5), 12, (1, 1), (1, 1), (0, 0), (1, 1), 1, True),
    ("non-square kernel, mixed stride/pad/dilation", (2, 3, 17, 19), 7, (3, 5), (1, 2), (2, 1), (2, 1), 1, True),
    ("kernel larger than input", (1, 2, 3, 3), 3, (5, 5), (1, 1), (1, 1), (1, 1), 1, True),
    ("alexnet1-like, 5 images (sampled check)", (5, 3, 35, 35), 16, (11, 11), (4, 4), (2, 2), (1, 1), 1, True),
]


class Failures:
    def __init__(self):
        self.messages = []

    def add(self, message):
        self.messages.append(message)
        print("FAIL: " + message, flush=True)


def run(vkconv, args, timeout=120):
    if not ROOT:
        return subprocess.run([vkconv] + args, capture_output=True, text=True, timeout=timeout)
    # Inside the root: its own environment, and the files' paths as the root sees them.
    inside = [a[len(ROOT):] if a.startswith(ROOT + "/") else a for a in args]
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8",
           "CI": os.environ.get("CI", ""), "VKCONV_CACHE_DIR": os.environ.get("VKCONV_ROOT_CACHE_DIR", "/tmp")}
    return subprocess.run(["chroot", ROOT, vkconv] + inside, capture_output=True, text=True,
                          timeout=timeout, env=env)


def pair_arg(p):
    return "%d,%d" % p


def test_numpy_problems(vkconv, tmp, failures, precision="fp32", require_coopmat=False):
    rng = np.random.default_rng(1234)
    for index, (name, xs, k, (r, s), stride, padding, dilation, groups, bias) in enumerate(PROBLEMS):
        x = rng.uniform(-1, 1, xs).astype(np.float32)
        w = rng.uniform(-1, 1, (k, xs[1] // groups, r, s)).astype(np.float32)
        b = rng.uniform(-1, 1, (k,)).astype(np.float32) if bias else None
        xp, wp, bp, yp = (os.path.join(tmp, "p%d_%s.npy" % (index, t)) for t in "xwby")
        # One problem reads a version 2.0 header, to cover that reader branch.
        with open(xp, "wb") as f:
            np.lib.format.write_array(f, x, version=(2, 0) if index == 1 else (1, 0))
        np.save(wp, w)
        args = ["run", "--precision", precision, "--iterations", "1", "--input", xp, "--weight", wp,
                "--output", yp, "--stride", pair_arg(stride), "--padding", pair_arg(padding),
                "--dilation", pair_arg(dilation), "--groups", str(groups)]
        if b is not None:
            np.save(bp, b)
            args += ["--bias", bp]
        start = time.time()
        res = run(vkconv, args)
        label = "%s: vkconv %s" % (name, " ".join(args))
        if res.returncode != 0:
            failures.add("%s: exit %d\nstdout:\n%s\nstderr:\n%s" % (label, res.returncode, res.stdout, res.stderr))
            continue
        if "PASS" not in res.stdout:
            failures.add("%s: no PASS in the output:\n%s" % (label, res.stdout))
        path = next((l.split()[1] for l in res.stdout.splitlines() if l.startswith("path:")), "?")
        if path not in REL_TOL:
            failures.add("%s: no known path in the output:\n%s" % (label, res.stdout))
            continue
        if precision == "fp32" and path != "fp32":
            failures.add("%s: --precision fp32 ran %s" % (label, path))
        # The library's rule (choosePath): fp32 below 8 output channels a group, and below 16 where
        # the grouped direct kernel serves the groups (at most 16 input and output channels each;
        # none of PROBLEMS has a kernel past its weight budget, where the tiles keep them).
        grouped_direct = groups > 1 and xs[1] // groups <= 16 and k // groups <= 16
        if require_coopmat and k // groups >= (16 if grouped_direct else 8) and path == "fp32":
            failures.add("%s: --precision fast ran fp32 on a device with cooperative matrices (%d output "
                         "channels per group):\n%s" % (label, k // groups, res.stdout))
        y = np.load(yp)
        ref = conv2d_reference(x, w, b, stride, padding, dilation, groups)
        if y.dtype != np.float32 or y.shape != ref.shape:
            failures.add("%s: Y is %s %s, expected float32 %s" % (label, y.dtype, y.shape, ref.shape))
            continue
        diff = y.astype(np.float64) - ref
        err = np.linalg.norm(diff) / np.linalg.norm(ref)
        element = np.abs(diff).max() / np.sqrt(np.mean(ref * ref))
        ok = np.isfinite(y).all() and err <= REL_TOL[path] and element <= ELEMENT_TOL[path]
        print("%-48s %-11s Y %-18s rel err %.2e  max el. %.2e x RMS  %s  (%.2f s)" % (
            name, path, y.shape, err, element, "ok" if ok else "FAIL", time.time() - start), flush=True)
        if not ok:
            failures.add("%s: %s: relative error %.3e (bound %.0e), max element error %.3e x RMS (bound %.0e)"
                         % (label, path, err, REL_TOL[path], element, ELEMENT_TOL[path]))


def test_random_mode_and_devices(vkconv, failures):
    args = ["run", "--batch", "2", "--in-channels", "4", "--height", "12", "--width", "10",
            "--out-channels", "8", "--kernel", "3", "--stride", "1", "--padding", "1",
            "--precision", "fp32", "--iterations", "3"]
    res = run(vkconv, args)
    for needed in ("PASS", "rel. error", "time:", "TFLOP/s", "config:"):
        if res.returncode != 0 or needed not in res.stdout:
            failures.add("vkconv %s: exit %d, expected '%s' in:\n%s%s" % (
                " ".join(args), res.returncode, needed, res.stdout, res.stderr))
            break
    res = run(vkconv, ["devices", "--json"])
    try:
        devices = json.loads(res.stdout)["devices"]
        assert res.returncode == 0 and devices and "cooperative_matrix_shapes" in devices[0]
    except Exception as e:  # any parse or shape problem is a failure, reported with the text
        failures.add("vkconv devices --json: %r; exit %d, stdout:\n%s" % (e, res.returncode, res.stdout))
    res = run(vkconv, ["devices"])
    if res.returncode != 0 or "Device 0" not in res.stdout:
        failures.add("vkconv devices: exit %d, stdout:\n%s" % (res.returncode, res.stdout))


# The problem the issue names: a 3x3 layer typed with sizes only. Torch's conv2d gives it stride 1,
# padding 0, dilation 1, groups 1 and a bias; so must every command.
TORCH_DEFAULTS_FLAGS = ["--batch", "1", "--in-channels", "8", "--height", "16", "--width", "16",
                        "--out-channels", "8", "--kernel", "3"]
TORCH_DEFAULTS_PROBLEM = "N=1 C=8 H=16 W=16 K=8 R=3 S=3 stride=1,1 pad=0,0 dilation=1,1 groups=1 bias=yes"
ALEXNET1_GEOMETRY = "C=3 H=224 W=224 K=96 R=11 S=11 stride=4,4 pad=2,2 dilation=1,1 groups=1 bias=yes"


def problem_line(stdout, prefix):
    """The resolved problem a command printed: the text after `prefix` on its first such line."""
    for line in stdout.splitlines():
        if line.startswith(prefix):
            return line[len(prefix):].strip()
    return None


def check_problem_printed(failures, label, res, prefix, expected):
    got = problem_line(res.stdout, prefix)
    if res.returncode != 0 or got is None or not got.startswith(expected):
        failures.add("%s: exit %d, expected a line '%s%s...', got %r\nstdout:\n%s\nstderr:\n%s" % (
            label, res.returncode, prefix, expected, got, res.stdout, res.stderr))
        return False
    print("%-48s %s%s  ok" % (label[:48], prefix, got[:len(expected)]), flush=True)
    return True


def test_torch_defaults(vkconv, tmp, failures):
    # Random inputs: the problem printed, and the check against the CPU reference.
    args = ["run"] + TORCH_DEFAULTS_FLAGS + ["--precision", "fp32", "--iterations", "1"]
    res = run(vkconv, args)
    if check_problem_printed(failures, "vkconv " + " ".join(args), res, "problem:", TORCH_DEFAULTS_PROBLEM):
        if "PASS" not in res.stdout:
            failures.add("vkconv %s: no PASS in:\n%s" % (" ".join(args), res.stdout))

    # The same flags with .npy inputs: the result is torch's conv2d(x, w, b) with its defaults.
    rng = np.random.default_rng(17)
    x = rng.uniform(-1, 1, (1, 8, 16, 16)).astype(np.float32)
    w = rng.uniform(-1, 1, (8, 8, 3, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, (8,)).astype(np.float32)
    xp, wp, bp, yp = (os.path.join(tmp, "torch_defaults_%s.npy" % t) for t in "xwby")
    np.save(xp, x)
    np.save(wp, w)
    np.save(bp, b)
    args = (["run"] + TORCH_DEFAULTS_FLAGS +
            ["--precision", "fp32", "--iterations", "0", "--input", xp, "--weight", wp, "--bias", bp, "--output", yp])
    res = run(vkconv, args)
    label = "vkconv " + " ".join(args)
    if check_problem_printed(failures, label, res, "problem:", TORCH_DEFAULTS_PROBLEM):
        y = np.load(yp)
        ref = conv2d_reference(x, w, b, (1, 1), (0, 0), (1, 1), 1)
        if y.shape != (1, 8, 14, 14) or y.shape != ref.shape:
            failures.add("%s: Y shape %s, expected (1, 8, 14, 14) (stride 1, padding 0)" % (label, y.shape))
        else:
            err = np.linalg.norm(y.astype(np.float64) - ref) / np.linalg.norm(ref)
            ok = np.isfinite(y).all() and err <= REL_TOL["fp32"]
            print("%-48s Y %-18s rel err %.2e  %s" % ("torch defaults, .npy", y.shape, err, "ok" if ok else "FAIL"),
                  flush=True)
            if not ok:
                failures.add("%s: relative error %.3e > %.0e" % (label, err, REL_TOL["fp32"]))

    # sweep: the same problem, cheaply (fp32 only, two candidates, a private cache, nothing saved),
    # both candidates' pipelines built first on two threads.
    args = (["sweep"] + TORCH_DEFAULTS_FLAGS +
            ["--precision", "fp32", "--candidates", "2", "--iterations", "2", "--no-save", "--jobs", "2",
             "--cache-dir", os.path.join(tmp, "sweep-cache")])
    res = run(vkconv, args, timeout=240)
    if check_problem_printed(failures, "vkconv " + " ".join(args), res, "problem:", TORCH_DEFAULTS_PROBLEM):
        if "pipelines built first on 2 threads" not in res.stdout:
            failures.add("vkconv %s: expected the selection to say the pipelines were built first on 2 "
                         "threads:\n%s" % (" ".join(args), res.stdout[-2000:]))
        # Not a terminal: plain lines, one per candidate, no cursor control.
        if "\r" in res.stdout or "\x1b" in res.stdout or "  [2/2] " not in res.stdout:
            failures.add("vkconv %s (stdout a pipe): expected plain '[i/2]' lines without \\r or escapes:\n%r" % (
                " ".join(args), res.stdout))
        test_sweep_progress_on_terminal(vkconv, args, failures)
    # --rounds 0: nothing is timed again, so nothing can be accepted, and the decision says why
    # (not that the default was the only correct configuration: both candidates pass here).
    args = args + ["--rounds", "0"]
    res = run(vkconv, args, timeout=240)
    decisions = [l.strip() for l in res.stdout.splitlines() if l.strip().startswith("decision:")]
    ok = (res.returncode == 0 and len(decisions) == 1 and "only configuration that passed" not in decisions[0]
          and not decisions[0].startswith("decision:  accepted"))
    print("%-48s %s  %s" % ("sweep --rounds 0", decisions[0] if decisions else "(no decision)", "ok" if ok else "FAIL"),
          flush=True)
    if not ok:
        failures.add("vkconv %s: expected one decision that keeps the default without blaming the reference "
                     "check, got exit %d:\n%s" % (" ".join(args), res.returncode, res.stdout[-2000:]))

    # No problem flag (only --batch): alexnet1, with its stride 4 and padding 2.
    args = ["run", "--batch", "1", "--precision", "fp32", "--iterations", "0"]
    res = run(vkconv, args)
    check_problem_printed(failures, "vkconv " + " ".join(args), res, "problem:", "N=1 " + ALEXNET1_GEOMETRY)
    args = ["run", "--shape", "alexnet1", "--batch", "1", "--precision", "fp32", "--iterations", "0"]
    res = run(vkconv, args)
    check_problem_printed(failures, "vkconv " + " ".join(args), res, "problem:", "N=1 " + ALEXNET1_GEOMETRY)


def run_on_terminal(vkconv, args, columns=100, timeout=240):
    """Runs vkconv with stdout and stderr on a pseudo-terminal `columns` wide; (exit status, output)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    proc = subprocess.Popen([vkconv] + args, stdout=slave, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    out = b""
    deadline = time.time() + timeout
    while time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 1.0)
        if not ready:
            if proc.poll() is not None:
                break
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    if proc.poll() is None:
        proc.kill()
    return proc.wait(), out.decode(errors="replace")


def test_sweep_progress_on_terminal(vkconv, args, failures):
    """On a terminal the sweep redraws one progress line in place: done/total, elapsed, time left,
    best so far, never wider than the terminal."""
    columns = 90
    rc, out = run_on_terminal(vkconv, args, columns)
    redraws = [part.split("\r")[0] for part in out.split("\r\x1b[K")[1:]]
    lines = [r for r in redraws if r.startswith("  [")]  # after the last one: the report
    # The state after the first candidate: elapsed, an estimate of what is left, the best so far.
    after_first = [l for l in lines if " 1/2, " in l]
    problems = []
    if rc != 0:
        problems.append("exit %d" % rc)
    if not after_first:
        problems.append("no progress line after the first candidate ('1/2, ')")
    elif not all(w in after_first[0] for w in ("elapsed", "left", "best")):
        problems.append("the line after the first candidate lacks elapsed / left / best: %r" % after_first[0])
    if not any(" 2/2, " in l for l in lines):
        problems.append("no progress line for 2/2")
    if any(len(l) >= columns for l in lines):
        problems.append("a progress line is wider than the %d-column terminal" % columns)
    print("%-48s %d redraws  %s" % ("sweep progress on a terminal", len(lines), "ok" if not problems else "FAIL"),
          flush=True)
    if problems:
        failures.add("vkconv %s on a terminal: %s\noutput:\n%r" % (" ".join(args), "; ".join(problems), out))


def test_bench_torch_defaults(bench, failures):
    args = TORCH_DEFAULTS_FLAGS + ["--precision", "fp32", "--warmup", "1", "--iterations", "2",
                                   "--copy-mib", "1", "--copy-iterations", "2"]
    res = run(bench, args, timeout=240)
    if check_problem_printed(failures, "vkconv-bench " + " ".join(args), res, "problem:", TORCH_DEFAULTS_PROBLEM):
        if "relative error" not in res.stdout or "median" not in res.stdout:
            failures.add("vkconv-bench %s: no check or timing in:\n%s" % (" ".join(args), res.stdout))
    # A partial problem is refused, naming what is missing; a suite with a size flag too.
    # Counts below their bounds are refused before any device work: per shape they failed every
    # shape, and a negative --copy-mib or --device was taken for the default.
    for args, needed in ((["--height", "16", "--kernel", "3"], "--in-channels = missing"),
                         (["--shape", "alexnet1", "--stride", "1"], "excludes"),
                         (["--shape", "alexnet1", "--iterations", "-5"], "--iterations = -5"),
                         (["--shape", "alexnet1", "--warmup", "-1"], "--warmup = -1"),
                         (["--shape", "alexnet1", "--copy-iterations", "0"], "--copy-iterations = 0"),
                         (["--shape", "alexnet1", "--copy-mib", "-1"], "--copy-mib = -1"),
                         (["--shape", "alexnet1", "--device", "-1"], "--device = -1")):
        res = run(bench, args)
        text = res.stdout + res.stderr
        ok = res.returncode not in (0,) and 0 < res.returncode < 128 and needed in text
        print("%-48s exit %3d  %s" % ("vkconv-bench " + " ".join(args), res.returncode,
                                      "ok" if ok else "FAIL"), flush=True)
        if not ok:
            failures.add("vkconv-bench %s: expected a non-zero exit and '%s', got exit %d:\n%s" % (
                " ".join(args), needed, res.returncode, text))


def test_bench_shape_counts(bench, tmp, failures):
    """A network suite's counts (how often each shape runs in one pass) reach the JSON, and
    bench/summarize_results.py sums them beside a made-up PyTorch run; a count under 1 is refused,
    naming the field."""
    shape = {"batch": 1, "in_channels": 4, "height": 8, "width": 8, "out_channels": 4, "kernel": 1}
    good = {"suites": {"net": {"cpu_batch": 1, "shapes": [dict(shape, name="twice", count=2), dict(shape, name="once")]}}}
    bad = {"suites": {"net": {"cpu_batch": 1, "shapes": [dict(shape, name="never", count=0)]}}}
    quick = ["--suite", "net", "--precision", "fast", "--warmup", "0", "--iterations", "1", "--warmup-ms", "0",
             "--copy-mib", "1", "--copy-iterations", "1"]
    paths = {}
    for label, doc in (("good", good), ("bad", bad)):
        paths[label] = os.path.join(tmp, "shapes_%s.json" % label)
        with open(paths[label], "w") as f:
            json.dump(doc, f)
    folder = os.path.join(tmp, "results")
    os.makedirs(folder, exist_ok=True)
    out = os.path.join(folder, "vkconv_net_fast.json")
    res = run(bench, ["--shapes", paths["good"], "--json", out] + quick, timeout=240)
    counts, times = {}, {}
    if res.returncode == 0 and os.path.exists(out):
        with open(out) as f:
            results = json.load(f)["results"]
        counts = {r["name"]: r.get("count") for r in results}
        times = {r["name"]: r["time_ms"]["median"] for r in results if r.get("status") == "ok"}
    ok = counts == {"twice": 2, "once": 1}
    print("%-48s exit %3d  %s" % ("vkconv-bench counts in the JSON", res.returncode, "ok" if ok else "FAIL"), flush=True)
    if not ok:
        failures.add("vkconv-bench --shapes %s: expected counts twice 2, once 1, got %r (exit %d):\n%s" % (
            paths["good"], counts, res.returncode, res.stdout + res.stderr))
    elif len(times) != 2:
        failures.add("vkconv-bench --shapes %s: not every shape timed (%r):\n%s" % (paths["good"], times, res.stdout))
    else:
        # PyTorch's TF32 taking twice vkconv's time on each shape: a geometric mean of 0.5, and
        # one pass of twice + once.
        torch_doc = {"torch_version": "made-up", "cudnn_version": 0, "device": "none", "modes": ["tf32"],
                     "timing": "made up by the CLI test",
                     "results": [{"name": n, "mode": "tf32", "batch": 1, "status": "ok", "time_ms": {"median": 2 * t}}
                                 for n, t in times.items()]}
        with open(os.path.join(folder, "torch.json"), "w") as f:
            json.dump(torch_doc, f)
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "summarize_results.py")
        summary = subprocess.run([sys.executable, script, folder], capture_output=True, text=True, timeout=60)
        total = 2 * times["twice"] + times["once"]
        want = ["net, all 2 shapes: fast / torch geometric mean tf32 0.500, faster than tf32 on 2",
                "net, one pass (3 convolutions of 2 shapes): fast %.3f ms; torch tf32 %.3f (fast / it 0.500)" % (total, 2 * total)]
        missing = [w for w in want if w not in summary.stdout]
        print("%-48s exit %3d  %s" % ("summarize_results.py: suite means, one pass", summary.returncode,
                                      "ok" if not missing and summary.returncode == 0 else "FAIL"), flush=True)
        if missing or summary.returncode != 0:
            failures.add("summarize_results.py %s: exit %d, missing %r in:\n%s%s" % (
                folder, summary.returncode, missing, summary.stdout, summary.stderr))
    res = run(bench, ["--shapes", paths["bad"]] + quick)
    text = res.stdout + res.stderr
    ok = 0 < res.returncode < 128 and "never.count" in text and "must be >= 1" in text
    print("%-48s exit %3d  %s" % ("vkconv-bench count 0", res.returncode, "ok" if ok else "FAIL"), flush=True)
    if not ok:
        failures.add("vkconv-bench with count 0: expected a non-zero exit naming never.count, got exit %d:\n%s" % (
            res.returncode, text))


def write_bad_files(tmp):
    x = np.zeros((1, 3, 8, 8), np.float32)
    w = np.zeros((4, 3, 3, 3), np.float32)
    paths = {t: os.path.join(tmp, "bad_%s.npy" % t) for t in
             ("x", "w", "b", "f64", "fortran", "trunc", "w_c2", "b_k5", "x3d", "notnpy")}
    np.save(paths["x"], x)
    np.save(paths["w"], w)
    np.save(paths["b"], np.zeros(4, np.float32))
    np.save(paths["f64"], x.astype(np.float64))
    np.save(paths["fortran"], np.asfortranarray(np.zeros((1, 3, 8, 8), np.float32)))
    np.save(paths["w_c2"], np.zeros((4, 2, 3, 3), np.float32))
    np.save(paths["b_k5"], np.zeros(5, np.float32))
    np.save(paths["x3d"], np.zeros((3, 8, 8), np.float32))
    with open(paths["x"], "rb") as f:
        data = f.read()
    with open(paths["trunc"], "wb") as f:
        f.write(data[:-10])
    with open(paths["notnpy"], "w") as f:
        f.write("not a numpy file\n")
    return paths


def test_summarize_sweep(tmp, failures):
    """bench/summarize_results.py on a made-up sweep: the heuristic's choice against the fastest
    re-timed (the leaders), else first timed, and the problems more than 5% behind."""
    def path(name, default, results, leaders):
        return {"path": "coopmat-f16", "default": {"name": default},
                "results": [{"name": n, "status": "ok", "timing": {"median_ms": t}} for n, t in results],
                "leaders": [{"name": n, "again": {"median_ms": t}} for n, t in leaders]}
    doc = {"problems": [
        {"name": "close", "paths": [path("close", "A", [("B", 0.9), ("A", 1.0)], [("A", 1.03), ("B", 1.0)])]},
        {"name": "behind", "paths": [path("behind", "A", [("B", 1.0), ("A", 1.2)], [("A", 1.1), ("B", 1.0)])]},
        {"name": "first-only", "paths": [path("first-only", "A", [("A", 2.0), ("B", 2.05)], [])]}]}
    folder = os.path.join(tmp, "sweep-results")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "sweep1.json"), "w") as f:
        json.dump(doc, f)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "summarize_results.py")
    summary = subprocess.run([sys.executable, script, folder], capture_output=True, text=True, timeout=60)
    want = ["sweep1.json: the heuristic's choice within 5% of the fastest timed on 2 of 3",
            "  behind (coopmat-f16): 1.1000 ms, 10.0% behind B at 1.0000"]
    missing = [w for w in want if w not in summary.stdout.splitlines()]
    extra = [l for l in summary.stdout.splitlines() if l.startswith("  close") or l.startswith("  first-only")]
    ok = not missing and not extra and summary.returncode == 0
    print("%-48s exit %3d  %s" % ("summarize_results.py: a sweep's choices", summary.returncode, "ok" if ok else "FAIL"),
          flush=True)
    if not ok:
        failures.add("summarize_results.py %s: exit %d, missing %r, unexpected %r in:\n%s%s" % (
            folder, summary.returncode, missing, extra, summary.stdout, summary.stderr))


def test_bad_invocations(vkconv, tmp, failures):
    p = write_bad_files(tmp)
    small = ["--batch", "1", "--in-channels", "4", "--height", "8", "--width", "8",
             "--out-channels", "4", "--kernel", "3", "--stride", "1", "--padding", "1"]
    npy = lambda x, w, *more: ["run", "--input", p[x], "--weight", p[w]] + list(more)

    def own(**fields):
        """`vkconv run` with a whole problem of the user's own (4 channels, 8x8, 3x3), fields replaced
        (a value None leaves the flag out)."""
        values = {"in_channels": "4", "height": "8", "width": "8", "out_channels": "4", "kernel": "3"}
        values.update(fields)
        args = ["run", "--batch", "1"]
        for key, value in values.items():
            if value is not None:
                args += ["--" + key.replace("_", "-"), value]
        return args
    cases = [
        ("no command", []),
        ("unknown command", ["frobnicate"]),
        ("unknown flag", ["run", "--frobnicate"]),
        ("unknown devices flag", ["devices", "--frobnicate"]),
        ("zero batch", ["run", "--batch", "0"]),
        ("negative batch", ["run", "--batch", "-2"]),
        ("zero height", own(height="0")),
        ("negative out channels", own(out_channels="-5")),
        ("non-integer batch", ["run", "--batch", "two"]),
        ("huge batch", ["run", "--batch", "99999999999999999999"]),
        ("zero stride", own(stride="0")),
        ("negative padding", own(padding="-1")),
        ("zero dilation", own(dilation="1,0")),
        ("bad kernel text", own(kernel="3x3")),
        ("three kernel sizes", own(kernel="3,3,3")),
        ("groups not dividing in channels", own(groups="3")),
        ("groups not dividing out channels", own(out_channels="6", groups="4")),
        ("zero groups", own(groups="0")),
        ("kernel larger than padded input", own(height="4", width="4", kernel="7", padding="1")),
        ("own problem without --kernel", own(kernel=None)),
        ("geometry flag alone", ["run", "--stride", "2"]),
        ("--no-bias alone", ["run", "--no-bias"]),
        ("--shape with a size flag", ["run", "--shape", "alexnet1", "--kernel", "3"]),
        ("unknown --shape", ["run", "--shape", "nonexistent"]),
        ("sweep --suite with a geometry flag", ["sweep", "--suite", "layers", "--padding", "1"]),
        ("sweep without --kernel", ["sweep"] + own(kernel=None)[1:]),
        ("bad precision", ["run", "--precision", "half"] + small),
        ("unknown device index", ["run", "--device", "99"] + small),
        ("negative device index", ["run", "--device", "-3"] + small),
        ("unknown profile", ["run", "--profile", "nonexistent"] + small),
        ("unknown devices profile", ["devices", "--profile", "nonexistent"]),
        ("negative iterations", ["run", "--iterations", "-1"] + small),
        ("warm-up past the bound", ["run", "--warmup", "2147483647", "--iterations", "1"] + small),
        ("iterations past the bound", ["run", "--iterations", "2147483647"] + small),
        ("sweep warm-up past the bound", ["sweep", "--warmup", "100000"] + small),
        # Counts read as unsigned wrapped -1 to 2^64 - 1: every candidate of the problem timed.
        ("sweep negative candidates", ["sweep", "--candidates", "-1"] + small),
        ("sweep negative per-tile cap", ["sweep", "--per-tile", "-1"] + small),
        ("sweep negative table rows", ["sweep", "--top", "-2"] + small),
        ("sweep zero build threads", ["sweep", "--jobs", "0"] + small),
        # Each field passes its 2^24 cap, but C*H*W is 2^64: it wrapped to 0 and divided by it.
        ("input elements past int64", ["run", "--batch", "1", "--in-channels", "16777216", "--height", "16777216",
                                       "--width", "65536", "--out-channels", "1", "--kernel", "1",
                                       "--stride", "16777216", "--padding", "0"]),
        ("weight elements past int64", ["run", "--batch", "1", "--in-channels", "16777216", "--height", "1",
                                        "--width", "1", "--out-channels", "16777216", "--kernel", "1,16777216",
                                        "--padding", "0,8388608"]),
        ("missing value", ["run", "--batch"]),
        ("missing input file", ["run", "--input", os.path.join(tmp, "missing.npy"), "--weight", p["w"]]),
        ("missing weight file", ["run", "--input", p["x"], "--weight", os.path.join(tmp, "missing.npy")]),
        ("float64 npy", npy("f64", "w")),
        ("fortran-order npy", npy("fortran", "w")),
        ("truncated npy", npy("trunc", "w")),
        ("not an npy file", npy("notnpy", "w")),
        ("3-D input npy", npy("x3d", "w")),
        ("weight C mismatch", npy("x", "w_c2")),
        ("bias K mismatch", npy("x", "w", "--bias", p["b_k5"])),
        ("groups not dividing npy channels", npy("x", "w", "--groups", "2")),
        ("npy kernel larger than input", npy("x", "w", "--dilation", "5")),
        ("size flag contradicting --input", npy("x", "w", "--batch", "2")),
        ("--kernel contradicting --weight", npy("x", "w", "--kernel", "5")),
        ("--shape with --input", npy("x", "w", "--shape", "alexnet1")),
        ("--input without --weight", ["run", "--input", p["x"]]),
        ("--output without --input", ["run", "--output", os.path.join(tmp, "y.npy")] + small),
        ("--no-bias with --bias", npy("x", "w", "--bias", p["b"], "--no-bias")),
        ("unwritable output", npy("x", "w", "--iterations", "0", "--output", os.path.join(tmp, "no", "such", "dir", "y.npy"))),
    ]
    for name, args in cases:
        res = run(vkconv, args)
        lines = [l for l in res.stderr.splitlines() if l.strip()]
        problems = []
        if res.returncode == 0:
            problems.append("exit status 0")
        elif res.returncode < 0 or res.returncode >= 128:
            problems.append("killed by a signal / crashed (exit status %d)" % res.returncode)
        if len(lines) != 1 or not lines[0].startswith(ERROR_PREFIX):
            problems.append("expected exactly one stderr line starting '%s', got %d line(s)" % (ERROR_PREFIX, len(lines)))
        line = lines[0] if lines else "(no stderr)"
        print("%-36s exit %3d  %s" % (name, res.returncode, line), flush=True)
        if problems:
            failures.add("%s: vkconv %s: %s\nstderr:\n%s" % (name, " ".join(args), "; ".join(problems), res.stderr))


def test_epilogue_flags(vkconv, tmp, failures, precision="fp32"):
    """--activation, --alpha, --residual Z.npy and --beta in NumPy mode, against NumPy; a random
    residual in random mode; and the flags' errors."""
    rng = np.random.default_rng(77)
    x = rng.uniform(-1, 1, (2, 6, 9, 8)).astype(np.float32)
    w = rng.uniform(-1, 1, (10, 6, 3, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, (10,)).astype(np.float32)
    z = rng.uniform(-1, 1, (2, 10, 9, 8)).astype(np.float32)
    xp, wp, bp, zp, yp = (os.path.join(tmp, "epi_%s.npy" % t) for t in "xwbzy")
    for path, a in ((xp, x), (wp, w), (bp, b), (zp, z)):
        np.save(path, a)
    args = ["run", "--precision", precision, "--iterations", "1", "--input", xp, "--weight", wp, "--bias", bp,
            "--padding", "1", "--activation", "silu", "--alpha", "0.5", "--residual", zp, "--beta", "-2",
            "--output", yp]
    res = run(vkconv, args)
    label = "epilogue: vkconv " + " ".join(args)
    if res.returncode != 0 or "PASS" not in res.stdout:
        failures.add("%s: exit %d\n%s%s" % (label, res.returncode, res.stdout, res.stderr))
    else:
        v = 0.5 * conv2d_reference(x, w, b * 0, (1, 1), (1, 1), (1, 1), 1) + b[None, :, None, None] - 2 * z
        ref = v / (1 + np.exp(-v))
        y = np.load(yp)
        err = np.linalg.norm(y - ref) / np.linalg.norm(ref)
        path = next((l.split()[1] for l in res.stdout.splitlines() if l.startswith("path:")), "?")
        print("%-48s %-11s rel err %.2e" % ("epilogue silu, residual (NumPy mode)", path, err), flush=True)
        if not err <= REL_TOL.get(path, 0):
            failures.add("%s: relative error %.3e against NumPy" % (label, err))
        if "silu alpha=0.5 residual beta=-2" not in res.stdout:
            failures.add("%s: the problem line does not name the epilogue:\n%s" % (label, res.stdout))
    res = run(vkconv, ["run", "--batch", "2", "--in-channels", "4", "--height", "8", "--width", "8",
                       "--out-channels", "8", "--kernel", "3", "--activation", "relu6", "--residual",
                       "--iterations", "1", "--precision", precision])
    if res.returncode != 0 or "PASS" not in res.stdout:
        failures.add("epilogue, random residual: exit %d\n%s%s" % (res.returncode, res.stdout, res.stderr))
    for bad, expect in ((["--activation", "swish"], "--activation = swish"),
                        (["--beta", "2"], "--beta"),
                        (["--activation", "clamp", "--clamp", "2,1"], "--clamp = 2,1"),
                        (["--slope", "0.1"], "--slope"),
                        (["--residual", zp], "--residual")):
        res = run(vkconv, ["run", "--iterations", "0", "--batch", "1"] + bad)
        if res.returncode == 0 or expect not in res.stderr:
            failures.add("vkconv run %s: expected an error naming %r, got exit %d: %s" % (
                " ".join(bad), expect, res.returncode, res.stderr))


def test_tensor_format_flags(vkconv, tmp, failures, precision="fp32"):
    """--dtype f16 --layout nhwc in NumPy mode: float16 (N, H, W, C) files in, a float16
    (N, OH, OW, K) result out, checked against NumPy in float64; float32 files converted where
    --dtype says f16; random mode; and the flags' errors."""
    rng = np.random.default_rng(78)
    x = rng.uniform(-1, 1, (2, 7, 9, 6)).astype("<f2")  # (N, H, W, C)
    w = rng.uniform(-1, 1, (10, 6, 3, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, (10,)).astype(np.float32)
    z = rng.uniform(-1, 1, (2, 7, 9, 10)).astype("<f2")  # (N, OH, OW, K)
    xp, wp, bp, zp, yp = (os.path.join(tmp, "fmt_%s.npy" % t) for t in "xwbzy")
    for path, a in ((xp, x), (wp, w), (bp, b), (zp, z)):
        np.save(path, a)
    args = ["run", "--precision", precision, "--iterations", "1", "--input", xp, "--weight", wp, "--bias", bp,
            "--padding", "1", "--layout", "nhwc", "--activation", "relu", "--residual", zp, "--output", yp]
    res = run(vkconv, args)
    label = "formats: vkconv " + " ".join(args)
    if res.returncode != 0 or "PASS" not in res.stdout:
        failures.add("%s: exit %d\n%s%s" % (label, res.returncode, res.stdout, res.stderr))
    else:
        xn = x.astype(np.float32).transpose(0, 3, 1, 2)
        zn = z.astype(np.float32).transpose(0, 3, 1, 2)
        ref = np.maximum(conv2d_reference(xn, w, b, (1, 1), (1, 1), (1, 1), 1) + zn, 0).transpose(0, 2, 3, 1)
        y = np.load(yp)
        err = np.linalg.norm(y.astype(np.float64) - ref) / np.linalg.norm(ref)
        path = next((l.split()[1] for l in res.stdout.splitlines() if l.startswith("path:")), "?")
        print("%-48s %-11s rel err %.2e" % ("f16 nhwc in and out, relu residual", path, err), flush=True)
        if y.dtype != np.float16 or y.shape != (2, 7, 9, 10):
            failures.add("%s: wrote %s %s, expected float16 (2, 7, 9, 10)" % (label, y.dtype, y.shape))
        if not err <= 1e-3:  # an fp16 output's bound
            failures.add("%s: relative error %.3e against NumPy" % (label, err))
        if "in=f16/nhwc out=f16/nhwc" not in res.stdout:
            failures.add("%s: the problem line does not name the formats:\n%s" % (label, res.stdout))
    # float32 files with --dtype f16: the values as the f16 tensor holds them, said so.
    x32 = os.path.join(tmp, "fmt_x32.npy")
    np.save(x32, x.astype(np.float32).transpose(0, 3, 1, 2))
    res = run(vkconv, ["run", "--precision", precision, "--iterations", "0", "--input", x32, "--weight", wp,
                       "--dtype", "f16", "--padding", "1"])
    if res.returncode != 0 or "PASS" not in res.stdout or "as the f16 tensor holds them" not in res.stdout:
        failures.add("formats, float32 files as f16: exit %d\n%s%s" % (res.returncode, res.stdout, res.stderr))
    res = run(vkconv, ["run", "--batch", "2", "--in-channels", "4", "--height", "8", "--width", "8",
                       "--out-channels", "8", "--kernel", "3", "--dtype", "f16", "--layout", "nhwc",
                       "--iterations", "1", "--precision", precision])
    if res.returncode != 0 or "PASS" not in res.stdout:
        failures.add("formats, random f16 nhwc: exit %d\n%s%s" % (res.returncode, res.stdout, res.stderr))
    # bfloat16 as raw bit patterns ('<u2'), only with --bf16-bits; values beyond fp16's range.
    xb, yb = os.path.join(tmp, "fmt_xb.npy"), os.path.join(tmp, "fmt_yb.npy")
    x32 = rng.uniform(-1, 1, (1, 6, 7, 9)).astype(np.float32) * 1e5
    np.save(xb, (x32.view(np.uint32) >> 16).astype("<u2"))  # truncated: exact bf16 values
    res = run(vkconv, ["run", "--iterations", "0", "--input", xb, "--weight", wp, "--padding", "1"])
    if res.returncode == 0 or "--bf16-bits" not in res.stderr:
        failures.add("a '<u2' file without --bf16-bits: expected an error naming the flag, got exit %d: %s" % (
            res.returncode, res.stderr))
    res = run(vkconv, ["run", "--iterations", "0", "--input", xb, "--weight", wp, "--padding", "1", "--bf16-bits",
                       "--output", yb])
    if res.returncode != 0 or "PASS" not in res.stdout:
        failures.add("bf16 bits: exit %d\n%s%s" % (res.returncode, res.stdout, res.stderr))
    else:
        y = (np.load(yb).astype(np.uint32) << 16).view(np.float32)
        xv = (np.load(xb).astype(np.uint32) << 16).view(np.float32)
        ref = conv2d_reference(xv, w, np.zeros(10, np.float32), (1, 1), (1, 1), (1, 1), 1)
        err = np.linalg.norm(y - ref) / np.linalg.norm(ref)
        print("%-48s %-11s rel err %.2e" % ("bf16 bits in and out, 1e5 inputs", "fp32", err), flush=True)
        if not err <= 8e-3:
            failures.add("bf16 bits: relative error %.3e against NumPy" % err)
    for bad, expect in ((["--dtype", "bf8"], "--dtype = bf8"), (["--layout", "chwn"], "--layout = chwn")):
        res = run(vkconv, ["run", "--iterations", "0", "--batch", "1"] + bad)
        if res.returncode == 0 or expect not in res.stderr:
            failures.add("vkconv run %s: expected an error naming %r, got exit %d: %s" % (
                " ".join(bad), expect, res.returncode, res.stderr))


def main():
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--precision", choices=("fp32", "fast"), default="fp32")
    parser.add_argument("--require-coopmat", action="store_true")
    parser.add_argument("--root", default="")
    parser.add_argument("--bench", action="store_true", help="the tool is vkconv-bench: check its problem flags")
    parser.add_argument("vkconv")
    opts = parser.parse_args()
    ROOT = os.path.abspath(opts.root) if opts.root else ""
    vkconv = opts.vkconv if ROOT else os.path.abspath(opts.vkconv)
    failures = Failures()
    start = time.time()
    tmp_parent = os.path.join(ROOT, "tmp") if ROOT else None
    with tempfile.TemporaryDirectory(prefix="vkconv_cli_test_", dir=tmp_parent) as tmp:
        # A private cache folder unless the caller chose one: never the user's ~/.cache/vkconv.
        os.environ.setdefault("VKCONV_CACHE_DIR", os.path.join(tmp, "cache"))
        if opts.bench:
            test_bench_torch_defaults(vkconv, failures)
            test_bench_shape_counts(vkconv, tmp, failures)
            test_summarize_sweep(tmp, failures)
        else:
            test_numpy_problems(vkconv, tmp, failures, opts.precision, opts.require_coopmat)
            test_epilogue_flags(vkconv, tmp, failures, opts.precision)
            test_tensor_format_flags(vkconv, tmp, failures, opts.precision)
            if opts.precision == "fp32":
                test_torch_defaults(vkconv, tmp, failures)
                test_random_mode_and_devices(vkconv, failures)
                test_bad_invocations(vkconv, tmp, failures)
    print("%.1f s" % (time.time() - start))
    if failures.messages:
        print("%d failure(s)" % len(failures.messages))
        sys.exit(1)
    print("all CLI checks passed")


if __name__ == "__main__":
    main()
