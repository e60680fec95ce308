#version 450
#extension GL_GOOGLE_include_directive : require
// The packed A iterator (packed_window.glsl) with B in registers: each subgroup owns MMA_N output
// channels (WARPS_M = 1, BN = WARPS_N * MMA_N) and holds their B fragments for the whole K,
// loaded once; the workgroup then walks TILES_PER_WORKGROUP M tiles, a dispatch's width apart,
// and the K loop has no barriers and no B traffic at all. alexnet1's kernel on NVIDIA: 0.375 ms
// on the H200 against 0.665 for the gather kernel's best and 1.569 for the channels-last
// kernel's (kernel-lab, bench/RESULTS.md).
//
// The B fragments take most of the register file, so the epilogue cannot write the accumulators
// straight out as the other kernels do (coopmat_store_direct.glsl): on the H200 that spilled B
// to local memory, 0.6 -> 1.1 ms. It stages the warp tile in the window instead, which is free
// once every subgroup has multiplied out of it (no shared memory of its own: more of it would
// cross the 24 KB past which NVIDIA keeps one workgroup an SM). While it runs, the next tile's
// window is already on its way into registers (see main()).
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

// The epilogue stages the subgroup's warp tile (BM rows x MMA_N channels) row-major, rows
// STAGE_STRIDE floats apart, and each lane then reads 4 channels of one row with a 16-byte load
// and writes them to 4 output planes; lanes walk the rows, so each store covers consecutive
// pixels. On the H200 this took alexnet1 from 0.535 to 0.472 ms against one column-major float
// per load (lab notes packed-input-kernel.md (git show 5c2b4c3:bench/history/packed-input-kernel.md), the epilogue's reads, row 7): the epilogue's cost was its
// instruction count. The padding of 4 floats puts the 8 rows of each quarter-warp's 16-byte loads
// in distinct banks.
// The host sizes the window for WARPS_N of them (src/packed_input.cpp).
const uint STAGE_STRIDE = MMA_N + 4;
const uint STAGE_QUADS = MMA_N / 4;  // 16-byte words per staged row
// The next window is prefetched into registers only where each invocation's share of it
// (packed_window.glsl's window walk) is at most MAX_PREFETCH_WORDS 16-byte words (alexnet1's
// 32x96 tile on NVIDIA: 6): more would spill, and slowed lavapipe's compiler down by minutes.
// The diagnostic skips of the window (DEBUG_SKIP 1, 32) go through loadWindow() instead.
const uint PREFETCH_WORDS = WINDOW_WORDS_PER_INVOCATION;
const uint MAX_PREFETCH_WORDS = 8;
const bool PREFETCH = PREFETCH_WORDS <= MAX_PREFETCH_WORDS && (DEBUG_SKIP & 33u) == 0u;

// The caller's barrier has made the window free; this subgroup stages in its own part of it.
void storeTileInWindow(uint warp) {
    const uint base = warp * BM * STAGE_STRIDE;  // floats
    // Rolled: unrolled, this loop made Mesa 26 lavapipe's LLVM take 104 s instead of 6 s over
    // a kernel with 27 B fragments a subgroup (lab notes packed-input-kernel.md (git show 5c2b4c3:bench/history/packed-input-kernel.md), the bias in the accumulators:
    // lavapipe's compile time); NVIDIA's binary is the same either way.
    [[dont_unroll]] for (uint i = 0; i < FRAG_M; ++i)
        coopMatStore(acc[i], sWindow, (base + i * MMA_M * STAGE_STRIDE) / 4, STAGE_STRIDE / 4,
                     gl_CooperativeMatrixLayoutRowMajor);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    const uint col0 = gl_WorkGroupID.y * BN + warp * MMA_N;
    for (uint e = gl_SubgroupInvocationID; e < BM * STAGE_QUADS; e += SUBGROUP) {
        const uint m = e % BM, j = e / BM;
        uint out0;  // output channel col0 + 4 * j's element of row m
        if (packedOutputIndex(m, col0 + 4 * j, out0)) {  // else a padding column of the packed image
            const vec4 v = uintBitsToFloat(sWindow[(base + m * STAGE_STRIDE) / 4 + j]);
            [[unroll]] for (uint c = 0; c < 4; ++c) {
                if (col0 + 4 * j + c >= K_G) continue;
                const uint index = out0 + c * OUT_HW;
                const float biasValue = UNIT_ALPHA || (DEBUG_SKIP & 64u) != 0u ? 0.0 : sBias[warp * MMA_N + 4 * j + c];
                const float value = fusedEpilogue(v[c], biasValue, OUTPUT_ELEMENT(index));
                // DEBUG_SKIP 4 keeps the math and drops the store.
                if ((DEBUG_SKIP & 4u) == 0u || value == -12345.0) STORE_OUTPUT(OUTPUT_ELEMENT(index), value);
            }
        }
    }
    subgroupBarrier();
}

void main() {
    const uint warp = gl_SubgroupID;
    loadBiasRow();  // visible after the first tile's barrier, read as the accumulators' start
    const uint col0 = gl_WorkGroupID.y * BN + warp * MMA_N;
    for (uint t = 0; t < B_FRAGS; ++t)
        coopMatLoad(bFrag[t], weight_vec, (t * MMA_K * B_COLS + col0) / 4, B_COLS / 4,
                    gl_CooperativeMatrixLayoutRowMajor);
    // The dispatch's workgroups take its M tiles in turn (tile = first + x + n * workgroups)
    // rather than TILES_PER_WORKGROUP consecutive ones each, so the workgroups running at one
    // time write neighbouring output pixels: alexnet1 0.600 -> 0.533 ms on the H200
    // (lab notes packed-input-kernel.md (git show 5c2b4c3:bench/history/packed-input-kernel.md), tiles taken in turn, row 5).
    const uint tiles = chunk.m_rows / OUT_HW * PACK_TILES;
    const uint first = chunk.m_tile_base * TILES_PER_WORKGROUP + gl_WorkGroupID.x;
    uint tile = first;
    if (tile < tiles) {
        setTile(tile);
        loadWindow();
    }
    barrier();
    // Declared once, outside the loop, and sized exactly: a fixed-size array with guards cost
    // 0.400 -> 0.430 ms on the H200 (lab notes packed-input-kernel.md (git show 5c2b4c3:bench/history/packed-input-kernel.md), the epilogue's reads, row 10).
    uvec4 ahead[PREFETCH_WORDS];
    for (uint n = 0; n < TILES_PER_WORKGROUP; ++n) {
        if (tile >= tiles) break;
        // The accumulators start as the bias, each row of them the subgroup's MMA_N values (a
        // load with row stride 0), so the epilogue has no bias to add: alexnet1 0.450 -> 0.429 ms
        // on the H200 with a packing pass staged through shared memory (dropped), 0.398 -> 0.380
        // with the committed one (lab notes packed-input-kernel.md (git show 5c2b4c3:bench/history/packed-input-kernel.md), the bias in the accumulators, rows 3 and 6).
        // DEBUG_SKIP 64 starts them at zero, and so does an alpha other than 1 (the epilogue adds
        // the bias after scaling the sums).
        if ((DEBUG_SKIP & 64u) == 0u && UNIT_ALPHA) {
            for (uint i = 0; i < FRAG_M; ++i)
                coopMatLoad(acc[i], sBias, warp * MMA_N, 0, gl_CooperativeMatrixLayoutRowMajor);
        } else {
            clearAccumulators();
        }
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
        // The next tile's window is loaded into registers before the epilogue and stored after
        // it, so its latency hides behind the epilogue's work instead of following it: alexnet1
        // 0.468 -> 0.397 ms on the H200, no spills (lab notes packed-input-kernel.md (git show 5c2b4c3:bench/history/packed-input-kernel.md), the epilogue's reads,
        // row 9). The accumulators are dead by then, which is what makes room for these registers.
        const uint next = n + 1 < TILES_PER_WORKGROUP ? tile + gl_NumWorkGroups.x : tiles;
        if (PREFETCH && next < tiles) {
            uint image, p0;
            splitTile(next, image, p0);
            const uint src = windowSource(image, p0);
            [[unroll]] for (uint k = 0; k < PREFETCH_WORDS; ++k) {
                uint v;
                if (windowWord(k, v)) ahead[k] = packed_data[src + v];
            }
        }
        if ((DEBUG_SKIP & 16u) == 0u) storeTileInWindow(warp);
        barrier();  // the epilogue is done with the window
        if (next < tiles) {
            setTile(next);
            if (PREFETCH) {
                [[unroll]] for (uint k = 0; k < PREFETCH_WORDS; ++k) {
                    uint v;
                    if (windowWord(k, v)) sWindow[v] = ahead[k];
                }
            } else {
                loadWindow();
            }
        }
        tile = next;
        barrier();  // the next window has landed
    }
}
