#!/usr/bin/env bash
# On the GPU machine: alexnet1's packed B-in-registers kernel at 2, 4, 8 and 16 tiles a workgroup
# and the gather kernel, with driver statistics and parts left out (kernel-lab --skip). Carry .gl
# and .device. Log in $OUT/lab-breg.txt.
set -uo pipefail
source scripts/gpu/env.sh
d=.device
F="32x96x16 warps 1x6 mma 16x16x16 stages 1 packed breg tiles|64x96x32 warps 4x3 mma 16x16x16 stages 1 sg"
timeout 150 $d/kernel-lab --stats --check 5 --iterations 50 --skip 16 --skip 2 --filter "$F" > $OUT/lab-breg.txt 2>&1
grep -E " ms |CS:|skip" $OUT/lab-breg.txt | head -40
