#version 450
#extension GL_GOOGLE_include_directive : require
// The fast path with the packed A iterator: implicit-GEMM conv2d on cooperative matrices
// (VK_KHR_cooperative_matrix), fp16 operands, fp32 accumulation, reading the packed input that
// pack_input_f16.comp wrote (packed_input.glsl) through a window in shared memory
// (packed_window.glsl). B goes through shared memory slice by slice (coopmat_b_stages.glsl): BK
// rows of the packed weights at a time, the next slice loaded while the current one is
// multiplied. Each MMA_K step of K lies within one tap (PACK_CK is a multiple of MMA_K), whose A
// rows start at packed pixel r*PACK_W + s of the window. The accumulators go straight to the
// output (coopmat_store_direct.glsl). conv2d_coopmat_packed_breg.comp keeps B in registers instead.
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

#define VKCONV_OWN_INPUT
#include "conv_problem.glsl"
#include "packed_input.glsl"
#include "coopmat_tile.glsl"
#include "coopmat_b_stages.glsl"
#include "coopmat_store_direct.glsl"
#include "packed_window.glsl"

void main() {
    const uint warp = gl_SubgroupID;
    const uint warpM = warp % WARPS_M, warpN = warp / WARPS_M;
    setTile(gl_WorkGroupID.x + chunk.m_tile_base);
    initFragmentPositions();
    loadBiasRow();
    loadWindow();
    barrier();

    const uint bBase = bTileBase(0, gl_WorkGroupID.y);
    loadB(0, bBase);
    storeB(0);
    barrier();  // the window and B's first slice

    clearAccumulators();
    const uint aRow0 = warpM * WARP_TILE_M, bCol0 = warpN * WARP_TILE_N;
    const uint slices = B_ROWS / BK;
    for (uint t = 0; t < slices; ++t) {
        const uint stage = STAGES == 1 ? 0 : t % STAGES;
        const bool more = t + 1 < slices;
        if (more) loadB((t + 1) * BK, bBase);  // in flight during the math below
        if ((DEBUG_SKIP & 2u) == 0u)
            for (uint kk = 0; kk < BK; kk += MMA_K) {
                if (t * BK + kk >= PACK_TAPS_K) break;  // B's rows past the taps are zero
                const uint offset = aTapOffset(t * BK + kk);
                coopmat<OPERAND, gl_ScopeSubgroup, MMA_M, MMA_K, gl_MatrixUseA> a[FRAG_M];
                for (uint i = 0; i < FRAG_M; ++i)
                    coopMatLoad(a[i], sWindow, ((aRow0 + i * MMA_M) * PACK_C + offset) / 8,
                                PACK_C / 8, gl_CooperativeMatrixLayoutRowMajor);
                for (uint j = 0; j < FRAG_N; ++j) {
                    coopmat<OPERAND, gl_ScopeSubgroup, MMA_K, MMA_N, gl_MatrixUseB> b;
                    coopMatLoad(b, sB, (stage * BK + kk) * B_STRIDE4 + (bCol0 + j * MMA_N) / 4, B_STRIDE4,
                                gl_CooperativeMatrixLayoutRowMajor);
                    for (uint i = 0; i < FRAG_M; ++i)
                        acc[i * FRAG_N + j] = coopMatMulAdd(a[i], b, acc[i * FRAG_N + j]);
                }
            }
        if (more) {
            // With two stages the next stage is free: its last readers finished before the
            // barrier that ended the previous iteration. With one, wait for this slice's readers.
            if (STAGES == 1) barrier();
            storeB(STAGES == 1 ? 0 : (t + 1) % STAGES);
        }
        barrier();
    }
    if ((DEBUG_SKIP & 16u) == 0u) storeTileDirect(warpM, warpN);
}
