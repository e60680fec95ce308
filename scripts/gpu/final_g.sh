#!/usr/bin/env bash
# The final H200 check of session 4 (direct epilogue, packed B-in-registers kernel in its own
# shader). Carry .gl and .device, with .device/b holding vkconv_tests and kernel-lab of a second
# build to check alongside (in the run RESULTS cites: .device a variant of the breg epilogue that
# staged both fragments at once, .device/b 0a34f8e), .device/old vkconv-bench of 68aa1eb.
# Logs in $OUT.
set -uo pipefail
TAG=g bash scripts/gpu/final_check.sh
source scripts/gpu/env.sh >/dev/null
echo "== suite, 0a34f8e"; ( timeout 300 .device/b/vkconv_tests --gtest_brief=1 ) > $OUT/tests-b.txt 2>&1
grep -E "FAILED|PASSED|SKIPPED \]" $OUT/tests-b.txt | tail -4
echo "== alexnet1 breg tiles 8, 0a34f8e"
timeout 60 .device/b/kernel-lab --stats --check 1 --iterations 50 \
  --filter "32x96x16 warps 1x6 mma 16x16x16 stages 1 packed breg tiles 8 sg" > $OUT/lab-b.txt 2>&1
grep -E " ms |CS:" $OUT/lab-b.txt | head -4
echo "== breg parts"; bash scripts/gpu/breg_parts.sh
echo "== layers A/B"; bash scripts/gpu/epilogue_ab.sh
