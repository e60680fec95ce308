#!/usr/bin/env bash
# On the GPU machine (carry .gl and .device): the session-6 final check, the B-in-registers
# kernel with its row-major epilogue and the next window prefetched across it. The whole suite,
# the heuristic's alexnet1 choice, the benchmark (final_check.sh), then alexnet1's
# B-in-registers configurations at 4..128 tiles a workgroup at N=256 (with parts left out) and
# N=64. Logs in $OUT/results-$TAG.tgz (TAG default i) and $OUT/lab-tiles.txt. final_j.sh is
# the same check, tagged j.
set -uo pipefail
TAG=${TAG:-i} bash scripts/gpu/final_check.sh
source scripts/gpu/env.sh > /dev/null
F="32x96x16 warps 1x6,mma 16x16x16 stages 1 packed breg tiles"
{
  timeout 150 .device/kernel-lab --check 2 --iterations 100 --skip 35 --skip 16 --skip 2 --skip 4 --filter "$F" 2>&1
  timeout 100 .device/kernel-lab --batch 64 --check 1 --iterations 100 --filter "$F" 2>&1
} | grep -E " ms " > $OUT/lab-tiles.txt
cat $OUT/lab-tiles.txt | cut -c1-150
