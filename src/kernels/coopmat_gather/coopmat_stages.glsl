// Shared-memory stages of A ([k][m], 16-bit) next to B's (coopmat_b_stages.glsl), and the
// warp-tile multiply-accumulate over one K slice: the kernels that stage both operands slice by
// slice (conv2d_coopmat.comp). Include after coopmat_tile.glsl.

#include "coopmat_b_stages.glsl"

// A's rows, like B's, are padded by 8 elements (16 bytes): cooperative-matrix loads need 16-byte aligned
// offsets and strides, and the padding spreads rows over the banks.
const uint A_STRIDE = BM + 8;
shared OPERAND sA[STAGES * BK * A_STRIDE];
// acc += A_slice * B_slice for the slice held in `stage` (B_GLOBAL: B rows k0.. of bBase).
void multiplySlice(uint stage, uint warpM, uint warpN, uint k0, uint bBase) {
    if ((DEBUG_SKIP & 2u) != 0u) return;
    for (uint kk = 0; kk < BK; kk += MMA_K) {
        coopmat<OPERAND, gl_ScopeSubgroup, MMA_M, MMA_K, gl_MatrixUseA> a[FRAG_M];
        for (uint i = 0; i < FRAG_M; ++i)
            coopMatLoad(a[i], sA, (stage * BK + kk) * A_STRIDE + warpM * WARP_TILE_M + i * MMA_M,
                        A_STRIDE, gl_CooperativeMatrixLayoutColumnMajor);
        for (uint j = 0; j < FRAG_N; ++j) {
            coopmat<OPERAND, gl_ScopeSubgroup, MMA_K, MMA_N, gl_MatrixUseB> b;
            if (B_GLOBAL)
                coopMatLoad(b, weight_vec, bBase + ((k0 + kk) * B_COLS + warpN * WARP_TILE_N + j * MMA_N) / 4,
                            B_COLS / 4, gl_CooperativeMatrixLayoutRowMajor);
            else
                coopMatLoad(b, sB, (stage * BK + kk) * B_STRIDE4 + (warpN * WARP_TILE_N + j * MMA_N) / 4,
                            B_STRIDE4, gl_CooperativeMatrixLayoutRowMajor);
            for (uint i = 0; i < FRAG_M; ++i)
                acc[i * FRAG_N + j] = coopMatMulAdd(a[i], b, acc[i * FRAG_N + j]);
        }
    }
}

