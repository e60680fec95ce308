#version 450
#extension GL_GOOGLE_include_directive : require
// The fast path: implicit-GEMM conv2d on cooperative matrices (VK_KHR_cooperative_matrix) with
// 16-bit operands and fp32 accumulation. A workgroup of WARPS_M x WARPS_N subgroups computes a
// BM x BN tile of C for one group; each subgroup a (BM/WARPS_M) x (BN/WARPS_N) warp tile made of
// MMA_M x MMA_N accumulator fragments.
//
// Per K slice of BK: every thread gathers its share of A (im2col on the fly from the fp32 NCHW
// input, converted to the operand type) and of B (weights packed to the operand type at plan
// time) into registers, the subgroups multiply the slice already in shared memory, and the
// registers then go to the next shared-memory stage: loading slice t+1 overlaps the matrix work
// on slice t (STAGES = 2), or not (STAGES = 1, half the shared memory).
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

#include "conv_problem.glsl"
#include "conv_gather.glsl"
#include "conv_epilogue.glsl"

// Kernel constants (src/kernel_specs.hpp: CoopMatKernelSpec).
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

#define OPERAND float16_t
#define OPERAND_VEC4 f16vec4

// Packed weights: per group a B_ROWS x B_COLS row-major matrix in the operand type, read 4 at a time.
layout(set = 0, binding = 1, std430) readonly buffer WeightBuffer { OPERAND_VEC4 weight_vec[]; };

// Shared memory. A is stored [k][m] (column-major for the A fragments) so that threads walking
// consecutive output pixels write consecutive halves; B is stored [k][n] in vec4s. Rows are padded
// by 8 elements (16 bytes): that keeps fragment loads 16-byte aligned, as cooperative-matrix
// loads require, and spreads rows over the banks.
const uint A_STRIDE = BM + 8;
const uint B_STRIDE4 = (BN + 8) / 4;
shared OPERAND sA[STAGES * BK * A_STRIDE];
shared OPERAND_VEC4 sB[STAGES * BK * B_STRIDE4];
// Epilogue: each subgroup stages one accumulator fragment at a time, column-major, so that
// consecutive lanes store consecutive output pixels.
shared float sC[WARPS_M * WARPS_N * MMA_M * MMA_N];

const uint WARP_TILE_M = BM / WARPS_M;
const uint WARP_TILE_N = BN / WARPS_N;
const uint FRAG_M = WARP_TILE_M / MMA_M;
const uint FRAG_N = WARP_TILE_N / MMA_N;

// Per thread and K slice: A elements (a fixed row, several k) and B vectors.
const uint A_PER_THREAD = (BM * BK + THREADS - 1) / THREADS;
const uint B_VECS = BK * BN / 4;
const uint B_PER_THREAD = (B_VECS + THREADS - 1) / THREADS;

OPERAND aReg[A_PER_THREAD];
OPERAND_VEC4 bReg[B_PER_THREAD];

// A is gathered as element e = tid + i*THREADS of the BM x BK slice, e = k*BM + m: a thread with
// THREADS a multiple of BM keeps one row m for the whole kernel.
void loadSlice(GatherRow row, uint aK0, uint k0, uint bBase) {
    for (uint i = 0; i < A_PER_THREAD; ++i) {
        uint k = aK0 + i * (THREADS / BM);
        aReg[i] = OPERAND(k < BK ? gatherA(row, k0 + k) : 0.0);
    }
    for (uint i = 0; i < B_PER_THREAD; ++i) {
        uint v = gl_LocalInvocationIndex + i * THREADS;
        uint k = v / (BN / 4), n4 = v - k * (BN / 4);
        // B is zero-padded to whole tiles: no guard past the matrix, only past this slice.
        bReg[i] = v < B_VECS ? weight_vec[bBase + (k0 + k) * (B_COLS / 4) + n4] : OPERAND_VEC4(0);
    }
}

void storeSlice(uint stage, uint aRowM, uint aK0) {
    for (uint i = 0; i < A_PER_THREAD; ++i) {
        uint k = aK0 + i * (THREADS / BM);
        if (k < BK) sA[(stage * BK + k) * A_STRIDE + aRowM] = aReg[i];
    }
    for (uint i = 0; i < B_PER_THREAD; ++i) {
        uint v = gl_LocalInvocationIndex + i * THREADS;
        uint k = v / (BN / 4), n4 = v - k * (BN / 4);
        if (v < B_VECS) sB[(stage * BK + k) * B_STRIDE4 + n4] = bReg[i];
    }
}

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint mTile = gl_WorkGroupID.x + chunk.m_tile_base;
    const uint nTile = gl_WorkGroupID.y;
    const uint group = gl_WorkGroupID.z + chunk.group_base;
    const uint warp = gl_SubgroupID;
    const uint warpM = warp % WARPS_M, warpN = warp / WARPS_M;

    const uint aRowM = tid % BM;
    const uint aK0 = tid / BM;
    GatherRow row = gatherRow(mTile * BM + aRowM, group);
    const uint bBase = (group * B_ROWS * B_COLS + nTile * BN) / 4;

    coopmat<float, gl_ScopeSubgroup, MMA_M, MMA_N, gl_MatrixUseAccumulator> acc[FRAG_M * FRAG_N];
    for (uint i = 0; i < FRAG_M * FRAG_N; ++i)
        acc[i] = coopmat<float, gl_ScopeSubgroup, MMA_M, MMA_N, gl_MatrixUseAccumulator>(0.0);

    const uint slices = (GEMM_K + BK - 1) / BK;
    loadSlice(row, aK0, 0, bBase);
    storeSlice(0, aRowM, aK0);
    barrier();

    for (uint t = 0; t < slices; ++t) {
        const uint stage = STAGES == 1 ? 0 : t % STAGES;
        const bool more = t + 1 < slices;
        if (more) loadSlice(row, aK0, (t + 1) * BK, bBase);  // in flight during the math below

        for (uint kk = 0; kk < BK; kk += MMA_K) {
            coopmat<OPERAND, gl_ScopeSubgroup, MMA_M, MMA_K, gl_MatrixUseA> a[FRAG_M];
            for (uint i = 0; i < FRAG_M; ++i)
                coopMatLoad(a[i], sA, (stage * BK + kk) * A_STRIDE + warpM * WARP_TILE_M + i * MMA_M,
                            A_STRIDE, gl_CooperativeMatrixLayoutColumnMajor);
            for (uint j = 0; j < FRAG_N; ++j) {
                coopmat<OPERAND, gl_ScopeSubgroup, MMA_K, MMA_N, gl_MatrixUseB> b;
                coopMatLoad(b, sB, (stage * BK + kk) * B_STRIDE4 + (warpN * WARP_TILE_N + j * MMA_N) / 4,
                            B_STRIDE4, gl_CooperativeMatrixLayoutRowMajor);
                for (uint i = 0; i < FRAG_M; ++i)
                    acc[i * FRAG_N + j] = coopMatMulAdd(a[i], b, acc[i * FRAG_N + j]);
            }
        }

        if (more) {
            // With two stages the next stage is free: its last readers finished before the
            // barrier that ended the previous iteration. With one, wait for this slice's readers.
            if (STAGES == 1) barrier();
            storeSlice(STAGES == 1 ? 0 : (t + 1) % STAGES, aRowM, aK0);
        }
        barrier();
    }

    // Epilogue: fragment by fragment through this subgroup's part of sC, then bias and a
    // coalesced, guarded store (edge tiles run past M and N).
    const uint cBase = warp * MMA_M * MMA_N;
    const uint lane = gl_SubgroupInvocationID;
    for (uint i = 0; i < FRAG_M; ++i)
        for (uint j = 0; j < FRAG_N; ++j) {
            coopMatStore(acc[i * FRAG_N + j], sC, cBase, MMA_M, gl_CooperativeMatrixLayoutColumnMajor);
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            const uint m0 = mTile * BM + warpM * WARP_TILE_M + i * MMA_M;
            const uint n0 = nTile * BN + warpN * WARP_TILE_N + j * MMA_N;
            for (uint e = lane; e < MMA_M * MMA_N; e += SUBGROUP)
                storeOutput(m0 + e % MMA_M, n0 + e / MMA_M, group, sC[cBase + e]);
            subgroupBarrier();
        }
}
