source scripts/gpu/env.sh
echo "=== v12"; .device/v12/kernel-lab --filter "32x96x16 warps 1x6,breg tiles 32 " --iterations 100 --check 1 2>&1 | grep -E "PASS|FAIL"
echo "=== pp"; VKCONV_PP=1 .device/pp/kernel-lab --filter "32x96x16 warps 1x6,breg tiles 16 |tiles 32 |tiles 64 |tiles 128 " --iterations 100 --check 4 --skip 4 --skip 16 --stats 2>&1 | grep -E " ms |Register"
echo "=== pp 16x96"; VKCONV_PP=1 .device/pp/kernel-lab --filter "16x96x16 warps 1x6,breg tiles 32 |tiles 64 " --iterations 100 --check 2 2>&1 | grep -E "PASS|FAIL"
