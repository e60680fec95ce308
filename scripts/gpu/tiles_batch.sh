#!/usr/bin/env bash
# On the GPU machine (carry .gl and .device): alexnet1's B-in-registers kernel at 2..128 tiles a
# workgroup for N = 32, 128 and 512, against the heuristic's choice (vkconv run, --check-all at
# N=32). Checks the "about 780 workgroups" rule of config_select.cpp. Log: $OUT/tiles-batch.txt.
set -uo pipefail
source scripts/gpu/env.sh
F="32x96x16 warps 1x6,mma 16x16x16 stages 1 packed breg tiles"
{
for n in 32 128 512; do
  echo "== N=$n"
  timeout 100 .device/kernel-lab --batch $n --check 1 --iterations 50 --filter "$F" 2>&1 | grep -E " ms "
  extra=""; [ $n = 32 ] && extra="--check-all"
  timeout 60 .device/vkconv run --no-tuning-cache --batch $n $extra 2>&1 | grep -E "^(config|time|rel)"
done
} > $OUT/tiles-batch.txt 2>&1
cut -c1-150 $OUT/tiles-batch.txt
