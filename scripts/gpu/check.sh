#!/usr/bin/env bash
# On the GPU machine: the capability table, the whole GoogleTest suite, the kernel lab and the
# alexnet1 benchmark, in one call. Carry .gl and .device (kernel-lab, vkconv, vkconv_tests,
# vkconv-bench, shapes.json copied from a Release build). Usage:
#   bash scripts/gpu/check.sh [kernel-lab filter]
set -uo pipefail
source scripts/gpu/env.sh
out=${OUT:-/tmp}
d=.device
$d/vkconv devices > "$out/devices.txt" 2>&1; head -30 "$out/devices.txt"
echo "== test suite"
( time timeout 300 $d/vkconv_tests --gtest_brief=1 ) > "$out/tests.txt" 2>&1
tail -15 "$out/tests.txt"
if [[ -n "${1:-}" ]]; then
  echo "== kernel lab: $1"
  timeout 200 $d/kernel-lab --path coopmat-f16 --check 3 --filter "$1" > "$out/lab.txt" 2>&1
  grep -A4 "== best" "$out/lab.txt"
fi
echo "== benchmark"
timeout 150 $d/vkconv-bench --shapes $d/shapes.json --suite alexnet1 --json "$out/bench-fast.json" 2>&1 | tail -6
timeout 100 $d/vkconv-bench --shapes $d/shapes.json --suite alexnet1 --precision fp32 --json "$out/bench-fp32.json" 2>&1 | tail -3
