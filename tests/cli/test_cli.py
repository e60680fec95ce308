#!/usr/bin/python3
"""End-to-end test of the vkconv command-line tool.

1. NumPy mode: for a set of small, varied conv2d problems (stride, padding, dilation, groups
   including depthwise, no bias, 1x1, non-square), write random float32 .npy inputs, run
   `vkconv run --precision fp32 --input ... --output ...`, and compare the written Y with a
   float64 NumPy conv2d that follows torch.nn.functional.conv2d's semantics exactly.
2. Bad invocations: each must exit non-zero (not by a signal) with exactly one stderr line, which
   starts with "vkconv: error:".

3. With --precision fast, step 1 runs with `--precision fast`: the result is held to the bound of
   the path that ran (the "path:" line), and with --require-coopmat every problem with at least 8
   output channels per group must run a cooperative-matrix kernel (Mesa 26 in CI).

Run with a Python that has NumPy (on Debian: /usr/bin/python3):
    /usr/bin/python3 test_cli.py [--precision fast [--require-coopmat]] [--root DIR] path/to/vkconv
--root DIR runs vkconv inside the root DIR through chroot (path/to/vkconv is then a path inside
it); its files go to DIR/tmp. Without NumPy the test exits 77 (skipped), or 1 when env CI is set.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError as e:
    in_ci = os.environ.get("CI", "") not in ("", "0", "false", "no", "off")
    print("%s: NumPy is missing (%s); on Debian: apt-get install python3-numpy" %
          ("FAIL" if in_ci else "SKIPPED", e), flush=True)
    sys.exit(1 if in_ci else 77)

REL_TOL = {"fp32": 1e-5, "coopmat-f16": 1e-3, "coopmat-bf16": 8e-3}  # errorBound(path)
# elementErrorBound(path): max |Y - ref| / RMS(ref)
ELEMENT_TOL = {"fp32": 1e-4, "coopmat-f16": 1e-2, "coopmat-bf16": 8e-2}
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
        if require_coopmat and k // groups >= 8 and path == "fp32":
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


def test_bad_invocations(vkconv, tmp, failures):
    p = write_bad_files(tmp)
    small = ["--batch", "1", "--in-channels", "4", "--height", "8", "--width", "8",
             "--out-channels", "4", "--kernel", "3", "--stride", "1", "--padding", "1"]
    npy = lambda x, w, *more: ["run", "--input", p[x], "--weight", p[w]] + list(more)
    cases = [
        ("no command", []),
        ("unknown command", ["frobnicate"]),
        ("unknown flag", ["run", "--frobnicate"]),
        ("unknown devices flag", ["devices", "--frobnicate"]),
        ("zero batch", ["run", "--batch", "0"]),
        ("negative batch", ["run", "--batch", "-2"]),
        ("zero height", ["run", "--height", "0"]),
        ("negative out channels", ["run", "--out-channels", "-5"]),
        ("non-integer batch", ["run", "--batch", "two"]),
        ("huge batch", ["run", "--batch", "99999999999999999999"]),
        ("zero stride", ["run", "--stride", "0"]),
        ("negative padding", ["run", "--padding", "-1"]),
        ("zero dilation", ["run", "--dilation", "1,0"]),
        ("bad kernel text", ["run", "--kernel", "3x3"]),
        ("three kernel sizes", ["run", "--kernel", "3,3,3"]),
        ("groups not dividing in channels", ["run", "--in-channels", "4", "--groups", "3"]),
        ("groups not dividing out channels", ["run", "--in-channels", "4", "--out-channels", "6", "--groups", "4"]),
        ("zero groups", ["run", "--groups", "0"]),
        ("kernel larger than padded input", ["run", "--height", "4", "--width", "4", "--kernel", "7", "--padding", "1"]),
        ("bad precision", ["run", "--precision", "half"] + small),
        ("unknown device index", ["run", "--device", "99"] + small),
        ("negative device index", ["run", "--device", "-3"] + small),
        ("unknown profile", ["run", "--profile", "nonexistent"] + small),
        ("unknown devices profile", ["devices", "--profile", "nonexistent"]),
        ("negative iterations", ["run", "--iterations", "-1"] + small),
        ("warm-up past the bound", ["run", "--warmup", "2147483647", "--iterations", "1"] + small),
        ("iterations past the bound", ["run", "--iterations", "2147483647"] + small),
        ("sweep warm-up past the bound", ["sweep", "--warmup", "100000"] + small),
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
        ("shape flag with --input", npy("x", "w", "--batch", "2")),
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


def main():
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--precision", choices=("fp32", "fast"), default="fp32")
    parser.add_argument("--require-coopmat", action="store_true")
    parser.add_argument("--root", default="")
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
        test_numpy_problems(vkconv, tmp, failures, opts.precision, opts.require_coopmat)
        if opts.precision == "fp32":
            test_random_mode_and_devices(vkconv, failures)
            test_bad_invocations(vkconv, tmp, failures)
    print("%.1f s" % (time.time() - start))
    if failures.messages:
        print("%d failure(s)" % len(failures.messages))
        sys.exit(1)
    print("all CLI checks passed")


if __name__ == "__main__":
    main()
