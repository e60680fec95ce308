#!/usr/bin/python3
"""kernel-lab --device-file: the heuristic's ranking for a described device, with no GPU.

1. Every description in bench/devices/ ranks the whole `layers` suite: one row a shape, each with
   a configuration of the path that device has (fp32 on Mesa 25's lavapipe, cooperative matrices
   of subgroup 8 on Mesa 26's, of subgroup 32 on the H200), the grouped layers the grouped direct
   kernel on each.
2. One problem prints its top N with costs, cheapest first; --filter keeps the matching ones, each
   with its rank in the whole ranking (a suite: the best match a shape, "#rank").
3. Bad invocations and bad descriptions: exit 1 (not a signal), one stderr line that starts
   "kernel-lab: error:" and names the flag or the description's field.

Run: /usr/bin/python3 test_kernel_lab_offline.py path/to/kernel-lab
"""
import json
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEVICES = os.path.join(REPO, "bench", "devices")
SHAPES = os.path.join(REPO, "bench", "shapes.json")
ERROR_PREFIX = "kernel-lab: error:"


def run(lab, args):
    return subprocess.run([lab] + args, capture_output=True, text=True, timeout=120)


def main():
    lab = os.path.abspath(sys.argv[1])
    failures = []

    def fail(message):
        failures.append(message)
        print("FAIL: " + message, flush=True)

    with open(SHAPES) as f:
        layers = [s["name"] for s in json.load(f)["suites"]["layers"]["shapes"]]
    expected = {"lavapipe-mesa25.json": "fp32 ", "lavapipe-mesa26.json": " sg8", "nvidia-h100.json": " sg32",
                "nvidia-h200.json": " sg32"}
    files = sorted(f for f in os.listdir(DEVICES) if f.endswith(".json"))
    if sorted(expected) != files:
        fail("bench/devices/ holds %s; this test knows %s" % (files, sorted(expected)))
    for name in files:
        path = os.path.join(DEVICES, name)
        res = run(lab, ["--device-file", path, "--suite", "layers", "--shapes", SHAPES])
        rows = res.stdout.splitlines()[1:]
        print("%-24s exit %d, %d rows" % (name, res.returncode, len(rows)), flush=True)
        if res.returncode != 0 or [r.split()[0] for r in rows] != layers:
            fail("%s: exit %d, rows %s\n%s" % (name, res.returncode, [r.split()[0] for r in rows if r], res.stderr))
            continue
        # Each row: name, the problem, then the configuration. Grouped layers (" gN" in the
        # problem) take the grouped direct kernel everywhere; the rest the device's own path.
        for row in rows:
            want = "fp32 grouped-direct" if re.search(r" g\d+ ", row) else expected.get(name, "?")
            if want not in row:
                fail("%s: row without %r: %s" % (name, want, row))

    h200 = os.path.join(DEVICES, "nvidia-h200.json")
    res = run(lab, ["--device-file", h200, "--shape", "8,512,7,7,512,3,1,1", "--limit", "3"])
    ranked = [l for l in res.stdout.splitlines() if re.match(r"^ +\d+  cost ", l)]
    costs = [float(l.split()[2]) for l in ranked]
    print("ranking of one problem: exit %d, %d lines" % (res.returncode, len(ranked)), flush=True)
    if res.returncode != 0 or len(ranked) != 3 or costs != sorted(costs):
        fail("--shape --limit 3: exit %d, ranking %s\n%s" % (res.returncode, ranked, res.stdout + res.stderr))

    # --filter: the matching configurations, each with its rank in the whole ranking.
    shape = ["--device-file", h200, "--shape", "16,2048,7,7,512,1,1,0"]
    res = run(lab, shape + ["--filter", "nchw,split-k 4 ", "--limit", "2"])
    kept = [l.split(None, 3) for l in res.stdout.splitlines() if re.match(r"^ +\d+  cost ", l)]
    ranks = [int(k[0]) for k in kept]
    full = run(lab, shape + ["--limit", str(max(ranks + [1]))])
    whole = [l.split(None, 3)[3] for l in full.stdout.splitlines() if re.match(r"^ +\d+  cost ", l)]
    ok = (res.returncode == 0 and len(kept) == 2 and ranks == sorted(ranks)
          and all("nchw" in k[3] and "split-k 4 " in k[3] for k in kept)
          and all(len(whole) >= r and whole[r - 1] == k[3] for r, k in zip(ranks, kept)))
    print("--filter on one problem: exit %d, ranks %s" % (res.returncode, ranks), flush=True)
    if not ok:
        fail("--filter: exit %d, kept %s, whole ranking %s\n%s" % (res.returncode, kept, whole[:20], res.stdout + res.stderr))
    res = run(lab, ["--device-file", h200, "--suite", "layers", "--shapes", SHAPES, "--filter", "nchw"])
    rows = res.stdout.splitlines()[1:]
    ok = res.returncode == 0 and len(rows) == len(layers) and all(
        re.search(r" #\d+ .*nchw", r) or "none of" in r and "matches the filter" in r for r in rows)
    print("--filter on a suite: exit %d, %d rows" % (res.returncode, len(rows)), flush=True)
    if not ok or not any(" #" in r for r in rows):
        fail("--filter on a suite: exit %d, rows:\n%s" % (res.returncode, "\n".join(rows) + res.stderr))

    with tempfile.TemporaryDirectory(prefix="kernel_lab_offline_") as tmp:
        with open(h200) as f:
            doc = json.load(f)
        doc["devices"][0]["compute_units"] = "many"
        bad_field = os.path.join(tmp, "bad-field.json")
        with open(bad_field, "w") as f:
            json.dump(doc, f)
        not_json = os.path.join(tmp, "not-json.json")
        with open(not_json, "w") as f:
            f.write("{devices: [")
        cases = [
            ("no such file", ["--device-file", os.path.join(tmp, "none.json")], "cannot open device file"),
            ("a field of the wrong type", ["--device-file", bad_field], 'device.compute_units = "many"'),
            ("not JSON", ["--device-file", not_json], "not valid JSON"),
            ("device index past the file", ["--device-file", h200, "--device-index", "3"], "devices[3] = missing"),
            ("unknown suite", ["--device-file", h200, "--suite", "nosuch", "--shapes", SHAPES], "suite = nosuch"),
            ("shape and suite", ["--device-file", h200, "--suite", "layers", "--shape", "1,8,8,8,8,3,1,1"], "--shape"),
            ("suite without a device file", ["--suite", "layers"], "--suite = layers: needs --device-file"),
            ("bad shape", ["--device-file", h200, "--shape", "1,8,8"], "--shape = 1,8,8"),
            ("a flag of a GPU run", ["--device-file", h200, "--iterations", "50"], "--iterations = given"),
            ("warm-up of a GPU run", ["--device-file", h200, "--warmup-ms", "50"], "--warmup-ms = given"),
            ("warm-up not a number", ["--device-file", h200, "--warmup-ms", "fast"], "--warmup-ms = fast"),
            ("buffer shift of a GPU run", ["--device-file", h200, "--shift-mib", "8"], "--shift-mib = given"),
            ("buffer shift out of range", ["--device-file", h200, "--shift-mib", "-1"], "--shift-mib = -1"),
        ]
        for label, args, needle in cases:
            res = run(lab, args)
            lines = res.stderr.splitlines()
            ok = res.returncode == 1 and len(lines) == 1 and lines[0].startswith(ERROR_PREFIX) and needle in lines[0]
            print("%-30s exit %d  %s" % (label, res.returncode, lines[0] if lines else "(no stderr)"), flush=True)
            if not ok:
                fail("%s: kernel-lab %s: expected exit 1 and one line naming %r, got exit %d:\n%s"
                     % (label, " ".join(args), needle, res.returncode, res.stderr))

    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("all kernel-lab offline checks passed")


if __name__ == "__main__":
    main()
