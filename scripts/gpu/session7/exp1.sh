#!/usr/bin/env bash
# Session 7, first device call: the staged packing pass (shaders/pack_input_f16.comp) against
# session 6's (.device/head: kernel-lab and vkconv-bench built at 6e0b361), the packing alone
# (--skip 8) and the whole alexnet1 kernel; the bias loaded into the accumulators
# (.device/bias, a variant of the breg kernel); the packed and breg test cases.
set -uo pipefail
source scripts/gpu/env.sh > /dev/null
F="32x96x16 warps 1x6,mma 16x16x16 stages 1 packed breg tiles 32 "
for round in 1 2; do
  for b in head . bias; do
    echo "== round $round: $b"
    timeout 60 .device/$b/kernel-lab --check 1 --iterations 100 --skip 8 --filter "$F" 2>&1 | grep -E " ms |error|rel"
  done
done
timeout 200 .device/vkconv_tests --gtest_filter='*packed*:*breg*:*Chunk*:*packing*' 2>&1 | tail -n 4
