#!/usr/bin/env bash
# On the GPU machine: the direct epilogue (coopmat_store_direct.glsl, 0a34f8e) against the
# shared-memory staged one it replaced (68aa1eb), the layers suite twice each, interleaved, so
# that the GPU's run-to-run drift shows. Carry .gl and .device, with .device/old holding
# vkconv-bench built from 68aa1eb. Logs go to $OUT.
set -uo pipefail
source scripts/gpu/env.sh
d=.device
for round in 1 2; do
  for v in new old; do
    b=$d/vkconv-bench; [[ $v == old ]] && b=$d/old/vkconv-bench
    timeout 150 $b --shapes $d/shapes.json --suite layers --precision fast \
      --json $OUT/layers-$v-$round.json > $OUT/layers-$v-$round.log 2>&1
    echo "layers $v round $round: rc $?"
  done
done
