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
#extension GL_EXT_control_flow_attributes : require

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

#ifndef VARIANT
#define VARIANT 12
#endif
void storeAligned(uint mLocal, uint nLocal, float value) {
    const uint p = tileP0 + mLocal, col = gl_WorkGroupID.y * BN + nLocal;
    const uint PL = OUT_HW & ~7u;
    if (p >= PL || col >= K_G) return;
    value += sBias[nLocal];
    if ((DEBUG_SKIP & 4u) != 0u && value != -12345.0) return;
    output_data[chunk.out_offset + (tileImage * K_TOTAL + col) * PL + p] = value;
}
void storeOne(uint m, uint n, float v) {
#if VARIANT == 1 || VARIANT == 2
    storeAligned(m, n, v);
#else
    storeAccumulator(m, n, v);
#endif
}
#if VARIANT == 0 || VARIANT == 1
const uint SC_STRIDE = MMA_M + 4;
void storeTileInWindow(uint warp) {
    const uint base = warp * SC_STRIDE * MMA_N;  // floats
    for (uint i = 0; i < FRAG_M; ++i) {
        coopMatStore(acc[i], sWindow, base / 4, SC_STRIDE / 4, gl_CooperativeMatrixLayoutColumnMajor);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        const uint m = gl_SubgroupInvocationID % MMA_M;
        for (uint n = gl_SubgroupInvocationID / MMA_M; n < MMA_N; n += SUBGROUP / MMA_M) {
            const uint f = base + n * SC_STRIDE + m;
            storeOne(i * MMA_M + m, warp * MMA_N + n, uintBitsToFloat(sWindow[f / 4][f % 4]));
        }
        subgroupBarrier();
    }
}
#else
const uint SC_STRIDE = BM + 4;
void storeTileInWindow(uint warp) {
    const uint base = warp * SC_STRIDE * MMA_N;  // floats
    for (uint i = 0; i < FRAG_M; ++i)
        coopMatStore(acc[i], sWindow, (base + i * MMA_M) / 4, SC_STRIDE / 4, gl_CooperativeMatrixLayoutColumnMajor);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    const uint m = gl_SubgroupInvocationID % BM;
    for (uint n = gl_SubgroupInvocationID / BM; n < MMA_N; n += SUBGROUP / BM) {
        const uint f = base + n * SC_STRIDE + m;
        storeOne(m, warp * MMA_N + n, uintBitsToFloat(sWindow[f / 4][f % 4]));
    }
    subgroupBarrier();
}
#endif

#if VARIANT == 4
shared float sCarry[WARPS_N * MMA_N * 8];
uint validBefore(uint p) {  // output pixels of the image before packed pixel p
    const uint oh = p / PACK_W;
    return oh * OUT_W + min(p - oh * PACK_W, OUT_W);
}
float stagedAt(uint base, uint n, uint q) {
    const uint oh = q / OUT_W;
    const uint f = base + n * SC_STRIDE + q + oh * (PACK_W - OUT_W) - tileP0;
    return uintBitsToFloat(sWindow[f / 4][f % 4]);
}
void storeTileCarried(uint warp, bool runStart, bool runEnd) {
    const uint base = warp * SC_STRIDE * MMA_N;  // floats
    for (uint i = 0; i < FRAG_M; ++i)
        coopMatStore(acc[i], sWindow, (base + i * MMA_M) / 4, SC_STRIDE / 4, gl_CooperativeMatrixLayoutColumnMajor);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    const uint q0 = validBefore(tileP0), q1 = min(validBefore(tileP0 + BM), OUT_HW);
    const uint lane = gl_SubgroupInvocationID;
    // Channel col writes [s, e): s is the sector start before q0 (the carried part) unless a run
    // starts here; e the last sector start before q1 unless the run ends here, [e, q1) carried.
    for (uint n = 0; n < MMA_N; ++n) {
        const uint nl = warp * MMA_N + n, col = gl_WorkGroupID.y * BN + nl;
        if (col >= K_G) break;
        const uint at = chunk.out_offset + (tileImage * K_TOTAL + col) * OUT_HW;
        const uint s = runStart ? q0 : q0 - ((at + q0) & 7u);
        const uint e = runEnd ? q1 : max(s, q1 - ((at + q1) & 7u));
        const float b = sBias[nl];
        for (uint q = s + lane; q < e; q += SUBGROUP) {
            const float v = q < q0 ? sCarry[nl * 8 + ((at + q) & 7u)] : stagedAt(base, n, q) + b;
            if ((DEBUG_SKIP & 4u) == 0u) output_data[at + q] = v;
        }
    }
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    if (!runEnd)
        for (uint x = lane; x < MMA_N * 8; x += SUBGROUP) {
            const uint n = x / 8, nl = warp * MMA_N + n, col = gl_WorkGroupID.y * BN + nl;
            const uint at = chunk.out_offset + (tileImage * K_TOTAL + col) * OUT_HW;
            const uint s = runStart ? q0 : q0 - ((at + q0) & 7u);
            const uint q = max(s, q1 - ((at + q1) & 7u)) + x % 8;
            // Carried pixels before q0 are in their slots already.
            if (q >= q0 && q < q1) sCarry[nl * 8 + ((at + q) & 7u)] = stagedAt(base, n, q) + sBias[nl];
        }
    subgroupMemoryBarrierShared();
    subgroupBarrier();
}
#endif

#if VARIANT >= 5
// Both fragments staged; lane m of the tile's BM rows (SUBGROUP == BM on the H200 config).
void storeTileTight(uint warp) {
    const uint base = warp * SC_STRIDE * MMA_N;  // floats
    for (uint i = 0; i < FRAG_M; ++i)
        coopMatStore(acc[i], sWindow, (base + i * MMA_M) / 4, SC_STRIDE / 4, gl_CooperativeMatrixLayoutColumnMajor);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
#if VARIANT >= 7
    float sum = 0.0;
    for (uint n = 0; n < MMA_N; n += 4) {
        const uint f = base + n * SC_STRIDE + gl_SubgroupInvocationID;
        sum += uintBitsToFloat(sWindow[f / 4][f % 4]);
    }
    if (sum == 12345.0) output_data[gl_GlobalInvocationID.x] = sum;
#else
    for (uint e = gl_SubgroupInvocationID; e < BM * MMA_N; e += SUBGROUP) {
        const uint m = e % BM, n0 = e / BM;
        const uint p = tileP0 + m, oh = p / PACK_W, ow = p - oh * PACK_W;
        if (oh >= OUT_H || ow >= OUT_W) continue;
        const uint col0 = gl_WorkGroupID.y * BN + warp * MMA_N;
        uint addr = chunk.out_offset + (tileImage * K_TOTAL + col0 + n0) * OUT_HW + oh * OUT_W + ow;
        uint f = base + n0 * SC_STRIDE + m;
        if (SUBGROUP % BM == 0) {
            [[unroll]] for (uint n = n0; n < MMA_N; n += SUBGROUP / BM) {
#define EPI_LDS 1
#define EPI_BIAS 0
#define EPI_STG 1
#ifndef EPI_LDS
#endif
                float v = EPI_LDS == 1 ? uintBitsToFloat(sWindow[f / 4][f % 4]) : float(addr);
                if (EPI_BIAS == 1) v += sBias[warp * MMA_N + n];
                if (col0 + n < K_G && (EPI_STG == 1 || v == 12345.0))
                    output_data[addr] = v;
                addr += (SUBGROUP / BM) * OUT_HW;
                f += (SUBGROUP / BM) * SC_STRIDE;
            }
            break;
        }
        if (col0 + n0 < K_G) output_data[addr] = uintBitsToFloat(sWindow[f / 4][f % 4]) + sBias[warp * MMA_N + n0];
    }
#endif
    subgroupBarrier();
}
#endif

#if VARIANT == 12
const uint ROW_STRIDE = MMA_N + 4;
void storeTileRows(uint warp) {
    const uint base = warp * BM * ROW_STRIDE;  // floats
    for (uint i = 0; i < FRAG_M; ++i)
        coopMatStore(acc[i], sWindow, (base + i * MMA_M * ROW_STRIDE) / 4, ROW_STRIDE / 4, gl_CooperativeMatrixLayoutRowMajor);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    const uint m = gl_SubgroupInvocationID;
    const uint p = tileP0 + m, oh = p / PACK_W, ow = p - oh * PACK_W;
    if (oh < OUT_H && ow < OUT_W) {
        const uint col0 = gl_WorkGroupID.y * BN + warp * MMA_N;
        const uint addr = chunk.out_offset + (tileImage * K_TOTAL + col0) * OUT_HW + oh * OUT_W + ow;
        [[unroll]] for (uint j = 0; j < MMA_N / 4; ++j) {
            const vec4 v = uintBitsToFloat(sWindow[(base + m * ROW_STRIDE) / 4 + j]);
            [[unroll]] for (uint c = 0; c < 4; ++c)
                if (col0 + 4 * j + c < K_G) output_data[addr + (4 * j + c) * OUT_HW] = v[c] + sBias[warp * MMA_N + 4 * j + c];
        }
    }
    subgroupBarrier();
}
#endif

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
    // (bench/RESULTS-breg.md, session 5).
    const uint tiles = chunk.m_rows / OUT_HW * PACK_TILES;
#if VARIANT == 4 || VARIANT == 6 || VARIANT == 8
    const uint first = (chunk.m_tile_base + gl_WorkGroupID.x) * TILES_PER_WORKGROUP;
#else
    const uint first = chunk.m_tile_base * TILES_PER_WORKGROUP + gl_WorkGroupID.x;
#endif
    for (uint n = 0; n < TILES_PER_WORKGROUP; ++n) {
#if VARIANT == 4 || VARIANT == 6 || VARIANT == 8
        const uint tile = first + n;
#else
        const uint tile = first + n * gl_NumWorkGroups.x;
#endif
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
#if VARIANT == 4
        const uint inImage = tile % PACK_TILES;
        if ((DEBUG_SKIP & 16u) == 0u)
            storeTileCarried(warp, n == 0 || inImage == 0,
                             n + 1 == TILES_PER_WORKGROUP || tile + 1 >= tiles || inImage + 1 == PACK_TILES);
#elif VARIANT == 12
        if ((DEBUG_SKIP & 16u) == 0u) storeTileRows(warp);
#elif VARIANT >= 5
        if ((DEBUG_SKIP & 16u) == 0u) storeTileTight(warp);
#else
        if ((DEBUG_SKIP & 16u) == 0u) storeTileInWindow(warp);
#endif
        barrier();  // and is done with it before the next window lands
    }
}
