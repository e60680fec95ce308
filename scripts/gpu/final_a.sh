#!/usr/bin/env bash
# On the GPU machine, one call: capability table, the whole test suite, vkconv's NumPy mode
# against PyTorch (float64), the alexnet1 sweep and a run that uses its cache, and cold/warm plan
# times. Carry .gl and .device (vkconv, vkconv_tests, vkconv-bench, shapes.json). All logs go
# into one archive, $OUT/results-a.tgz (the device tool returns at most 8 files).
set -uo pipefail
source scripts/gpu/env.sh
R=/tmp/res-a; rm -rf $R; mkdir -p $R /tmp/tc
d=.device
$d/vkconv devices > $R/devices.txt 2>&1
echo "== tests"; ( time timeout 240 $d/vkconv_tests --gtest_brief=1 ) > $R/tests.txt 2>&1; tail -6 $R/tests.txt
echo "== torch check"; timeout 150 python3 scripts/gpu/torch_check.py $d/vkconv /tmp/tc > $R/torch_check.txt 2>&1; tail -18 $R/torch_check.txt
echo "== sweep alexnet1"
( time timeout 170 $d/vkconv sweep --suite alexnet1 --cache-dir $R/vc --json $R/sweep-alexnet1.json ) > $R/sweep-alexnet1.txt 2>&1
grep -v "^\[" $R/sweep-alexnet1.txt | tail -30
echo "== run with the tuning cache / without"
timeout 60 $d/vkconv run --cache-dir $R/vc --explain > $R/run-cached.txt 2>&1; grep -E "^(config|time|rel|plan)" $R/run-cached.txt
timeout 60 $d/vkconv run --cache-dir $R/vc --no-tuning-cache > $R/run-default.txt 2>&1; grep -E "^(config|time|rel|plan)" $R/run-default.txt
echo "== plan time: cold, warm, cold (no pipeline cache)"
D=$(mktemp -d)
for extra in "" "" "--no-pipeline-cache"; do
  __GL_SHADER_DISK_CACHE=0 timeout 60 $d/vkconv run --cache-dir $D --iterations 0 --no-tuning-cache $extra 2>&1 | grep -E "^plan" | tee -a $R/plan-times.txt
done
tar czf $OUT/results-a.tgz -C $R .
