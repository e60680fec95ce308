#version 450
#extension GL_GOOGLE_include_directive : require
// The fast path with the gather A iterator: implicit-GEMM conv2d on cooperative matrices
// (VK_KHR_cooperative_matrix), fp16 operands, fp32 accumulation, for any problem. Each thread
// gathers its share of A per K slice straight from the fp32 NCHW input (im2col on the fly).
//
// Per K slice: threads load slice t+1 of A and B into registers, the subgroups multiply slice t
// from shared memory, and the registers then go to the next stage: loading overlaps the matrix
// work (STAGES = 2), or not (STAGES = 1, half the shared memory).
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

#include "conv_problem.glsl"
#include "conv_gather.glsl"
#include "conv_epilogue.glsl"
#include "coopmat_tile.glsl"

// A is gathered as element e = tid + i*THREADS of the BK x BM slice, e = k*BM + m: with THREADS a
// multiple of BM, a thread keeps one row m for the whole kernel.
const uint A_PER_THREAD = (BM * BK + THREADS - 1) / THREADS;
OPERAND aReg[A_PER_THREAD];

// With K_TABLE, column kk of A resolves through a table made once per workgroup instead of
// dividing by R*S and S for every element: the input offset of (c, r, s) relative to the row's
// receptive-field corner, and (r*DIL_H, s*DIL_W) for the bounds check. Rows whose receptive field
// lies inside the image (most of them) skip the bounds check altogether.
layout(constant_id = 33) const bool K_TABLE = false;
const uint K_TABLE_SIZE = K_TABLE ? B_ROWS : 1;
const uint K_PAD_COLUMN = 0xFFFFFFFFu;  // kk >= GEMM_K: reads as zero
shared uint sKOffset[K_TABLE_SIZE];
shared uint sKRS[K_TABLE_SIZE];

void fillKTable() {
    for (uint kk = gl_LocalInvocationIndex; kk < K_TABLE_SIZE; kk += THREADS) {
        uint c = kk / RS, rs = kk - c * RS, r = rs / KERNEL_S, s = rs - r * KERNEL_S;
        uint dr = r * uint(DIL_H), ds = s * uint(DIL_W);
        sKOffset[kk] = c * IN_HW + dr * IN_W + ds;
        sKRS[kk] = kk < GEMM_K ? (dr << 16) | ds : K_PAD_COLUMN;
    }
}

bool rowInterior(GatherRow row) {
    return row.valid && row.ih0 >= 0 && row.iw0 >= 0 &&
           row.ih0 + int((KERNEL_R - 1) * uint(DIL_H)) < int(IN_H) &&
           row.iw0 + int((KERNEL_S - 1) * uint(DIL_W)) < int(IN_W);
}

float gatherFromTable(GatherRow row, bool interior, int corner, uint kk) {
    uint rs = sKRS[kk];
    int ih = row.ih0 + int(rs >> 16), iw = row.iw0 + int(rs & 0xFFFFu);
    bool inside = rs != K_PAD_COLUMN &&
                  (interior || (row.valid && uint(ih) < IN_H && uint(iw) < IN_W));
    return inside ? input_data[uint(corner + int(sKOffset[kk]))] : 0.0;
}

void loadA(GatherRow row, bool interior, int corner, uint aK0, uint k0) {
    for (uint i = 0; i < A_PER_THREAD; ++i) {
        uint k = aK0 + i * (THREADS / BM);
        float v = 0.0;
        if (k < BK) v = K_TABLE ? gatherFromTable(row, interior, corner, k0 + k) : gatherA(row, k0 + k);
        aReg[i] = OPERAND(v);
    }
}

void storeA(uint stage, uint aRowM, uint aK0) {
    for (uint i = 0; i < A_PER_THREAD; ++i) {
        uint k = aK0 + i * (THREADS / BM);
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

    const uint aRowM = tid % BM;
    const uint aK0 = tid / BM;
    GatherRow row = gatherRow(tileM0 + aRowM, group);
    const bool interior = rowInterior(row);
    // Input offset of the receptive field's top-left corner (negative off the image's edge).
    const int corner = int(row.base) + row.ih0 * int(IN_W) + row.iw0;
    const uint bBase = bTileBase(group, nTile);
    if (K_TABLE) {
        fillKTable();
        barrier();
    }

    clearAccumulators();
    const uint slices = (GEMM_K + BK - 1) / BK;
    loadA(row, interior, corner, aK0, 0);
    loadB(0, bBase);
    storeA(0, aRowM, aK0);
    storeB(0);
    barrier();

    for (uint t = 0; t < slices; ++t) {
        const uint stage = STAGES == 1 ? 0 : t % STAGES;
        const bool more = t + 1 < slices;
        if (more) {  // in flight during the math below
            loadA(row, interior, corner, aK0, (t + 1) * BK);
            loadB((t + 1) * BK, bBase);
        }
        multiplySlice(stage, warpM, warpN);
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
    storeTile(warp, warpM, warpN);
}
