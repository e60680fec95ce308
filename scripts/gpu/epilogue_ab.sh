#!/usr/bin/env bash
# On the GPU machine: variants of the direct epilogue (coopmat_store_direct.glsl), each a build
# of kernel-lab and vkconv-bench: .device (the default build) and .device/b (built with
# VKCONV_DIRECT_GUARD defined). Carry .gl and .device. Logs go to $OUT.
set -uo pipefail
source scripts/gpu/env.sh
d=.device
F="32x96x16 warps 1x6 mma 16x16x16 stages 1 packed breg tiles 8 sg|64x96x32 warps 4x3 mma 16x16x16 stages 1 sg|64x64x32 warps 4x4 mma 16x8x16 stages 1 sg"
for v in ${VARIANTS:-a b}; do
  dir=$d; [[ $v != a ]] && dir=$d/$v
  echo "== alexnet1 $v"
  timeout 100 $dir/kernel-lab --stats --check 1 --iterations 50 --skip 16 --skip 2 --filter "$F" > $OUT/lab-$v.txt 2>&1
  grep -E " ms |CS:|skip" $OUT/lab-$v.txt | head -24
done
for v in ${VARIANTS:-a b}; do
  dir=$d; [[ $v != a ]] && dir=$d/$v
  echo "== layers $v"
  timeout 150 $dir/vkconv-bench --shapes $d/shapes.json --suite layers --precision fast --json $OUT/layers-$v.json > $OUT/layers-$v.log 2>&1
  cut -c1-30,100- $OUT/layers-$v.log | head -26
done
