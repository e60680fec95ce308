#!/usr/bin/env bash
# On the GPU machine: time candidate configurations of alexnet1 with the kernel lab.
# Run from the repo root with .gl and .device (holding kernel-lab) carried:
#   bash scripts/gpu/lab.sh [kernel-lab args...]
set -uo pipefail
source scripts/gpu/env.sh
out=${OUT:-/tmp}
.device/kernel-lab "$@" 2>&1 | tee "$out/lab-$(date +%H%M%S).txt" | grep -v "^ *[0-9.]* ms .*plan" | tail -40
echo "== fastest 25"
sort -n "$out"/lab-*.txt 2>/dev/null | grep " ms .*plan" | head -25
