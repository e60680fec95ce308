source scripts/gpu/env.sh
for v in v0 v1 v2 v3; do echo "=== $v"; .device/$v/kernel-lab --filter "32x96x16 warps 1x6,breg tiles 32 " --iterations 100 --check 1 --skip 4 --skip 35 --skip 8 2>&1 | grep -E " ms "; done
echo "=== v4"; .device/v4/kernel-lab --filter "32x96x16 warps 1x6,breg,tiles 98|tiles 49|tiles 14 |tiles 7 |tiles 32 " --iterations 100 --check 5 --skip 4 --skip 35 2>&1 | grep -E " ms "
echo "=== v0 again"; .device/v0/kernel-lab --filter "32x96x16 warps 1x6,breg tiles 32 " --iterations 100 --check 1 2>&1 | grep -E " ms "
