source scripts/gpu/env.sh
for r in 1 2; do for v in varA varB varC .; do echo "=== $v"; .device/$v/kernel-lab --filter "32x96x16 warps 1x6,breg tiles 32 " --iterations 100 --check 1 2>&1 | grep -E "PASS|FAIL"; done; done
