// The epilogue of the gather and patch kernels: each subgroup stages its accumulators through its
// own fragment of shared memory and hands every element to the kernel's storeAccumulator().
// Include after coopmat_tile.glsl.

// Epilogue: each subgroup stages one accumulator fragment at a time, column-major, so that
// consecutive lanes store consecutive output pixels. Columns are SC_STRIDE floats apart. On
// NVIDIA a lane holds elements of columns 2*(lane%4) of row lane/4: with MMA_M-float columns the
// 4 columns' elements of a row fall in one bank, 4-way conflicts on every store. A kernel may
// define VKCONV_SC_PAD 4 to avoid them: the packed B-in-registers kernel gained 1.3% by it, but
// the gather kernel lost up to 1.7x (H200, bench/RESULTS.md), so it is each kernel's choice.
#ifndef VKCONV_SC_PAD
#define VKCONV_SC_PAD 0
#endif
const uint SC_STRIDE = MMA_M + VKCONV_SC_PAD;
shared float sC[WARPS_M * WARPS_N * SC_STRIDE * MMA_N];

// Defined by the kernel: writes C[mLocal][nLocal] of this workgroup's tile (bias, bounds, layout).
void storeAccumulator(uint mLocal, uint nLocal, float value);

// Epilogue: fragment by fragment through this subgroup's part of sC.
void storeTile(uint warp, uint warpM, uint warpN) {
    const uint cBase = warp * SC_STRIDE * MMA_N;
    for (uint i = 0; i < FRAG_M; ++i)
        for (uint j = 0; j < FRAG_N; ++j) {
            coopMatStore(acc[i * FRAG_N + j], sC, cBase, SC_STRIDE, gl_CooperativeMatrixLayoutColumnMajor);
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            const uint m0 = warpM * WARP_TILE_M + i * MMA_M;
            const uint n0 = warpN * WARP_TILE_N + j * MMA_N;
            if (SUBGROUP % MMA_M == 0) {
                // Each lane keeps one row m, so storeAccumulator's row arithmetic (pixel,
                // image, bounds) is loop-invariant and computed once per fragment.
                const uint m = gl_SubgroupInvocationID % MMA_M;
                for (uint n = gl_SubgroupInvocationID / MMA_M; n < MMA_N; n += SUBGROUP / MMA_M)
                    storeAccumulator(m0 + m, n0 + n, sC[cBase + n * SC_STRIDE + m]);
            } else {
                for (uint e = gl_SubgroupInvocationID; e < MMA_M * MMA_N; e += SUBGROUP)
                    storeAccumulator(m0 + e % MMA_M, n0 + e / MMA_M, sC[cBase + e / MMA_M * SC_STRIDE + e % MMA_M]);
            }
            subgroupBarrier();
        }
}
