#version 450
#extension GL_GOOGLE_include_directive : require
// The packed A iterator (packed_window.glsl) with B in registers: each subgroup owns MMA_N output
// channels (WARPS_M = 1, BN = WARPS_N * MMA_N) and holds their B fragments for the whole K,
// loaded once; the workgroup then walks TILES_PER_WORKGROUP M tiles, a dispatch's width apart,
// and the K loop has no barriers and no B traffic at all. alexnet1's kernel on NVIDIA
// (bench/RESULTS.md).
//
// The B fragments take most of the register file, so the epilogue cannot write the accumulators
// straight out as the other kernels do (coopmat_store_direct.glsl): on the H200 that spilled B
// to local memory, 0.6 -> 1.1 ms. It stages each fragment in the window instead, which is free
// once every subgroup has loaded its fragments (one barrier more a tile, and no shared memory of
// its own: more of it would cross the 24 KB past which NVIDIA keeps one workgroup an SM).
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

#define VKCONV_OWN_INPUT
#include "conv_problem.glsl"
#include "packed_input.glsl"
#include "coopmat_tile.glsl"
#include "packed_window.glsl"

layout(constant_id = 58) const uint TILES_PER_WORKGROUP = 1;
const uint B_FRAGS = B_ROWS / MMA_K;
coopmat<OPERAND, gl_ScopeSubgroup, MMA_K, MMA_N, gl_MatrixUseB> bFrag[B_FRAGS];

// Staged fragments are column-major with SC_STRIDE-float columns: on NVIDIA a lane holds elements
// of columns 2*(lane%4) of row lane/4, and MMA_M-float columns would put a row's 4 columns in one
// bank (H200: 1.3% slower). The host sizes the window for WARPS_N of them (src/packed_input.cpp).
const uint SC_STRIDE = MMA_M + 4;

// The caller's barrier has made the window free; this subgroup stages in its own part of it.
void storeTileInWindow(uint warp) {
    const uint base = warp * SC_STRIDE * MMA_N;  // floats
    for (uint i = 0; i < FRAG_M; ++i) {
        coopMatStore(acc[i], sWindow, base / 4, SC_STRIDE / 4, gl_CooperativeMatrixLayoutColumnMajor);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        if (SUBGROUP % MMA_M == 0) {
            // Each lane keeps one row m, so storeAccumulator's row arithmetic is computed once.
            const uint m = gl_SubgroupInvocationID % MMA_M;
            for (uint n = gl_SubgroupInvocationID / MMA_M; n < MMA_N; n += SUBGROUP / MMA_M) {
                const uint f = base + n * SC_STRIDE + m;
                storeAccumulator(i * MMA_M + m, warp * MMA_N + n, uintBitsToFloat(sWindow[f / 4][f % 4]));
            }
        } else {
            for (uint e = gl_SubgroupInvocationID; e < MMA_M * MMA_N; e += SUBGROUP) {
                const uint m = e % MMA_M, n = e / MMA_M, f = base + n * SC_STRIDE + m;
                storeAccumulator(i * MMA_M + m, warp * MMA_N + n, uintBitsToFloat(sWindow[f / 4][f % 4]));
            }
        }
        subgroupBarrier();
    }
}

void main() {
    const uint warp = gl_SubgroupID;
    loadBiasRow();  // visible after the first tile's barrier
    const uint col0 = gl_WorkGroupID.y * BN + warp * MMA_N;
    for (uint t = 0; t < B_FRAGS; ++t)
        coopMatLoad(bFrag[t], weight_vec, (t * MMA_K * B_COLS + col0) / 4, B_COLS / 4,
                    gl_CooperativeMatrixLayoutRowMajor);
    // The dispatch's workgroups take its M tiles in turn (tile = first + x + n * workgroups)
    // rather than TILES_PER_WORKGROUP consecutive ones each, so the workgroups running at one
    // time write neighbouring output pixels. The output stores are this kernel's largest part,
    // slowed by the partly written 32-byte sectors at every tile's edge (2.6x against a shape
    // whose tiles start on sectors); taken in turn, alexnet1 went 0.600 -> 0.533 ms on the H200
    // (bench/RESULTS.md, session 5).
    const uint tiles = chunk.m_rows / OUT_HW * PACK_TILES;
    const uint first = chunk.m_tile_base * TILES_PER_WORKGROUP + gl_WorkGroupID.x;
    for (uint n = 0; n < TILES_PER_WORKGROUP; ++n) {
        const uint tile = first + n * gl_NumWorkGroups.x;
        if (tile >= tiles) break;
        setTile(tile);
        loadWindow();
        barrier();
        clearAccumulators();
        if ((DEBUG_SKIP & 2u) == 0u)
            for (uint t = 0; t < B_FRAGS; ++t) {
                if (t * MMA_K >= PACK_TAPS_K) break;  // B's rows past the taps are zero
                const uint offset = aTapOffset(t * MMA_K);
                for (uint i = 0; i < FRAG_M; ++i) {
                    coopmat<OPERAND, gl_ScopeSubgroup, MMA_M, MMA_K, gl_MatrixUseA> a;
                    coopMatLoad(a, sWindow, (i * MMA_M * PACK_C + offset) / 8, PACK_C / 8,
                                gl_CooperativeMatrixLayoutRowMajor);
                    acc[i] = coopMatMulAdd(a, bFrag[t], acc[i]);
                }
            }
        barrier();  // every subgroup is done reading the window: the epilogue may use it
        if ((DEBUG_SKIP & 16u) == 0u) storeTileInWindow(warp);
        barrier();  // and is done with it before the next window lands
    }
}
