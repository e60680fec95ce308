#!/usr/bin/env bash
# The final H200 check of session 3 (per-tap K runs, epilogue staging):
# scripts/gpu/final_check.sh, logs in $OUT/results-f.tgz. Carry .gl and .device.
TAG=f exec bash "$(dirname "${BASH_SOURCE[0]}")/final_check.sh"
