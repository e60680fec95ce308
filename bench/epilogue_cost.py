#!/usr/bin/env python3
"""What the fused epilogue costs: per shape, vkconv's time with an epilogue (check.sh
--bench-epilogue: vkconv_SUITE_fast_epilogue.json) against the same run without one
(vkconv_SUITE_fast.json) plus the residual's bytes read at the copy bandwidth the run measured.
The target (#58): epilogue <= (plain + residual bytes / copy bandwidth) x 1.03 on every shape.

usage: epilogue_cost.py PLAIN.json EPILOGUE.json
"""
import json
import math
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    plain, epi = (json.load(open(p)) for p in sys.argv[1:])
    gbps = epi["copy_bandwidth"]["gbps"]  # bytes read + written a second
    base = {r["name"]: r for r in plain["results"] if r["status"] == "ok"}
    ratios, over = [], []
    print("%-32s %9s %9s %9s %9s %7s" % ("shape", "plain ms", "epi ms", "+z read", "allowed", "ratio"))
    for r in epi["results"]:
        b = base.get(r["name"])
        if r["status"] != "ok" or not b:
            print("%-32s %s" % (r["name"], r["status"]))
            continue
        residual_ms = r["output_bytes"] / (gbps * 1e9) * 1e3
        allowed = b["time_ms"]["median"] + residual_ms
        ratio = r["time_ms"]["median"] / allowed
        ratios.append(ratio)
        if ratio > 1.03:
            over.append(r["name"])
        print("%-32s %9.4f %9.4f %9.4f %9.4f %7.3f%s" % (r["name"], b["time_ms"]["median"], r["time_ms"]["median"],
                                                           residual_ms, allowed, ratio, "  OVER" if ratio > 1.03 else ""))
    if ratios:
        print("epilogue ÷ (plain + residual read): geometric mean %.3f, max %.3f; over 1.03: %d of %d %s" % (
            math.exp(sum(map(math.log, ratios)) / len(ratios)), max(ratios), len(over), len(ratios),
            ", ".join(over)))


if __name__ == "__main__":
    main()
