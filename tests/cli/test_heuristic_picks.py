#!/usr/bin/python3
"""The heuristic's picks, held fixed: kernel-lab's offline ranking (no GPU) of every suite of
bench/shapes.json, for every device described in bench/devices/, at each suite's own batch and at
batches 1 and 8, on the path fast precision resolves to and on fp32, and on the H200's description
through each shipped profile, must print exactly tests/cli/heuristic_picks.txt.

A change that moves a pick on purpose (a new kernel, a new rule, measured) regenerates the file
with --update and says in its commit which picks moved and why; a restructuring must leave it
as it is.

    /usr/bin/python3 test_heuristic_picks.py path/to/kernel-lab [--update]
"""
import difflib
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEVICES = os.path.join(REPO, "bench", "devices")
SHAPES = os.path.join(REPO, "bench", "shapes.json")
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "heuristic_picks.txt")
PROFILES = ["rtx4090", "rdna3", "intel-arc", "mobile", "moltenvk", "vulkan-minimum"]


def runs():
    """(label, kernel-lab arguments) of every ranking the golden file holds."""
    files = sorted(f for f in os.listdir(DEVICES) if f.endswith(".json"))
    for name in files:
        device = os.path.join(DEVICES, name)
        for path in ([], ["--path", "fp32"]):
            for batch in ([], ["--batch", "1"], ["--batch", "8"]):
                yield ("%s %s %s" % (name, " ".join(path) or "fast", " ".join(batch) or "suite batches"),
                       ["--device-file", device] + path + batch)
    for profile in PROFILES:
        yield ("nvidia-h200.json profile %s" % profile,
               ["--device-file", os.path.join(DEVICES, "nvidia-h200.json"), "--profile", profile])


def picks(lab):
    out = []
    for label, args in runs():
        res = subprocess.run([lab] + args + ["--suite", "all", "--shapes", SHAPES], capture_output=True, text=True,
                             timeout=600)
        if res.returncode not in (0, 1) or not res.stdout:
            sys.exit("FAIL: kernel-lab %s: exit %d\n%s" % (" ".join(args), res.returncode, res.stderr))
        out.append("== " + label)
        # The first line names the device file by its path: leave it out.
        out.extend(" ".join(line.split()) for line in res.stdout.splitlines()[1:])
    return out


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--update"):
        sys.exit("usage: test_heuristic_picks.py path/to/kernel-lab [--update]")
    lab = os.path.abspath(sys.argv[1])
    got = picks(lab)
    if len(sys.argv) == 3:
        with open(GOLDEN, "w") as f:
            f.write("\n".join(got) + "\n")
        print("wrote %s: %d lines" % (GOLDEN, len(got)))
        return
    with open(GOLDEN) as f:
        want = f.read().splitlines()
    if got != want:
        diff = list(difflib.unified_diff(want, got, "heuristic_picks.txt", "kernel-lab now", lineterm="", n=1))
        print("\n".join(diff[:200]))
        print("FAIL: %d pick lines differ from tests/cli/heuristic_picks.txt" %
              sum(1 for l in diff if l.startswith("+") and not l.startswith("+++")))
        sys.exit(1)
    print("all %d pick lines as in tests/cli/heuristic_picks.txt" % len(got))


if __name__ == "__main__":
    main()
