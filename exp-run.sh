#!/usr/bin/env bash
# temporary: the ResNet-50 batch-32 suite, and 840abf6's picks on it (not committed)
set -u
mkdir -p /tmp/res
OUT=/tmp/res/r50 bash bench/gpu/check.sh --budget 330 --bench --bench-suite resnet50_batch32 > /tmp/res/r50.log 2>&1
args=()
while read -r shape; do
  args+=(--lab --shape "$shape" --batch 32 --ranked --limit 1 --check 0 --iterations 100 --)
done < <(python3 -c '
import json
for s in json.load(open("bench/shapes.json"))["suites"]["resnet50_batch32"]["shapes"]:
    print("%d,%d,%d,%d,%d,%d,%d,%d" % (s["batch"], s["in_channels"], s["height"], s["width"], s["out_channels"], s["kernel"], s["stride"], s["padding"]))')
OUT=/tmp/res/old bash bench/gpu/check.sh --build build-base --budget 200 "${args[@]}" > /tmp/res/old.log 2>&1
tar czf $OUT/res.tgz -C /tmp res
