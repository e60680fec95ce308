#version 450
#extension GL_GOOGLE_include_directive : require
// The fast path with the gather A iterator: implicit-GEMM conv2d on cooperative matrices
// (VK_KHR_cooperative_matrix), fp16 operands, fp32 accumulation, for any problem. Each thread
// gathers its share of A per K slice straight from the fp32 NCHW input (im2col on the fly).
//
// Per K slice: threads load slice t+1 of A and B into registers, the subgroups multiply slice t
// from shared memory, and the registers then go to the next stage: loading overlaps the matrix
// work (STAGES = 2), or not (STAGES = 1, half the shared memory).
//
// Where it keeps its place beside the channels-last kernel (conv2d_channels_last.comp), whose K
// is C rounded up to a channel slice per tap: first layers of 3 channels, where that padding
// and its packing pass cost more than gathering. On the H200 (kernel-lab, bench/RESULTS.md):
// ResNet-50's conv1 0.527 ms against the channels-last kernel's best 1.239, VGG's conv1_1 0.190
// against 0.352. It is also the kernel of grouped layers the matrix units can fill and of every
// problem the other loaders cannot take.
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

#include "conv_problem.glsl"
#include "conv_gather.glsl"
#include "conv_epilogue.glsl"
#include "coopmat_tile.glsl"
#include "coopmat_stages.glsl"
#include "coopmat_store_direct.glsl"

// A's gather mapping. Consecutive threads take S_LANES consecutive columns (kernel taps s) of one
// row, then the next row: with a strided convolution, consecutive output pixels are STRIDE_W
// input elements apart, so S_LANES = STRIDE_W makes a subgroup's loads one contiguous run instead
// of STRIDE_W runs. Each thread keeps one row m and lane sOff for the whole kernel and walks
// column groups q = kq0, kq0 + Q_STEP, ...: k = q*S_LANES + sOff. THREADS is a multiple of
// S_LANES*BM and BK of S_LANES (can_implement).
layout(constant_id = 34) const uint S_LANES = 1;
const uint Q_STEP = THREADS / (S_LANES * BM);
const uint A_PER_THREAD = (BK / S_LANES + Q_STEP - 1) / Q_STEP;
OPERAND aReg[A_PER_THREAD];

uint aColumn(uint aK0, uint i) { return (aK0 / S_LANES + i * Q_STEP) * S_LANES + aK0 % S_LANES; }

void loadA(GatherRow row, uint aK0, uint k0) {
    for (uint i = 0; i < A_PER_THREAD; ++i) {
        uint k = aColumn(aK0, i);
        if ((DEBUG_SKIP & 1u) != 0u)
            aReg[i] = OPERAND(float((k0 + k) & 7u) * 0.125);
        else
            aReg[i] = OPERAND(k < BK ? gatherA(row, k0 + k) : 0.0);
    }
}

void storeA(uint stage, uint aRowM, uint aK0) {
    for (uint i = 0; i < A_PER_THREAD; ++i) {
        uint k = aColumn(aK0, i);
        if (k < BK) sA[(stage * BK + k) * A_STRIDE + aRowM] = aReg[i];
    }
}

uint tileM0, tileGroup;

void storeAccumulator(uint mLocal, uint nLocal, float value) {
    storeOutput(tileM0 + mLocal, gl_WorkGroupID.y * BN + nLocal, tileGroup, value);
}

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint mTile = gl_WorkGroupID.x + chunk.m_tile_base;
    const uint nTile = gl_WorkGroupID.y;
    const uint group = gl_WorkGroupID.z + chunk.group_base;
    const uint warp = gl_SubgroupID;
    const uint warpM = warp % WARPS_M, warpN = warp / WARPS_M;
    tileM0 = mTile * BM;
    tileGroup = group;

    // aK0 packs the thread's first column group and its lane: (tid / (S_LANES*BM))*S_LANES + lane.
    const uint aRowM = (tid / S_LANES) % BM;
    const uint aK0 = (tid / (S_LANES * BM)) * S_LANES + tid % S_LANES;
    GatherRow row = gatherRow(tileM0 + aRowM, group);
    const uint bBase = bTileBase(group, nTile);

    clearAccumulators();
    const uint slices = (GEMM_K + BK - 1) / BK;
    initFragmentPositions();  // the barrier below makes it visible
    loadA(row, aK0, 0);
    loadB(0, bBase);
    storeA(0, aRowM, aK0);
    storeB(0);
    barrier();

    for (uint t = 0; t < slices; ++t) {
        const uint stage = STAGES == 1 ? 0 : t % STAGES;
        const bool more = t + 1 < slices;
        if (more) {  // in flight during the math below
            loadA(row, aK0, (t + 1) * BK);
            loadB((t + 1) * BK, bBase);
        }
        multiplySlice(stage, warpM, warpN, t * BK, bBase);
        if (more) {
            // With two stages the next stage is free: its last readers finished before the
            // barrier that ended the previous iteration. With one, wait for this slice's readers.
            if (STAGES == 1) barrier();
            const uint next = STAGES == 1 ? 0 : (t + 1) % STAGES;
            storeA(next, aRowM, aK0);
            storeB(next);
        }
        barrier();
    }
    storeTileDirect(warpM, warpN);
}
