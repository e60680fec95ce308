source scripts/gpu/env.sh
f="32x96x16 warps 1x6,breg tiles 32 "
for v in v0 v5 v7; do echo "=== $v"; .device/$v/kernel-lab --filter "$f" --iterations 100 --check 1 --skip 4 2>&1 | grep -E " ms "; done
for v in v6 v8; do echo "=== $v"; .device/$v/kernel-lab --filter "32x96x16 warps 1x6,breg tiles 8 |tiles 16 |tiles 32 " --iterations 100 --check 3 --skip 4 2>&1 | grep -E " ms "; done
echo "=== v5 stats"; .device/v5/kernel-lab --filter "$f" --iterations 20 --check 0 --stats 2>&1 | grep -iE "regist|local|shared" | head -5
