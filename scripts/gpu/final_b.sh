#!/usr/bin/env bash
# On the GPU machine: the benchmark (bench/run_h200.sh: alexnet1 fast and fp32, the layers
# suite, PyTorch's conv2d on the same shapes) and cold/warm plan times. Carry .gl and .device.
# Everything lands in $OUT/results-b.tgz.
set -uo pipefail
source scripts/gpu/env.sh
R=/tmp/res-b; rm -rf $R; mkdir -p $R
d=.device
echo "== plan time: cold, warm, cold (no pipeline cache)"
D=$(mktemp -d)
for extra in "" "" "--no-pipeline-cache"; do
  __GL_SHADER_DISK_CACHE=0 timeout 60 $d/vkconv run --cache-dir $D --iterations 0 --no-tuning-cache $extra 2>&1 | grep -E "^plan" | tee -a $R/plan-times.txt
done
echo "== benchmark"
OUT=$R/bench VKCONV_BENCH=$d/vkconv-bench BENCH_BUDGET_S=${BENCH_BUDGET_S:-420} bash bench/run_h200.sh 2>&1 | tail -45
tar czf $OUT/results-b.tgz -C $R .
