#!/usr/bin/env bash
# On the GPU machine, one call (session 2, the packed-input loader): the whole test suite, the
# heuristic's choice for alexnet1 with its time, the benchmark on alexnet1 and the layers suite
# (fast), and the kernel lab over the packed configurations. Carry .gl and .device (vkconv,
# vkconv_tests, vkconv-bench, kernel-lab, shapes.json). Logs go into $OUT/results-d.tgz.
set -uo pipefail
source scripts/gpu/env.sh
R=/tmp/res-d; rm -rf $R; mkdir -p $R
d=.device
echo "== tests"; ( time timeout 300 $d/vkconv_tests --gtest_brief=1 ) > $R/tests.txt 2>&1; tail -8 $R/tests.txt
echo "== run (heuristic)"
timeout 60 $d/vkconv run --no-tuning-cache --explain > $R/run-default.txt 2>&1; grep -E "^(config|time|rel|plan)" $R/run-default.txt
echo "== benchmark"
timeout 90 $d/vkconv-bench --shapes $d/shapes.json --suite alexnet1 --precision fast --json $R/alexnet1_fast.json > $R/alexnet1_fast.log 2>&1; tail -5 $R/alexnet1_fast.log
timeout 200 $d/vkconv-bench --shapes $d/shapes.json --suite layers --precision fast --json $R/layers_fast.json > $R/layers_fast.log 2>&1; tail -40 $R/layers_fast.log
echo "== kernel lab: packed"
timeout 120 $d/kernel-lab --filter "packed,x96x16 warps 1x6|x96x16 warps 4x3|x96x48 warps 8x3,mma 16x16x16" --check 3 --skip 8 > $R/lab-packed.txt 2>&1
grep " ms" $R/lab-packed.txt | sort -n | head -12
tar czf $OUT/results-d.tgz -C $R .
