#!/usr/bin/env bash
# On the GPU machine, one call: the whole test suite, the heuristic's choice for alexnet1 with
# its time, the benchmark on alexnet1 and the layers suite (fast), the packed loader on two other
# first layers against the gather configuration the heuristic picks for them, and the driver's
# statistics of the alexnet1 kernels. Carry .gl and .device (vkconv, vkconv_tests, vkconv-bench,
# kernel-lab, shapes.json). TAG (default x) names the run: logs go into $OUT/results-$TAG.tgz.
# final_e.sh and final_f.sh are the runs bench/RESULTS.md cites.
set -uo pipefail
source scripts/gpu/env.sh
TAG=${TAG:-x}
R=/tmp/res-$TAG; rm -rf $R; mkdir -p $R
d=.device
echo "== tests"; ( time timeout 300 $d/vkconv_tests --gtest_brief=1 ) > $R/tests.txt 2>&1
grep -E "FAILED|PASSED|SKIPPED \]|^real" $R/tests.txt | tail -8
echo "== run (heuristic)"
timeout 60 $d/vkconv run --no-tuning-cache --explain > $R/run-default.txt 2>&1; grep -E "^(config|time|rel)" $R/run-default.txt
echo "== benchmark"
timeout 90 $d/vkconv-bench --shapes $d/shapes.json --suite alexnet1 --precision fast --json $R/alexnet1_fast.json > $R/alexnet1_fast.log 2>&1; tail -3 $R/alexnet1_fast.log
timeout 200 $d/vkconv-bench --shapes $d/shapes.json --suite layers --precision fast --json $R/layers_fast.json > $R/layers_fast.log 2>&1
grep -E "resnet50_conv1 |vgg16_conv1_1 " $R/layers_fast.log | tail -2
echo "== first layers: packed (heuristic) against the gather loader's heuristic choice"
timeout 60 $d/kernel-lab --shape 128,3,224,224,64,7,2,3 --check 2 --iterations 30 \
  --filter "32x64x16 warps 1x4 mma 16x16x16 stages 1 packed breg tiles 8 sg|64x64x32 warps 4x4 mma 16x8x16 stages 1 sg" > $R/lab-resnet-conv1.txt 2>&1
timeout 60 $d/kernel-lab --shape 32,3,224,224,64,3,1,1 --check 2 --iterations 30 \
  --filter "32x64x16 warps 1x4 mma 16x16x16 stages 1 packed breg tiles 8 sg|64x64x32 warps 4x4 mma 16x8x16 stages 1 sg" > $R/lab-vgg-conv1_1.txt 2>&1
grep -h "err" $R/lab-resnet-conv1.txt $R/lab-vgg-conv1_1.txt
echo "== alexnet1: driver statistics"
timeout 60 $d/kernel-lab --stats --check 1 --iterations 30 \
  --filter "32x96x16 warps 1x6 mma 16x16x16 stages 1 packed breg tiles 32 sg|64x96x32 warps 4x3 mma 16x16x16 stages 1 sg" > $R/lab-stats.txt 2>&1
grep -E " ms |CS:" $R/lab-stats.txt | head -8
tar czf $OUT/results-$TAG.tgz -C $R .
