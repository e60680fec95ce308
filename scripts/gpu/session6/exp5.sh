source scripts/gpu/env.sh
for v in v12 pf; do echo "=== $v"; .device/$v/kernel-lab --filter "32x96x16 warps 1x6,breg tiles 16 |tiles 32 |tiles 64 " --iterations 100 --check 3 --stats 2>&1 | grep -E "PASS|FAIL|Register Count=1[0-9][0-9]"; done
echo "=== pf 16x96"; .device/pf/kernel-lab --filter "16x96x16 warps 1x6,breg tiles 32 |tiles 64 " --iterations 100 --check 2 --stats 2>&1 | grep -E "PASS|FAIL|Register Count=1[0-9][0-9]"
