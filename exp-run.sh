#!/usr/bin/env bash
# temporary: small-batch 1x1 layers, 64-deep slices (not committed)
set -u
R=/tmp/res; run() { name=$1; shift; OUT=$R/$name bash bench/gpu/check.sh "$@" > $R/$name.log 2>&1; }
mkdir -p /tmp/res
L="--check 1 --iterations 200 --ranked"
i=0
for S in "1,1024,14,14,256,1,1,0 --batch 1" "1,256,56,56,64,1,1,0 --batch 1" "1,512,7,7,2048,1,1,0 --batch 1" "8,512,28,28,128,1,1,0 --batch 8"; do
  i=$((i+1))
  run p$i --budget 100 --lab --shape $S $L --limit 3 -- --lab --shape $S $L --filter "x64 warps,nchw" --limit 8 -- --lab --shape $S $L --filter "32x64x64,nhwc" --limit 2
done
tar czf $OUT/res.tgz -C /tmp res
