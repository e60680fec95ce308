// The cooperative-matrix workgroup tile shared by the coopmat kernels: kernel constants,
// the shared-memory stages of A ([k][m], 16-bit) and B ([k][n], 16-bit vec4), the B iterator
// (packed weights), the warp-tile multiply-accumulate over one K slice, and the epilogue.
// A kernel that includes this provides the A iterator and storeAccumulator() (declared below).
//
// A workgroup of WARPS_M x WARPS_N subgroups computes a BM x BN tile of C for one group; each
// subgroup a (BM/WARPS_M) x (BN/WARPS_N) warp tile of MMA_M x MMA_N accumulator fragments.

layout(constant_id = 20) const uint BM = 128;
layout(constant_id = 21) const uint BN = 64;
layout(constant_id = 22) const uint BK = 32;
layout(constant_id = 23) const uint WARPS_M = 4;
layout(constant_id = 24) const uint WARPS_N = 2;
layout(constant_id = 25) const uint MMA_M = 16;
layout(constant_id = 26) const uint MMA_N = 16;
layout(constant_id = 27) const uint MMA_K = 16;
layout(constant_id = 28) const uint STAGES = 2;
layout(constant_id = 29) const uint SUBGROUP = 32;
layout(constant_id = 30) const uint THREADS = 256;  // WARPS_M * WARPS_N * SUBGROUP
layout(local_size_x_id = 30) in;
// B_GLOBAL: B fragments are loaded straight from the packed weights (which stay in the caches:
// every workgroup reads the same few KB) instead of being staged through shared memory. That
// frees shared memory and barriers, and lets BK cover the whole GEMM K of small-K layers.
layout(constant_id = 33) const bool B_GLOBAL = false;

#define OPERAND float16_t
#define OPERAND_VEC4 f16vec4

// Packed weights: per group a B_ROWS x B_COLS row-major matrix in the operand type, read 4 at a time.
layout(set = 0, binding = 1, std430) readonly buffer WeightBuffer { OPERAND_VEC4 weight_vec[]; };

// Rows are padded by 8 elements (16 bytes): cooperative-matrix loads need 16-byte aligned
// offsets and strides, and the padding spreads rows over the banks.
const uint A_STRIDE = BM + 8;
const uint B_STRIDE4 = (BN + 8) / 4;
shared OPERAND sA[STAGES * BK * A_STRIDE];
shared OPERAND_VEC4 sB[B_GLOBAL ? 1 : STAGES * BK * B_STRIDE4];
// Epilogue: each subgroup stages one accumulator fragment at a time, column-major, so that
// consecutive lanes store consecutive output pixels.
shared float sC[WARPS_M * WARPS_N * MMA_M * MMA_N];

const uint WARP_TILE_M = BM / WARPS_M;
const uint WARP_TILE_N = BN / WARPS_N;
const uint FRAG_M = WARP_TILE_M / MMA_M;
const uint FRAG_N = WARP_TILE_N / MMA_N;

coopmat<float, gl_ScopeSubgroup, MMA_M, MMA_N, gl_MatrixUseAccumulator> acc[FRAG_M * FRAG_N];

// B iterator: the BK x BN slice at row k0 of this tile's packed weights, as vec4s.
const uint B_VECS = B_GLOBAL ? 0 : BK * BN / 4;
const uint B_PER_THREAD = B_GLOBAL ? 1 : (B_VECS + THREADS - 1) / THREADS;

OPERAND_VEC4 bReg[B_PER_THREAD];

void loadB(uint k0, uint bBase) {
    if (B_GLOBAL) return;
    for (uint i = 0; i < B_PER_THREAD; ++i) {
        uint v = gl_LocalInvocationIndex + i * THREADS;
        uint k = v / (BN / 4), n4 = v - k * (BN / 4);
        // Zero-padded to whole tiles: no guard past the matrix, only past this slice.
        bReg[i] = v < B_VECS ? weight_vec[bBase + (k0 + k) * (B_COLS / 4) + n4] : OPERAND_VEC4(0);
    }
}

void storeB(uint stage) {
    if (B_GLOBAL) return;
    for (uint i = 0; i < B_PER_THREAD; ++i) {
        uint v = gl_LocalInvocationIndex + i * THREADS;
        uint k = v / (BN / 4), n4 = v - k * (BN / 4);
        if (v < B_VECS) sB[(stage * BK + k) * B_STRIDE4 + n4] = bReg[i];
    }
}

uint bTileBase(uint group, uint nTile) { return (group * B_ROWS * B_COLS + nTile * BN) / 4; }

void clearAccumulators() {
    for (uint i = 0; i < FRAG_M * FRAG_N; ++i)
        acc[i] = coopmat<float, gl_ScopeSubgroup, MMA_M, MMA_N, gl_MatrixUseAccumulator>(0.0);
}

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

// Defined by the kernel: writes C[mLocal][nLocal] of this workgroup's tile (bias, bounds, layout).
void storeAccumulator(uint mLocal, uint nLocal, float value);

// Epilogue: fragment by fragment through this subgroup's part of sC.
void storeTile(uint warp, uint warpM, uint warpN) {
    const uint cBase = warp * MMA_M * MMA_N;
    for (uint i = 0; i < FRAG_M; ++i)
        for (uint j = 0; j < FRAG_N; ++j) {
            coopMatStore(acc[i * FRAG_N + j], sC, cBase, MMA_M, gl_CooperativeMatrixLayoutColumnMajor);
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            const uint m0 = warpM * WARP_TILE_M + i * MMA_M;
            const uint n0 = warpN * WARP_TILE_N + j * MMA_N;
            for (uint e = gl_SubgroupInvocationID; e < MMA_M * MMA_N; e += SUBGROUP)
                storeAccumulator(m0 + e % MMA_M, n0 + e / MMA_M, sC[cBase + e]);
            subgroupBarrier();
        }
}
