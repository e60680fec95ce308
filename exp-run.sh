#!/usr/bin/env bash
# temporary: mid-size batches, the pick against the tile families (not committed)
set -u
R=/tmp/res; run() { name=$1; shift; OUT=$R/$name bash bench/gpu/check.sh "$@" > $R/$name.log 2>&1; }
mkdir -p /tmp/res
F="32x64x64 warps 1x4 mma 16x16x16 stages 2 nhwc |32x64x32 warps 1x4 mma 16x16x16 stages 2 nhwc |128x128x16 warps 2x2 mma 16x16x16 stages 2 nhwc |64x64x32 warps 2x4 mma 16x16x16 stages 2 nhwc |128x64x16 warps 2x2 mma 16x16x16 stages 2 nhwc ,nhwc"
L="--check 1 --iterations 100"
i=0
for S in "32,256,14,14,256,3,1,1 --batch 32" "32,128,28,28,128,3,1,1 --batch 32" "32,256,28,28,256,3,2,1 --batch 32" "32,64,56,56,64,3,1,1 --batch 32" "16,128,28,28,128,3,1,1 --batch 16" "16,512,7,7,512,3,1,1 --batch 16"; do
  i=$((i+1)); run m$i --budget 75 --lab --shape $S $L --ranked --limit 1 -- --lab --shape $S $L --filter "$F"
done
S="32,1024,14,14,256,1,1,0 --batch 32"; run m7 --budget 60 --lab --shape $S $L --ranked --limit 1 -- --lab --shape $S $L --filter "nchw" --ranked --limit 8
tar czf $OUT/res.tgz -C /tmp res
