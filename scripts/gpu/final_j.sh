#!/usr/bin/env bash
# On the GPU machine (carry .gl and .device): the session-7 final check, the B-in-registers
# kernel with its accumulators started at the bias (no bias in the epilogue): final_i.sh's check
# (the whole suite, the heuristic's alexnet1 choice, the benchmark, the tiles sweep with parts
# left out), tagged j. Logs in $OUT/results-j.tgz and $OUT/lab-tiles.txt.
TAG=j exec bash scripts/gpu/final_i.sh
