#!/usr/bin/env bash
# Session 7, second device call: the bias loaded into the breg kernel's accumulators, with
# (.device, the staged packing pass now with 4 loads in flight a thread and constant divisors)
# and without (.device/oldpack: 6e0b361's unstaged pass, the padding word left unwritten) the
# staged packing; session 6's kernel (.device/head) as the reference. The packing alone
# (--skip 8), the whole kernel, twice each.
set -uo pipefail
source scripts/gpu/env.sh > /dev/null
F="32x96x16 warps 1x6,mma 16x16x16 stages 1 packed breg tiles 32 "
for round in 1 2; do
  for b in head . oldpack; do
    echo "== round $round: $b"
    timeout 60 .device/$b/kernel-lab --check 1 --iterations 100 --skip 8 --filter "$F" 2>&1 | grep -E " ms |error"
  done
done
