source scripts/gpu/env.sh
f="32x96x16 warps 1x6,breg tiles 32 "
for v in v0 v5 v9 v10 v11 v12 v7; do echo "=== $v"; .device/$v/kernel-lab --filter "$f" --iterations 100 --check 1 2>&1 | grep -E "PASS|FAIL"; done
echo "=== v12 stats"; .device/v12/kernel-lab --filter "$f" --iterations 20 --check 0 --stats 2>&1 | grep -iE "regist" | head -2
