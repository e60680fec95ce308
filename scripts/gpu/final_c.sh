#!/usr/bin/env bash
# On the GPU machine: the heuristic against the sweep's best over the benchmark's layer suite
# (the 15% criterion). Carry .gl and .device. Output in $OUT/results-c.tgz.
set -uo pipefail
source scripts/gpu/env.sh
R=/tmp/res-c; rm -rf $R; mkdir -p $R
d=.device
( time timeout ${SWEEP_TIMEOUT_S:-540} $d/vkconv sweep --suite layers --precision fast --no-tuning-cache --no-save \
    --candidates ${CANDIDATES:-30} --json $R/sweep-layers.json ) > $R/sweep-layers.txt 2>&1
sed -n '/== summary/,$p' $R/sweep-layers.txt
tar czf $OUT/results-c.tgz -C $R .
