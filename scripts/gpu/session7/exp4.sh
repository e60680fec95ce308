#!/usr/bin/env bash
# Session 7, fourth device call: the breg epilogue's staging-store loop with [[dont_unroll]]
# (.device/L1: breg_store_dont_unroll_variant.comp; 104 s -> 6 s of lavapipe compile) and with a
# subgroup barrier after each fragment (.device/L2) against 752ad38 (.device), two rounds, with
# the driver's statistics.
set -uo pipefail
source scripts/gpu/env.sh > /dev/null
F="32x96x16 warps 1x6,mma 16x16x16 stages 1 packed breg tiles 32 "
for round in 1 2; do
  for b in . L1 L2; do
    echo "== round $round: $b"
    timeout 60 .device/$b/kernel-lab --check 1 --iterations 100 --stats --filter "$F" 2>&1 | grep -E " ms |error|CS: Register Count=1"
  done
done
