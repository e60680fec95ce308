#version 450
#extension GL_GOOGLE_include_directive : require
// The general fast path: implicit-GEMM conv2d on cooperative matrices (VK_KHR_cooperative_matrix),
// fp16 operands, fp32 accumulation, over the channels-last input of nhwc_input.glsl. Groups 1, any
// kernel size, stride, padding and dilation.
//
// GEMM: C[m][n] = sum_k A[m][k] B[k][n], m an output pixel (image, oh, ow), n an output channel,
// k = (r*S + s)*NHWC_C + c (or the taps inside each BK-channel slice: TAPS_INNER, nhwc_input.glsl).
// A K slice is one tap and one BK-channel slice of the packed input, so each row of the A tile is
// BK contiguous halves of one input pixel: 16-byte loads, one bounds check per row and tap. B is
// the weights in the same K order, [k][n] row-major, BN columns padded.
//
// The pipeline: A and B pass through two shared-memory stages, and each thread holds the next two
// slices' words in registers, so a slice's global loads are in flight while the two slices before
// it are multiplied. One barrier per slice. Bias is the accumulators' starting value; the epilogue
// writes the accumulators straight to the NCHW output (coopmat_store_direct.glsl).
// FRAGMENT_PREFETCH also holds a slice's fragments in registers across the barrier: each slice's
// fragments are loaded from shared memory while the slice before is multiplied, so that the
// shared-memory loads and the matrix work overlap instead of following one another. It costs a
// warp tile's fragments in registers: it pays on 2x2-subgroup tiles (64x64 and 64x32 warp tiles,
// 151-254 registers on NVIDIA, two workgroups an SM), and lost where 8 subgroups leave 128
// (bench/RESULTS.md).
//
// SPLIT_K > 1 (split-K, src/split_k.hpp): the grid's Z shares each tile's K slices, and the
// epilogue writes fp32 partial tiles to binding 3 (the partials workspace) instead of the output.
//
// Compiled a second time with VKCONV_NCHW_INPUT (conv2d_coopmat_nchw_f16): the same pipeline,
// multiply and epilogue, with the A loader of nchw_input.glsl, which reads the A of convolutions
// without padding straight from the fp32 NCHW input, with no packing pass. A loader provides
// A_REG (a register set's element), A_PER_THREAD, initRows(), loadA(), storeA() and the shared
// stage sA.
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

#ifndef VKCONV_NCHW_INPUT
#define VKCONV_OWN_INPUT
#endif
#define VKCONV_OWN_WEIGHTS
#include "conv_problem.glsl"
#include "nhwc_input.glsl"
#include "coopmat_tile.glsl"
#include "coopmat_store_direct.glsl"

layout(set = 0, binding = 1, std430) readonly buffer WeightWords { uvec4 weight_words[]; };

const uint BN_WORDS = BN / 8;  // 16-byte words of a row of B's K slice
const uint B_ROW_WORDS = BN_WORDS + 1;
shared uvec4 sB[2 * BK * B_ROW_WORDS];  // [stage][k][n]
shared float sBias[BN];

const uint B_WORDS = BK * BN_WORDS;
const uint B_PER_THREAD = (B_WORDS + THREADS - 1) / THREADS;
// NHWC_C: C padded to a multiple of BK (the NCHW loader reads the channels past C as zero).
const uint TAP_SLICES = NHWC_C / BK;
const uint SLICES = KERNEL_R * KERNEL_S * TAP_SLICES;
// Split-K (src/split_k.hpp): workgroup z of the grid multiplies the K slices
// [z * WORKGROUP_SLICES, (z + 1) * WORKGROUP_SLICES) and writes its partial tile to binding 3 as
// the partials of split z, which reduce_split_k.comp adds up. The host makes SPLIT_K divide SLICES.
layout(constant_id = 66) const uint SPLIT_K = 1;
const uint WORKGROUP_SLICES = SLICES / SPLIT_K;
uint sliceBase;  // the first K slice of this workgroup

#ifdef VKCONV_NCHW_INPUT
#include "nchw_input.glsl"
#else
layout(set = 0, binding = 0, std430) readonly buffer PackedInput { uvec4 input_words[]; };

#define A_REG uvec4
const uint BK_WORDS = BK / 8;  // 16-byte words of a row's K slice (NHWC_SLICE = BK: the host sets both)
#ifdef VKCONV_TENSOR_IO
// The caller's fp16 NHWC input read as it is, no packing pass (nhwcReadsInPlace): image, pixel,
// C channels, C a multiple of 8; the words of a last K slice past C read as zero.
layout(constant_id = 74) const bool A_IN_PLACE = false;
const uint IN_C_WORDS = C_TOTAL / 8;
#endif
// Rows padded by one word: the 8 rows of a fragment load then start in 8 different bank groups.
const uint A_ROW_WORDS = BK_WORDS + 1;
shared uvec4 sA[2 * BM * A_ROW_WORDS];  // [stage][m][k]
const uint A_WORDS = BM * BK_WORDS;
const uint A_PER_THREAD = (A_WORDS + THREADS - 1) / THREADS;

// The A rows this thread loads: the row's image as the pixel index of its first channel slice
// (nhwcWord's image term), and the input row and column of tap (0, 0); rows past M get a row that
// no tap brings inside the image.
uint aImage[A_PER_THREAD];
int aIh[A_PER_THREAD], aIw[A_PER_THREAD];
uint tileM0, nTile;

// Which row and word of the A tile 16-byte word v is. The 16-byte shared stores of a subgroup go
// out 8 lanes at a time. In row order (each row's BK_WORDS words from consecutive lanes) 8 lanes
// store two words of each of 4 rows, which the padded rows put twice in one bank group. In
// word-major order each 8 lanes take one word of 8 consecutive rows, 8 different bank groups;
// where those rows' pixels are one contiguous run of the packed input (stride 1, or strided
// columns in phases, nhwc_input.glsl), a subgroup's loads fall in the same cache lines as in row
// order, though each 8 lanes' in twice as many. At stride > 1 the next output row reads another
// input row's phase: with outputs narrower than 8, every 8 rows cross into it, and row order
// kept its cache lines. On the H200 (bench/RESULTS.md): word-major at stride 1, ResNet-50's
// 3x3/512 1.663 -> 1.616 ms, 3x3/256 0.878 -> 0.864; with phased columns, 3x3/256 s2 (14-wide
// outputs) 0.633 -> 0.626 and 3x3/128 s2 0.415 -> 0.410 word-major against 0.634 and 0.411 in
// row order, but 3x3/512 s2 (7-wide) 1.032 -> 1.022 word-major, 1.001 in row order.
const bool A_WORD_MAJOR = STRIDE_W == 1 || OUT_W >= 8;
uint aRow(uint v) { return A_WORD_MAJOR ? v / (8 * BK_WORDS) * 8 + v % 8 : v / BK_WORDS; }
uint aWord(uint v) { return A_WORD_MAJOR ? v / 8 % BK_WORDS : v % BK_WORDS; }

void initRows() {
    [[unroll]] for (uint i = 0; i < A_PER_THREAD; ++i) {
        const uint v = gl_LocalInvocationIndex + i * THREADS;
        const uint m = tileM0 + aRow(v);
        const uint image = m / OUT_HW, pix = m - image * OUT_HW;
        const uint oh = pix / OUT_W, ow = pix - oh * OUT_W;
#ifdef VKCONV_TENSOR_IO
        aImage[i] = A_IN_PLACE ? image * IN_HW : image * NHWC_SLICES * IN_HW;
#else
        aImage[i] = image * NHWC_SLICES * IN_HW;
#endif
        aIh[i] = m < chunk.m_rows ? int(oh) * STRIDE_H - PAD_H : -(1 << 28);
        aIw[i] = int(ow) * STRIDE_W - PAD_W;
    }
}

void loadA(uint t, out uvec4 a[A_PER_THREAD]) {
    const uint taps = KERNEL_R * KERNEL_S, slice = t / taps;
    const uint tap = TAPS_INNER ? t - slice * taps : t / TAP_SLICES;
    const uint channelSlice = TAPS_INNER ? slice : t - tap * TAP_SLICES;
    const uint r = tap / KERNEL_S, s = tap - r * KERNEL_S;
    [[unroll]] for (uint i = 0; i < A_PER_THREAD; ++i) {
        const uint v = gl_LocalInvocationIndex + i * THREADS;
        const int ih = aIh[i] + int(r) * DIL_H, iw = aIw[i] + int(s) * DIL_W;
        const bool inside = v < A_WORDS && uint(ih) < IN_H && uint(iw) < IN_W;
#ifdef VKCONV_TENSOR_IO
        if (A_IN_PLACE) {
            const uint word = channelSlice * BK_WORDS + aWord(v);  // of the pixel's IN_C_WORDS
            const uint at = chunk.in_offset / 8 + (aImage[i] + uint(ih) * IN_W + uint(iw)) * IN_C_WORDS + word;
            a[i] = inside && word < IN_C_WORDS && (DEBUG_SKIP & 1u) == 0u ? input_words[at] : uvec4(0);
            continue;
        }
#endif
        // nhwcWord(image, channelSlice, ih * IN_W + nhwcColumn(iw), IN_HW), its image term worked out per row.
        const uint pixel = aImage[i] + channelSlice * IN_HW + uint(ih) * IN_W + nhwcColumn(uint(iw), uint(STRIDE_W));
        a[i] = inside && (DEBUG_SKIP & 1u) == 0u ? input_words[pixel * BK_WORDS + aWord(v)] : uvec4(0);
    }
}

void storeA(uint stage, uvec4 a[A_PER_THREAD]) {
    [[unroll]] for (uint i = 0; i < A_PER_THREAD; ++i) {
        const uint v = gl_LocalInvocationIndex + i * THREADS;
        if (v < A_WORDS) sA[(stage * BM + aRow(v)) * A_ROW_WORDS + aWord(v)] = a[i];
    }
}
#endif

// Slice t of this workgroup's K slices.
void loadSlice(uint t, out A_REG a[A_PER_THREAD], out uvec4 b[B_PER_THREAD]) {
    t += sliceBase;
    loadA(t, a);
    [[unroll]] for (uint i = 0; i < B_PER_THREAD; ++i) {
        const uint v = gl_LocalInvocationIndex + i * THREADS;
        const uint k = t * BK + v / BN_WORDS;
        b[i] = v < B_WORDS && (DEBUG_SKIP & 16u) == 0u ? weight_words[(k * B_COLS + nTile * BN) / 8 + v % BN_WORDS]
                                                      : uvec4(0);
    }
}

void storeSlice(uint stage, A_REG a[A_PER_THREAD], uvec4 b[B_PER_THREAD]) {
    storeA(stage, a);
    [[unroll]] for (uint i = 0; i < B_PER_THREAD; ++i) {
        const uint v = gl_LocalInvocationIndex + i * THREADS;
        if (v < B_WORDS) sB[(stage * BK + v / BN_WORDS) * B_ROW_WORDS + v % BN_WORDS] = b[i];
    }
}

// Fragment i of the warp tile's A, and fragment j of its B, at K offset kk of stage `stage`.
void loadFragA(out coopmat<OPERAND, gl_ScopeSubgroup, MMA_M, MMA_K, gl_MatrixUseA> a, uint stage, uint kk, uint i,
               uint warpM) {
#ifdef VKCONV_NCHW_INPUT
    coopMatLoad(a, sA, (stage * BK + kk) * A_ROW_VEC4 + (warpM * WARP_TILE_M + i * MMA_M) / 4, A_ROW_VEC4,
                gl_CooperativeMatrixLayoutColumnMajor);
#else
    coopMatLoad(a, sA, (stage * BM + warpM * WARP_TILE_M + i * MMA_M) * A_ROW_WORDS + kk / 8, A_ROW_WORDS,
                gl_CooperativeMatrixLayoutRowMajor);
#endif
}

void loadFragB(out coopmat<OPERAND, gl_ScopeSubgroup, MMA_K, MMA_N, gl_MatrixUseB> b, uint stage, uint kk, uint j,
               uint warpN) {
    coopMatLoad(b, sB, (stage * BK + kk) * B_ROW_WORDS + (warpN * WARP_TILE_N + j * MMA_N) / 8, B_ROW_WORDS,
                gl_CooperativeMatrixLayoutRowMajor);
}

layout(constant_id = 65) const bool FRAGMENT_PREFETCH = false;

void multiplySlice(uint stage, uint warpM, uint warpN) {
    if ((DEBUG_SKIP & 2u) != 0u) return;
    [[unroll]] for (uint kk = 0; kk < BK; kk += MMA_K) {
        coopmat<OPERAND, gl_ScopeSubgroup, MMA_M, MMA_K, gl_MatrixUseA> a[FRAG_M];
        [[unroll]] for (uint i = 0; i < FRAG_M; ++i) loadFragA(a[i], stage, kk, i, warpM);
        [[unroll]] for (uint j = 0; j < FRAG_N; ++j) {
            coopmat<OPERAND, gl_ScopeSubgroup, MMA_K, MMA_N, gl_MatrixUseB> b;
            loadFragB(b, stage, kk, j, warpN);
            [[unroll]] for (uint i = 0; i < FRAG_M; ++i)
                acc[i * FRAG_N + j] = coopMatMulAdd(a[i], b, acc[i * FRAG_N + j]);
        }
    }
}

// FRAGMENT_PREFETCH: the fragments of the slice being multiplied, [k step][fragment].
const uint KSTEPS = BK / MMA_K;
const uint HELD = FRAGMENT_PREFETCH ? KSTEPS : 1;  // a constant expression: no registers unless used
coopmat<OPERAND, gl_ScopeSubgroup, MMA_M, MMA_K, gl_MatrixUseA> heldA[HELD * FRAG_M];
coopmat<OPERAND, gl_ScopeSubgroup, MMA_K, MMA_N, gl_MatrixUseB> heldB[HELD * FRAG_N];

void loadHeldFragments(uint stage, uint warpM, uint warpN) {
    if ((DEBUG_SKIP & 2u) != 0u) return;
    [[unroll]] for (uint k = 0; k < KSTEPS; ++k) {
        [[unroll]] for (uint i = 0; i < FRAG_M; ++i) loadFragA(heldA[k * FRAG_M + i], stage, k * MMA_K, i, warpM);
        [[unroll]] for (uint j = 0; j < FRAG_N; ++j) loadFragB(heldB[k * FRAG_N + j], stage, k * MMA_K, j, warpN);
    }
}

// acc += the held slice; where `next` (the same in every lane), each held fragment is then
// reloaded from stage nextStage as soon as its last multiply is issued.
void multiplyHeldSlice(bool next, uint nextStage, uint warpM, uint warpN) {
    if ((DEBUG_SKIP & 2u) != 0u) return;
    [[unroll]] for (uint k = 0; k < KSTEPS; ++k) {
        [[unroll]] for (uint i = 0; i < FRAG_M; ++i) {
            [[unroll]] for (uint j = 0; j < FRAG_N; ++j)
                acc[i * FRAG_N + j] = coopMatMulAdd(heldA[k * FRAG_M + i], heldB[k * FRAG_N + j], acc[i * FRAG_N + j]);
            if (next) loadFragA(heldA[k * FRAG_M + i], nextStage, k * MMA_K, i, warpM);
        }
        if (next)
            [[unroll]] for (uint j = 0; j < FRAG_N; ++j) loadFragB(heldB[k * FRAG_N + j], nextStage, k * MMA_K, j, warpN);
    }
}

// acc += slice t, from stage `stage` (= t % 2) or, with FRAGMENT_PREFETCH, from the held
// fragments, which then take slice t+1's from the other stage.
void multiplyStep(uint t, uint stage, uint warpM, uint warpN) {
    if (FRAGMENT_PREFETCH)
        multiplyHeldSlice(t + 1 < WORKGROUP_SLICES, 1 - stage, warpM, warpN);
    else
        multiplySlice(stage, warpM, warpN);
}

// Slice s (in the register set a, b) into stage `stage` (= s % 2), a barrier, then the set's
// loads of slice s + 2.
void advance(uint s, uint stage, inout A_REG a[A_PER_THREAD], inout uvec4 b[B_PER_THREAD]) {
    if (s < WORKGROUP_SLICES) storeSlice(stage, a, b);
    barrier();
    if (s + 2 < WORKGROUP_SLICES) loadSlice(s + 2, a, b);
}

void storeAccumulator(uint mLocal, uint nLocal, float value) {
    const uint m = tileM0 + mLocal, n = nTile * BN + nLocal;
    if (m >= chunk.m_rows || n >= K_TOTAL) return;
    if ((DEBUG_SKIP & 4u) != 0u && value != -12345.0) return;  // keeps the math, drops the store
    const uint image = m / OUT_HW, pix = m - image * OUT_HW;
    // Split-K: this split's partials, the chunk's output layout at offset z x the chunk's size,
    // raw (the reduce pass applies the epilogue once, to their sum).
    if (SPLIT_K > 1) {
        output_data[gl_WorkGroupID.z * chunk.m_rows * K_TOTAL + (image * K_TOTAL + n) * OUT_HW + pix] = value;
        return;
    }
#ifdef VKCONV_TENSOR_IO
    const uint index = outputElementAt(image, n, pix);
#else
    const uint index = chunk.out_offset + (image * K_TOTAL + n) * OUT_HW + pix;
#endif
    // With alpha 1 the sums started at the bias (sBias), else the epilogue adds it.
    STORE_OUTPUT(index, fusedEpilogue(value, UNIT_ALPHA || !HAS_BIAS ? 0.0 : bias_data[n], index));
}

#ifndef VKCONV_NCHW_INPUT
// The staged epilogue, where output planes are an odd number of words (7x7): the direct
// epilogue's stores write a fragment's 8 consecutive rows (32 bytes) per output channel, which
// there straddle two sectors. Here each subgroup puts STAGE_FRAGS accumulator fragments of one
// fragment column into shared memory column-major (the stages' A and B arrays, free once the
// last slice is multiplied), and each lane then writes consecutive rows of one output channel:
// runs of STAGE_ROWS rows. On the H200 (kernel-lab, bench/RESULTS.md), on 7x7 outputs: ResNet-50's
// 512->2048 1x1 0.729 -> 0.653 ms, the 1024->2048 downsample 0.363 -> 0.320, 2048->512 0.680 ->
// 0.671, 3x3/512 1.891 -> 1.875, 3x3/512 s2 1.207 -> 1.220; on 14x14 outputs, whose planes are
// whole 16-byte words, it lost (3x3/256 0.976 -> 1.020, 3x3/256 s2 0.705 -> 0.718).
const uint STAGE_FRAGS = FRAG_M % 2 == 0 ? 2 : 1;
const uint STAGE_ROWS = STAGE_FRAGS * MMA_M;
const uint STAGE_VECS = STAGE_ROWS * MMA_N / 4;  // a subgroup's region, in 16-byte words
const uint WARPS = WARPS_M * WARPS_N;
const uint A_REGIONS = (2 * BM * A_ROW_WORDS) / STAGE_VECS;  // subgroups whose region is in sA
const bool STAGED_EPILOGUE =
    OUT_HW % 4 != 0 && MMA_M % 4 == 0 &&
    (WARPS > A_REGIONS ? (WARPS - A_REGIONS) * STAGE_VECS <= 2 * BK * B_ROW_WORDS : true);

// Word `at` of the stages' A (inA) or B array, as fp32.
float stagedValue(bool inA, uint at) { return uintBitsToFloat(inA ? sA[at / 4][at % 4] : sB[at / 4][at % 4]); }

// After a barrier that follows the last multiply.
void storeTileStaged(uint warp, uint warpM, uint warpN) {
    const bool inA = warp < A_REGIONS;
    const uint region = (inA ? warp : warp - A_REGIONS) * STAGE_VECS;  // in 16-byte words
    [[unroll]] for (uint i0 = 0; i0 < FRAG_M; i0 += STAGE_FRAGS)
        [[unroll]] for (uint j = 0; j < FRAG_N; ++j) {
            [[unroll]] for (uint f = 0; f < STAGE_FRAGS; ++f) {
                if (inA)
                    coopMatStore(acc[(i0 + f) * FRAG_N + j], sA, region + f * MMA_M / 4, STAGE_ROWS / 4,
                                 gl_CooperativeMatrixLayoutColumnMajor);
                else
                    coopMatStore(acc[(i0 + f) * FRAG_N + j], sB, region + f * MMA_M / 4, STAGE_ROWS / 4,
                                 gl_CooperativeMatrixLayoutColumnMajor);
            }
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            const uint m0 = warpM * WARP_TILE_M + i0 * MMA_M, n0 = warpN * WARP_TILE_N + j * MMA_N;
            [[unroll]] for (uint r = 0; r < (STAGE_ROWS * MMA_N + SUBGROUP - 1) / SUBGROUP; ++r) {
                const uint e = r * SUBGROUP + gl_SubgroupInvocationID;
                if (e < STAGE_ROWS * MMA_N)
                    storeAccumulator(m0 + e % STAGE_ROWS, n0 + e / STAGE_ROWS, stagedValue(inA, region * 4 + e));
            }
            subgroupBarrier();  // every lane has read the region before the next fragments go in
        }
}
#endif

void main() {
    const uint warp = gl_SubgroupID;
    const uint warpM = warp % WARPS_M, warpN = warp / WARPS_M;
    // The grid is M tiles x N tiles; workgroups take them N tile fastest, so that the workgroups
    // reading one M tile's A rows run at the same time and the L2 serves all but the first.
    const uint order = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    tileM0 = (order / gl_NumWorkGroups.y + chunk.m_tile_base) * BM;
    nTile = order % gl_NumWorkGroups.y;

    for (uint n = gl_LocalInvocationIndex; n < BN; n += THREADS) {
        const uint k = nTile * BN + n;
        // The sums start at the bias where the epilogue would only add it (alpha 1, no split).
        sBias[n] = HAS_BIAS && k < K_TOTAL && SPLIT_K == 1 && UNIT_ALPHA ? bias_data[k] : 0.0;
    }
    sliceBase = SPLIT_K > 1 ? gl_WorkGroupID.z * WORKGROUP_SLICES : 0;  // a constant 0 without a split
    initFragmentPositions();
    initRows();

    A_REG a0[A_PER_THREAD], a1[A_PER_THREAD];
    uvec4 b0[B_PER_THREAD], b1[B_PER_THREAD];
    loadSlice(0, a0, b0);
    if (WORKGROUP_SLICES > 1) loadSlice(1, a1, b1);
    storeSlice(0, a0, b0);
    barrier();  // also publishes sBias and the fragment positions
    if (WORKGROUP_SLICES > 2) loadSlice(2, a0, b0);
    [[unroll]] for (uint i = 0; i < FRAG_M; ++i)
        [[unroll]] for (uint j = 0; j < FRAG_N; ++j)
            coopMatLoad(acc[i * FRAG_N + j], sBias, warpN * WARP_TILE_N + j * MMA_N, 0,
                        gl_CooperativeMatrixLayoutRowMajor);

    // Two slices per iteration, so that which register set holds which slice is known at
    // compile time (an array indexed by the iteration would live in local memory): slice s is
    // in set s % 2 and goes to stage s % 2. Slice t multiplies out of stage t % 2 while the next
    // slice is stored to the other; after the barrier, the set just stored takes the slice two
    // on. With FRAGMENT_PREFETCH slice t is multiplied from the held fragments while slice t+1's
    // are loaded from stage (t+1) % 2, so stage t % 2 is free once every subgroup passed the
    // barrier before it: the slice stored is t+2, one further ahead.
    if (FRAGMENT_PREFETCH) {
        loadHeldFragments(0, warpM, warpN);
        advance(1, 1, a1, b1);  // slice 1 into stage 1; every subgroup holds slice 0's fragments
    }
    for (uint t = 0; t < WORKGROUP_SLICES; t += 2) {
        multiplyStep(t, 0, warpM, warpN);
        if (FRAGMENT_PREFETCH) advance(t + 2, 0, a0, b0);
        else advance(t + 1, 1, a1, b1);
        if (t + 1 >= WORKGROUP_SLICES) break;
        multiplyStep(t + 1, 1, warpM, warpN);
        if (FRAGMENT_PREFETCH) advance(t + 3, 1, a1, b1);
        else advance(t + 2, 0, a0, b0);
    }
    // The loop ends with a barrier after the last multiply: the stages are free.
#ifndef VKCONV_NCHW_INPUT
    if (STAGED_EPILOGUE) {
        storeTileStaged(warp, warpM, warpN);
        return;
    }
#endif
    storeTileDirect(warpM, warpN);
}
