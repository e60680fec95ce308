#version 450
#extension GL_GOOGLE_include_directive : require
// The fast path with the patch A iterator, for problems whose input patch fits in shared
// memory. A workgroup's M tile is a TILE_H x TILE_W block of output pixels of one image, so its
// receptive field is one rectangle of the input: the workgroup loads it once, coalesced, into
// shared memory as fp16 with the padding written as zeros, and then builds each A slice from
// shared memory with two table lookups and no bounds checks. The gather kernel instead reads
// every A element from global memory with index arithmetic and bounds checks.
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

#include "conv_problem.glsl"
#include "conv_epilogue.glsl"
#include "coopmat_tile.glsl"
#include "coopmat_stages.glsl"
#include "coopmat_store_direct.glsl"

layout(constant_id = 31) const uint TILE_H = 2;   // output rows per tile
layout(constant_id = 32) const uint TILE_W = 55;  // output columns per tile

const uint TILES_H = (OUT_H + TILE_H - 1) / TILE_H;
const uint TILES_W = (OUT_W + TILE_W - 1) / TILE_W;
const uint PATCH_ROWS = (TILE_H - 1) * uint(STRIDE_H) + (KERNEL_R - 1) * uint(DIL_H) + 1;
const uint PATCH_COLS = (TILE_W - 1) * uint(STRIDE_W) + (KERNEL_S - 1) * uint(DIL_W) + 1;
const uint PATCH_PLANE = PATCH_ROWS * PATCH_COLS;
const uint PATCH_SIZE = C_G * PATCH_PLANE;

shared OPERAND sPatch[PATCH_SIZE];
shared uint sKOffset[B_ROWS];  // column kk of A -> offset of (c, r, s) in the patch

// A threads: ROW_THREADS threads per row of the tile, each a fixed row m.
const uint ROW_THREADS = THREADS / BM;
const uint A_PER_THREAD = (BK + ROW_THREADS - 1) / ROW_THREADS;

uint tileImage, tileOh0, tileOw0, tileGroup, tileN0;

void storeAccumulator(uint mLocal, uint nLocal, float value) {
    if (mLocal >= TILE_H * TILE_W) return;
    uint oh = tileOh0 + mLocal / TILE_W, ow = tileOw0 + mLocal % TILE_W;
    if (oh >= OUT_H || ow >= OUT_W) return;
    storeOutput((tileImage * OUT_H + oh) * OUT_W + ow, tileN0 + nLocal, tileGroup, value);
}

void buildA(uint stage, uint k0, uint aRowM, uint aK0, uint pOffset) {
    if (aK0 >= ROW_THREADS) return;  // threads beyond whole rows do not build A
    for (uint i = 0; i < A_PER_THREAD; ++i) {
        uint k = aK0 + i * ROW_THREADS;
        if (k < BK) {
            uint kk = k0 + k;
            sA[(stage * BK + k) * A_STRIDE + aRowM] =
                kk < GEMM_K && sKOffset[kk] != 0xFFFFFFFFu ? sPatch[pOffset + sKOffset[kk]] : OPERAND(0.0);
        }
    }
}

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint tile = gl_WorkGroupID.x + chunk.m_tile_base;
    const uint nTile = gl_WorkGroupID.y;
    const uint group = gl_WorkGroupID.z + chunk.group_base;
    const uint warp = gl_SubgroupID;
    const uint warpM = warp % WARPS_M, warpN = warp / WARPS_M;
    tileImage = tile / (TILES_H * TILES_W);
    const uint inImage = tile - tileImage * (TILES_H * TILES_W);
    tileOh0 = (inImage / TILES_W) * TILE_H;
    tileOw0 = (inImage % TILES_W) * TILE_W;
    tileGroup = group;
    tileN0 = nTile * BN;
    const uint bBase = bTileBase(group, nTile);
    loadB(0, bBase);

    // The patch: input rows and columns of the tile's receptive field, zeros outside the image.
    const int ih0 = int(tileOh0) * STRIDE_H - PAD_H, iw0 = int(tileOw0) * STRIDE_W - PAD_W;
    const uint inBase = chunk.in_offset + (tileImage * C_TOTAL + group * C_G) * IN_HW;
    for (uint e = tid; e < PATCH_SIZE; e += THREADS) {
        uint c = e / PATCH_PLANE, rem = e - c * PATCH_PLANE;
        uint pr = rem / PATCH_COLS, pc = rem - pr * PATCH_COLS;
        int ih = ih0 + int(pr), iw = iw0 + int(pc);
        bool inside = uint(ih) < IN_H && uint(iw) < IN_W;
        sPatch[e] = OPERAND(inside ? input_data[inBase + c * IN_HW + uint(ih) * IN_W + uint(iw)] : 0.0);
    }
    initFragmentPositions();  // the barrier below makes it visible
    for (uint kk = tid; kk < B_ROWS; kk += THREADS) {
        uint c = kk / RS, rs = kk - c * RS, r = rs / S_COLS, s = rs - r * S_COLS;
        sKOffset[kk] = kk < GEMM_K && s < KERNEL_S
                           ? c * PATCH_PLANE + r * uint(DIL_H) * PATCH_COLS + s * uint(DIL_W) : 0xFFFFFFFFu;
    }

    const uint aRowM = tid % BM, aK0 = tid / BM;
    const uint pixel = aRowM < TILE_H * TILE_W ? aRowM : 0u;  // rows past the tile are masked at store
    const uint pOffset = (pixel / TILE_W) * uint(STRIDE_H) * PATCH_COLS + (pixel % TILE_W) * uint(STRIDE_W);

    clearAccumulators();
    const uint slices = (GEMM_K + BK - 1) / BK;
    storeB(0);
    barrier();  // patch, offsets and B slice 0 ready
    buildA(0, 0, aRowM, aK0, pOffset);
    barrier();

    for (uint t = 0; t < slices; ++t) {
        const uint stage = STAGES == 1 ? 0 : t % STAGES;
        const bool more = t + 1 < slices;
        if (more) loadB((t + 1) * BK, bBase);  // global loads in flight during the math
        if (more && STAGES > 1) buildA((t + 1) % STAGES, (t + 1) * BK, aRowM, aK0, pOffset);
        multiplySlice(stage, warpM, warpN, t * BK, bBase);
        if (more) {
            if (STAGES == 1) {
                barrier();
                buildA(0, (t + 1) * BK, aRowM, aK0, pOffset);
            }
            storeB(STAGES == 1 ? 0 : (t + 1) % STAGES);
        }
        barrier();
    }
    storeTileDirect(warpM, warpN);
}
