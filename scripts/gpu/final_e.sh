#!/usr/bin/env bash
# The final H200 check of session 2 (the packed-input loader):
# scripts/gpu/final_check.sh, logs in $OUT/results-e.tgz. Carry .gl and .device.
TAG=e exec bash "$(dirname "${BASH_SOURCE[0]}")/final_check.sh"
