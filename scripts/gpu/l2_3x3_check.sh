#!/usr/bin/env bash
# On the GPU machine: ResNet-50's layer-2 3x3 conv (N512 C128 28x28 K128), which the direct
# epilogue made slower, with driver statistics, new (.device) against old (.device/old, 68aa1eb).
set -uo pipefail
source scripts/gpu/env.sh
for v in new old; do
  k=.device/kernel-lab; [[ $v == old ]] && k=.device/old/kernel-lab
  echo "== $v"
  timeout 120 $k --shape 512,128,28,28,128,3,1,1 --stats --check 1 --iterations 30 \
    --filter "64x128x16 warps 4x4 mma 16x16x16 stages 1 sg|64x128x32 warps 2x4 mma 16x16x16 stages 2 sg|128x128x32 warps 4x2 mma 16x16x16 stages 2 sg|64x64x32 warps 2x2 mma 16x16x16 stages 2 sg" > $OUT/l2-$v.txt 2>&1
  grep -E " ms |CS:" $OUT/l2-$v.txt | head -16
done
