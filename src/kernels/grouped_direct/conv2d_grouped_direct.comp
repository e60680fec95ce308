#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#ifdef VKCONV_TENSOR_IO
#extension GL_EXT_shader_16bit_storage : require  // fp16 outputs (fused_epilogue.glsl)
#endif
// The grouped direct kernel: conv2d for groups with few channels (depthwise, channel multipliers,
// groups of up to 16 channels), fp32 FMA, NCHW in and out, no im2col. These convolutions do a
// few multiply-adds per byte moved, so the kernel is built to move each byte once:
// - a workgroup owns one spatial tile (TILE_H x TILE_W outputs) of KB output channels of
//   GB x GS groups of one image: GB groups side by side (each its own THREADS_W x THREADS_H
//   threads), GS of those one after another. Small planes need the GB: one 14 x 14 plane is too
//   little work and too few bytes in flight for a workgroup, while GB consecutive depthwise
//   planes are one contiguous run of memory. GS gives each workgroup a next group whose loads
//   can be in flight while this one's arithmetic runs.
// - for each step (GB groups, one of their input channels) it copies the tiles' input, halo
//   included, into shared memory once (consecutive threads, consecutive addresses, 16-byte loads
//   where the rows or the planes allow; grouped_direct_tile.glsl; padding becomes zeros
//   there, so the arithmetic below has no bounds checks), the next step's loads in flight while
//   this one's arithmetic runs;
// - each thread computes ROWS outputs down a column times VEC_W along a row, for each of the KB
//   channels. It reads each input row it needs from shared memory once into registers (as
//   16-byte vectors where its window starts at the same place in every vector: VEC_W x stride
//   a multiple of 4) and applies it to every (output row, kernel row) pair that uses it and
//   every tap along the row: the loops are unrolled over specialization constants, so stride and
//   dilation decide at compile time which taps meet which outputs, and no thread branches in
//   the inner loop;
// - the workgroup's weights (every step's KB x R x S) are copied into shared memory once, with
//   the first step's loads, so that no step waits for memory before its arithmetic; each step
//   reads its own into registers as 16-byte vectors (the host pads each block to whole vectors);
//   where they fit the device's uniform-buffer range, every thread reads them from the uniform
//   buffer instead (UNIFORM_WEIGHT_VECS below);
// - the accumulators start at the bias; each output is written once, consecutive threads to
//   consecutive addresses, as 16-byte stores where the output rows are 16-byte aligned.
// FROM_MEMORY leaves the input out of shared memory: each thread reads its window rows and its
// weights straight from memory (the L1 cache catches the rows its neighbours read too), so a
// workgroup has no staging, no zeroing and no barrier before its arithmetic (only whole small
// planes pass their outputs through shared memory: PLANES_OUT below). Where a workgroup's life is short (whole small planes) or
// has several steps (groups of several input channels), that overhead was the larger cost; where
// a thread reads many taps (7x7) or strided columns, the shared copy wins (bench/RESULTS.md).
// src/grouped_direct_kernel.cpp is the host side (GroupedDirectSpec in src/kernel_specs.hpp).

#include "conv_problem.glsl"

layout(constant_id = 20) const uint THREADS_W = 32;  // threads along a tile row
layout(constant_id = 21) const uint THREADS_H = 4;   // threads along a tile column
layout(constant_id = 22) const uint VEC_W = 1;       // outputs a thread computes along W: 1, 2, 4 or 8
layout(constant_id = 23) const uint ROWS = 4;        // outputs a thread computes along H
layout(constant_id = 24) const uint KB = 1;          // output channels a workgroup computes
layout(constant_id = 25) const uint THREADS = 128;   // THREADS_W * THREADS_H * GB
layout(constant_id = 26) const uint GB = 1;          // groups side by side
layout(constant_id = 27) const uint GS = 1;          // groups one after another
layout(constant_id = 28) const bool FROM_MEMORY = false;  // windows and weights read from memory, not shared
// Above 0: the weights (UNIFORM_WEIGHT_VECS 16-byte vectors in all) are read from the uniform
// buffer of binding 4 instead of binding 1 and shared memory: every thread of a group applies
// the same weights, and where a subgroup holds one group's threads a GPU can keep them in
// registers the subgroup shares (NVIDIA's uniform registers) instead of each thread's own.
layout(constant_id = 29) const uint UNIFORM_WEIGHT_VECS = 0;
const bool UNIFORM_WEIGHTS = UNIFORM_WEIGHT_VECS > 0u;
layout(local_size_x_id = 25) in;

const uint SH = uint(STRIDE_H), SW = uint(STRIDE_W), DH = uint(DIL_H), DW = uint(DIL_W);
const uint TILE_W = THREADS_W * VEC_W;
const uint TILE_H = THREADS_H * ROWS;
const uint PLANE_THREADS = THREADS_W * THREADS_H;  // the threads of one group's tile
// The input a tile reads, halo included, and the part of it one thread reads.
const uint IN_TILE_W = (TILE_W - 1u) * SW + (KERNEL_S - 1u) * DW + 1u;
const uint IN_TILE_H = (TILE_H - 1u) * SH + (KERNEL_R - 1u) * DH + 1u;
const uint THREAD_IN_H = (ROWS - 1u) * SH + (KERNEL_R - 1u) * DH + 1u;
const uint THREAD_IN_W = (VEC_W - 1u) * SW + (KERNEL_S - 1u) * DW + 1u;
const uint TILES_W = (OUT_W + TILE_W - 1u) / TILE_W;
const uint TILES_H = (OUT_H + TILE_H - 1u) / TILE_H;
const uint TILES_PER_IMAGE = TILES_W * TILES_H;
const uint K_BLOCKS = (K_G + KB - 1u) / KB;
const uint TAPS = KERNEL_R * KERNEL_S;
const uint GROUPS = C_TOTAL / C_G;
// A shared row starts SHIFT columns left of the tile's first input column, so that where every
// tile starts at a multiple of 4 columns (ow0 * SW), it starts at one too, and is a whole number
// of 16-byte vectors long (src/grouped_direct_config.cpp: GroupedDirectTile).
const uint SHIFT = (4u - uint(PAD_W) % 4u) % 4u;
const uint ROW_WORDS = (SHIFT + IN_TILE_W + 3u) / 4u * 4u;
const uint TILE_WORDS = IN_TILE_H * ROW_WORDS;  // one group's tile
const uint STEP_WORDS = GB * TILE_WORDS;        // one step's tiles
// Steps: GS x C_G, each the GB groups' input channel c. Two buffers when there are several:
// the next step's loads are in flight while this one's arithmetic runs, and one barrier a step
// suffices.
const uint STEPS = GS * C_G;
const uint BUFFERS = STEPS > 1u ? 2u : 1u;
// Weights of one (channel block, input channel): KB x R x S, padded to whole 16-byte vectors.
const uint W_VECS = (KB * TAPS + 3u) / 4u;

// Weights as [group][channel block][C_G][W_VECS], each vector's words [kb][r][s] in order, zero
// past each group's K_G output channels and past KB x R x S.
layout(set = 0, binding = 1, std430) readonly buffer WeightBuffer { vec4 weight_vec4[]; };
layout(set = 0, binding = 4, std140) uniform WeightUniforms { vec4 weight_uniform[UNIFORM_WEIGHTS ? UNIFORM_WEIGHT_VECS : 1u]; };
// The output again, as vectors, for the 16-byte stores (the same binding as output_data).
layout(set = 0, binding = 3, std430) writeonly buffer OutputVec4 { vec4 output_vec4[]; };
// The input again, as vectors, for the 16-byte loads (the same binding as input_data).
layout(set = 0, binding = 0, std430) readonly buffer InputVec4 { vec4 input_vec4[]; };

// The input's element at NCHW index `index` (chunk.in_offset + (image*C + c)*IN_HW + pixel). The
// "_io" module reads fp16 and NHWC inputs as they are (IN_F16, IN_NHWC; channels contiguous
// suit depthwise), element by element: its 16-byte loads need fp32 NCHW.
#ifdef VKCONV_TENSOR_IO
layout(constant_id = 76) const bool IN_F16 = false;
layout(constant_id = 77) const bool IN_NHWC = false;
#define IF_INPUT_F32_NCHW(condition) (!IN_F16 && !IN_NHWC && (condition))
layout(set = 0, binding = 0, std430) readonly buffer InputHalves { float16_t input_f16[]; };
float inputAt(uint index) {
    uint at = index;
    if (IN_NHWC) {
        const uint imageSize = C_TOTAL * IN_HW;
        const uint rel = index - chunk.in_offset, image = rel / imageSize, inImage = rel - image * imageSize;
        const uint c = inImage / IN_HW, pixel = inImage - c * IN_HW;
        at = chunk.in_offset + image * imageSize + pixel * C_TOTAL + c;
    }
    return IN_F16 ? float(input_f16[at]) : input_data[at];
}
#define INPUT_AT(index) inputAt(index)
#else
#define IF_INPUT_F32_NCHW(condition) (condition)
#define INPUT_AT(index) input_data[index]
#endif

// As vectors, so that the 16-byte loads land in shared memory as 16-byte stores (four scalar
// stores 4 words apart would meet in the same banks), and threads read their windows as vectors.
shared vec4 sIn[FROM_MEMORY ? 1u : BUFFERS * STEP_WORDS / 4u];
// The workgroup's weights: [set of groups s][group p of the set][input channel c][W_VECS].
const uint WEIGHT_VECS = GS * GB * C_G * W_VECS;
const uint WEIGHT_LOADS = (WEIGHT_VECS + THREADS - 1u) / THREADS;  // 16-byte loads a thread
shared vec4 sW[FROM_MEMORY ? 1u : (UNIFORM_WEIGHTS ? 1u : WEIGHT_VECS)];
// From memory, where each group's tile is its whole output plane of one output channel
// (depthwise on small planes): the workgroup's GB planes are one contiguous run of the output, so
// the outputs pass through shared memory and leave as that run, 16-byte stores where it starts
// on a 16-byte boundary, instead of each thread's words down its column. (Without it, rows of 14
// words start part-way into a sector and dw 512/14's stores cost more than its loads.)
// (Ternaries, not && or ||: a shared array's size must be a constant expression.)
const bool PLANES_OUT = FROM_MEMORY ? (TILES_PER_IMAGE == 1u ? (K_G == 1u ? (KB == 1u ? (STEPS == 1u) : false) : false) : false) : false;
shared float sOut[PLANES_OUT ? GB * OUT_HW : 1u];

// Copies the weights of channel block kBlock of groups firstGroup.. into sW (past the last group:
// the last group's, computed and never stored). All loads are issued before any is stored.
void loadWeights(uint firstGroup, uint kBlock) {
    vec4 v[WEIGHT_LOADS];
    [[unroll]] for (uint i = 0; i < WEIGHT_LOADS; ++i) {
        const uint e = gl_LocalInvocationIndex + i * THREADS;
        const uint groupAndChannel = e / W_VECS;  // (s*GB + p)*C_G + c
        const uint g = min(firstGroup + groupAndChannel / C_G, GROUPS - 1u);
        const uint c = groupAndChannel % C_G;
        v[i] = e < WEIGHT_VECS ? weight_vec4[((g * K_BLOCKS + kBlock) * C_G + c) * W_VECS + e % W_VECS] : vec4(0.0);
    }
    [[unroll]] for (uint i = 0; i < WEIGHT_LOADS; ++i) {
        const uint e = gl_LocalInvocationIndex + i * THREADS;
        if (e < WEIGHT_VECS) sW[e] = v[i];
    }
}

#include "grouped_direct_tile.glsl"

// Reads a thread's window row (THREAD_IN_W words from `word`, which lies SHIFT words into a
// 16-byte vector when VEC_READS) from shared memory.
const bool VEC_READS = (VEC_W * SW) % 4u == 0u;
const uint WINDOW_VECS = (SHIFT + THREAD_IN_W + 3u) / 4u;

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint tile = gl_WorkGroupID.x + chunk.m_tile_base;  // over the chunk's images' tiles
    const uint kBlock = gl_WorkGroupID.y;
    // The workgroup's first group; step s computes groups firstGroup + s*GB + (0..GB-1).
    const uint firstGroup = (gl_WorkGroupID.z + chunk.group_base) * (GB * GS);
    const uint image = tile / TILES_PER_IMAGE;
    const uint tileInImage = tile - image * TILES_PER_IMAGE;
    const uint tileRow = tileInImage / TILES_W;
    const uint oh0 = tileRow * TILE_H;
    const uint ow0 = (tileInImage - tileRow * TILES_W) * TILE_W;
    const int ih0 = int(oh0) * STRIDE_H - PAD_H;
    const int iwA = int(ow0) * STRIDE_W - PAD_W - int(SHIFT);
    const uint plane = tid / PLANE_THREADS;  // which of the GB groups this thread computes
    const uint local = tid - plane * PLANE_THREADS;
    const uint tx = local % THREADS_W;
    const uint ty = local / THREADS_W;
    // This thread's outputs: rows oh0 + ty*ROWS + j, columns ow0 + tx*VEC_W + v. Its inputs
    // start at row ty*ROWS*SH, column SHIFT + tx*VEC_W*SW of its group's shared tile.
    const uint inRow0 = ty * ROWS * SH;
    const uint inCol0 = SHIFT + tx * VEC_W * SW;
    const bool vectorLoads = IF_INPUT_F32_NCHW((chunk.in_offset & 3u) == 0u);  // the same for the whole dispatch
    const uint imagePlanes = chunk.in_offset + image * C_TOTAL * IN_HW;

    if (!FROM_MEMORY) {
        fetchStep(0u, imagePlanes, firstGroup, ih0, iwA, vectorLoads);
        if (!UNIFORM_WEIGHTS) loadWeights(firstGroup, kBlock);  // read after the first step's barrier
        if (PLANE_LOADS) zeroSharedTiles();  // whole-plane loads write only the image's words
    }

    float acc[KB * ROWS * VEC_W];  // [kb][j][v]
    [[dont_unroll]] for (uint t = 0; t < STEPS; ++t) {
        const uint step = t / C_G, c = t - step * C_G;
        const uint group = firstGroup + step * GB + plane;
        const uint g = min(group, GROUPS - 1u);  // past the last group: computed, never stored
        if (c == 0u) {
            [[unroll]] for (uint kb = 0; kb < KB; ++kb) {
                const uint kk = kBlock * KB + kb;
                // The sums start at the bias, unless alpha scales them first (then the epilogue adds it).
                const float b = HAS_BIAS && kk < K_G && UNIT_ALPHA ? bias_data[g * K_G + kk] : 0.0;
                [[unroll]] for (uint i = 0; i < ROWS * VEC_W; ++i) acc[kb * ROWS * VEC_W + i] = b;
            }
        }
        // Buffer t % 2 was last read for step t - 2, before every thread passed the barrier of
        // step t - 1.
        const uint base = (t % BUFFERS) * STEP_WORDS;
        if (!FROM_MEMORY) {
            storeStep(base, vectorLoads);
            barrier();
            if (t + 1u < STEPS) fetchStep(t + 1u, imagePlanes, firstGroup, ih0, iwA, vectorLoads);
        }
        float w[W_VECS * 4u];
        const uint weightBase = ((step * GB + plane) * C_G + c) * W_VECS;
        const uint memoryWeightBase = ((g * K_BLOCKS + kBlock) * C_G + c) * W_VECS;  // loadWeights' order
        [[unroll]] for (uint i = 0; i < W_VECS; ++i) {
            const vec4 v = UNIFORM_WEIGHTS ? weight_uniform[memoryWeightBase + i]
                           : FROM_MEMORY   ? weight_vec4[memoryWeightBase + i]
                                           : sW[weightBase + i];
            w[4u * i] = v.x, w[4u * i + 1u] = v.y, w[4u * i + 2u] = v.z, w[4u * i + 3u] = v.w;
        }

        // Input row a of this thread's window feeds output row j through kernel row r where
        // a = j*SH + r*DH: all constants once the loops are unrolled.
        const uint tileBase = base + plane * TILE_WORDS;
        [[unroll]] for (uint a = 0; a < ((DEBUG_SKIP & 2u) != 0u ? 0u : THREAD_IN_H); ++a) {
            float x[THREAD_IN_W];
            const uint word = tileBase + (inRow0 + a) * ROW_WORDS + inCol0;
            if (FROM_MEMORY) {
                // The shared tile's word `word` is input (ih0 + inRow0 + a, iwA + inCol0 + q):
                // outside the image, zero, as the staged copy holds it.
                const int ih = ih0 + int(inRow0 + a);
                const uint rowStart = imagePlanes + (g * C_G + c) * IN_HW + uint(ih) * IN_W;
                [[unroll]] for (uint q = 0; q < THREAD_IN_W; ++q) {
                    const int iw = iwA + int(inCol0 + q);
                    const bool inside = uint(ih) < IN_H && uint(iw) < IN_W && (DEBUG_SKIP & 1u) == 0u;
                    x[q] = inside ? INPUT_AT(rowStart + uint(iw)) : 0.0;
                }
            } else if (VEC_READS) {
                // word % 4 == SHIFT: the window's q-th word is word SHIFT + q of these vectors.
                [[unroll]] for (uint k = 0; k < WINDOW_VECS; ++k) {
                    const vec4 v = sIn[(word - SHIFT) / 4u + k];
                    [[unroll]] for (uint l = 0; l < 4u; ++l)
                        if (4u * k + l >= SHIFT && 4u * k + l < SHIFT + THREAD_IN_W) x[4u * k + l - SHIFT] = v[l];
                }
            } else {
                [[unroll]] for (uint q = 0; q < THREAD_IN_W; ++q) x[q] = sIn[(word + q) / 4u][(word + q) % 4u];
            }
            [[unroll]] for (uint j = 0; j < ROWS; ++j) {
                if (a < j * SH || (a - j * SH) % DH != 0u || (a - j * SH) / DH >= KERNEL_R) continue;
                const uint r = (a - j * SH) / DH;
                [[unroll]] for (uint s = 0; s < KERNEL_S; ++s)
                    [[unroll]] for (uint v = 0; v < VEC_W; ++v) {
                        const float xv = x[v * SW + s * DW];
                        [[unroll]] for (uint kb = 0; kb < KB; ++kb) {
                            const uint o = (kb * ROWS + j) * VEC_W + v;
                            acc[o] = fma(xv, w[kb * TAPS + r * KERNEL_S + s], acc[o]);
                        }
                    }
            }
        }
        // The group's last input channel: its outputs are done. Whole 16-byte vectors when every
        // output row starts 16-byte aligned (then a vector is either wholly inside the row or
        // wholly past it): decided per dispatch, not per thread.
        const bool vectors = IF_OUTPUT_F32_NCHW(VEC_W % 4u == 0u && OUT_W % 4u == 0u && (chunk.out_offset & 3u) == 0u);
        const uint ow = ow0 + tx * VEC_W;
        if (c + 1u < C_G || group >= GROUPS) continue;  // at the end of the step: every thread meets the next barrier
        if (PLANES_OUT) continue;  // stored after the loop
        // Diagnostics: the stores left out, the arithmetic kept (its result still decides a branch).
        if ((DEBUG_SKIP & 4u) != 0u && acc[0] != -12345.0) continue;
        [[unroll]] for (uint kb = 0; kb < KB; ++kb) {
            const uint kk = kBlock * KB + kb;
            if (kk >= K_G) break;
            const float biasValue = HAS_BIAS && !UNIT_ALPHA ? bias_data[group * K_G + kk] : 0.0;
            [[unroll]] for (uint j = 0; j < ROWS; ++j) {
                const uint oh = oh0 + ty * ROWS + j;
                if (oh >= OUT_H) break;
                const uint rowStart = chunk.out_offset + ((image * K_TOTAL + group * K_G + kk) * OUT_H + oh) * OUT_W;
                const uint o = (kb * ROWS + j) * VEC_W;
                [[unroll]] for (uint v = 0; v < VEC_W; ++v)
                    if (ow + v < OUT_W) acc[o + v] = fusedEpilogue(acc[o + v], biasValue, OUTPUT_ELEMENT(rowStart + ow + v));
                if (vectors) {
                    [[unroll]] for (uint q = 0; q < VEC_W; q += 4u)
                        if (ow + q < OUT_W)
                            output_vec4[(rowStart + ow + q) / 4u] =
                                vec4(acc[o + q], acc[o + min(q + 1u, VEC_W - 1u)], acc[o + min(q + 2u, VEC_W - 1u)],
                                     acc[o + min(q + 3u, VEC_W - 1u)]);
                } else {
                    [[unroll]] for (uint v = 0; v < VEC_W; ++v)
                        if (ow + v < OUT_W) STORE_OUTPUT(OUTPUT_ELEMENT(rowStart + ow + v), acc[o + v]);
                }
            }
        }
    }
    if (PLANES_OUT) {
        // One step, one output channel, the tile the whole plane (oh0 = ow0 = 0): this thread's
        // outputs are words (ty*ROWS + j) * OUT_W + tx*VEC_W + v of its group's plane, which is
        // output plane firstGroup + plane of the image (the planes of a set are consecutive).
        const uint group = firstGroup + plane;
        const uint planeStart = chunk.out_offset + (image * K_TOTAL + group) * OUT_HW;
        const float biasValue = HAS_BIAS && !UNIT_ALPHA && group < GROUPS ? bias_data[group] : 0.0;
        [[unroll]] for (uint j = 0; j < ROWS; ++j)
            [[unroll]] for (uint v = 0; v < VEC_W; ++v) {
                const uint oh = ty * ROWS + j, ow = tx * VEC_W + v;
                // Past the last group the plane is computed, never stored: no residual to read.
                if (oh < OUT_H && ow < OUT_W)
                    sOut[plane * OUT_HW + oh * OUT_W + ow] =
                        group < GROUPS ? fusedEpilogue(acc[j * VEC_W + v], biasValue, OUTPUT_ELEMENT(planeStart + oh * OUT_W + ow))
                                       : acc[j * VEC_W + v];
            }
        barrier();
        if ((DEBUG_SKIP & 4u) != 0u && sOut[0] != -12345.0) return;
        const uint planes = min(GB, GROUPS - firstGroup);  // the last set of groups may be partial
        const uint start = chunk.out_offset + (image * K_TOTAL + firstGroup) * OUT_HW;
        if (IF_OUTPUT_F32_NCHW(OUT_HW % 4u == 0u && (start & 3u) == 0u)) {
            for (uint e = tid; e < planes * OUT_HW / 4u; e += THREADS)
                output_vec4[start / 4u + e] = vec4(sOut[4u * e], sOut[4u * e + 1u], sOut[4u * e + 2u], sOut[4u * e + 3u]);
        } else {
            for (uint e = tid; e < planes * OUT_HW; e += THREADS) STORE_OUTPUT(OUTPUT_ELEMENT(start + e), sOut[e]);
        }
    }
}
