#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#ifdef VKCONV_TENSOR_IO
#extension GL_EXT_shader_16bit_storage : require  // fp16 outputs (fused_epilogue.glsl)
#endif
// The portable kernel: implicit-GEMM conv2d in fp32 FMA, no extensions. A workgroup computes a
// BM x BN tile of C for one group; each thread a TM x TN micro-tile. A (gathered from the input)
// and B (packed weights) pass through shared memory BK columns at a time.

#include "conv_problem.glsl"
#include "conv_gather.glsl"
#include "conv_epilogue.glsl"

// Kernel constants (src/kernel_specs.hpp: Fp32KernelSpec). THREADS = (BM/TM)*(BN/TN), a
// multiple of BM so that each thread gathers A for one fixed row.
layout(constant_id = 20) const uint BM = 64;
layout(constant_id = 21) const uint BN = 64;
layout(constant_id = 22) const uint BK = 8;
layout(constant_id = 23) const uint TM = 4;
layout(constant_id = 24) const uint TN = 4;
layout(constant_id = 25) const uint THREADS = 256;
layout(local_size_x_id = 25) in;

layout(set = 0, binding = 1, std430) readonly buffer WeightBuffer { float weight_data[]; };

const uint THREADS_M = BM / TM;  // threads along M: consecutive threads, consecutive rows
shared float sA[BK * BM];        // [kk][m]
shared float sB[BK * BN];        // [kk][n]

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint mTile = gl_WorkGroupID.x + chunk.m_tile_base;
    const uint nTile = gl_WorkGroupID.y;
    const uint group = gl_WorkGroupID.z + chunk.group_base;
    const uint tx = tid % THREADS_M;
    const uint ty = tid / THREADS_M;

    // This thread always gathers row aRow of the tile, columns aCol0 + j*(THREADS/BM).
    const uint aRow = tid % BM;
    const uint aCol0 = tid / BM;
    const uint A_STEP = THREADS / BM;
    GatherRow row = gatherRow(mTile * BM + aRow, group);

    const uint bBase = group * B_ROWS * B_COLS + nTile * BN;

    float acc[TM * TN];
    for (uint i = 0; i < TM * TN; ++i) acc[i] = 0.0;

    // GEMM_K is a specialization constant: left to itself the compiler unrolls this loop (and
    // its barriers) for small K, which makes lavapipe's compile 3-4x slower for no run-time gain.
    [[dont_unroll]] for (uint k0 = 0; k0 < GEMM_K; k0 += BK) {
        for (uint j = aCol0; j < BK; j += A_STEP) sA[j * BM + aRow] = gatherA(row, k0 + j);
        // B is zero-padded to whole tiles, so these loads need no guard.
        for (uint e = tid; e < BK * BN; e += THREADS) {
            uint kk = e / BN, n = e - kk * BN;
            sB[e] = weight_data[bBase + (k0 + kk) * B_COLS + n];
        }
        barrier();
        for (uint kk = 0; kk < BK; ++kk) {
            float a[TM], b[TN];
            for (uint i = 0; i < TM; ++i) a[i] = sA[kk * BM + tx + i * THREADS_M];
            for (uint j = 0; j < TN; ++j) b[j] = sB[kk * BN + ty * TN + j];
            for (uint i = 0; i < TM; ++i)
                for (uint j = 0; j < TN; ++j) acc[i * TN + j] = fma(a[i], b[j], acc[i * TN + j]);
        }
        barrier();
    }

    for (uint i = 0; i < TM; ++i)
        for (uint j = 0; j < TN; ++j)
            storeOutput(mTile * BM + tx + i * THREADS_M, nTile * BN + ty * TN + j, group,
                        acc[i * TN + j]);
}
