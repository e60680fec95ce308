#!/usr/bin/env bash
# Session 7, third device call: the packing pass with consecutive threads on consecutive pixels
# of one word (.device/xmajor: pack_input_xmajor_variant.comp over 217c6d1's tree) against
# 217c6d1 (.device), the packing alone (--skip 8) and the whole kernel, two rounds.
set -uo pipefail
source scripts/gpu/env.sh > /dev/null
F="32x96x16 warps 1x6,mma 16x16x16 stages 1 packed breg tiles 32 "
for round in 1 2; do
  for b in . xmajor; do
    echo "== round $round: $b"
    timeout 60 .device/$b/kernel-lab --check 1 --iterations 100 --skip 8 --filter "$F" 2>&1 | grep -E " ms |error"
  done
done
