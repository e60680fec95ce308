#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// The grouped direct kernel: conv2d for groups with few channels (depthwise, channel multipliers,
// groups of up to 16 channels), fp32 FMA, NCHW in and out, no im2col. These convolutions do a
// few multiply-adds per byte moved, so the kernel is built to move each byte once:
// - a workgroup owns one spatial tile (TILE_H x TILE_W outputs) of KB output channels of one
//   group of one image. For each of the group's input channels it copies the tile's input, halo
//   included, into shared memory once (consecutive threads, consecutive addresses, 16-byte loads
//   where the rows allow; padding becomes zeros there, so the arithmetic below has no bounds
//   checks), the next channel's loads in flight while this one's arithmetic runs;
// - each thread computes ROWS outputs down a column times VEC_W along a row, for each of the KB
//   channels. It reads each input row it needs from shared memory once into registers and
//   applies it to every (output row, kernel row) pair that uses it and every tap along the row:
//   the loops are unrolled over specialization constants, so stride and dilation decide at
//   compile time which taps meet which outputs, and no thread branches in the inner loop;
// - the channel's R x S weights (KB of them) sit in registers, read once per input channel;
// - the accumulators start at the bias; each output is written once, consecutive threads to
//   consecutive addresses, as 16-byte stores where the output rows are 16-byte aligned.
// src/grouped_direct_kernel.cpp is the host side (GroupedDirectSpec in src/kernel_specs.hpp).

#include "conv_problem.glsl"

layout(constant_id = 20) const uint THREADS_W = 32;  // threads along a tile row
layout(constant_id = 21) const uint THREADS_H = 4;   // threads along a tile column
layout(constant_id = 22) const uint VEC_W = 1;       // outputs a thread computes along W: 1, 2 or 4
layout(constant_id = 23) const uint ROWS = 4;        // outputs a thread computes along H
layout(constant_id = 24) const uint KB = 1;          // output channels a workgroup computes
layout(constant_id = 25) const uint THREADS = 128;   // THREADS_W * THREADS_H
layout(local_size_x_id = 25) in;

// Weights as [group][K_BLOCKS * KB][C_G][R][S], zero past each group's K_G output channels.
layout(set = 0, binding = 1, std430) readonly buffer WeightBuffer { float weight_data[]; };
// The output again, as vectors, for the 16-byte stores (the same binding as output_data).
layout(set = 0, binding = 3, std430) writeonly buffer OutputVec4 { vec4 output_vec4[]; };

const uint SH = uint(STRIDE_H), SW = uint(STRIDE_W), DH = uint(DIL_H), DW = uint(DIL_W);
const uint TILE_W = THREADS_W * VEC_W;
const uint TILE_H = THREADS_H * ROWS;
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
// A shared row starts SHIFT columns left of the tile's first input column, so that where every
// tile starts at a multiple of 4 columns (ow0 * SW), it starts at one too, and is a whole number
// of 16-byte vectors long (src/grouped_direct_config.cpp: GroupedDirectTile).
const uint SHIFT = (4u - uint(PAD_W) % 4u) % 4u;
const uint ROW_WORDS = (SHIFT + IN_TILE_W + 3u) / 4u * 4u;
const uint TILE_WORDS = IN_TILE_H * ROW_WORDS;
const uint LOAD_STEPS = (TILE_WORDS + THREADS - 1u) / THREADS;            // scalar loads a thread
const uint LOAD_STEPS4 = (TILE_WORDS / 4u + THREADS - 1u) / THREADS;      // 16-byte loads a thread
// Input rows of whole 16-byte vectors (then a vector is wholly inside the row or wholly
// outside), and tiles that start on one.
const bool VECTOR_LOADS = IN_W % 4u == 0u && (TILES_W == 1u || (TILE_W * SW) % 4u == 0u);
// Two buffers when the group has several input channels: the next channel's loads are in flight
// while this one's arithmetic runs, and one barrier a channel suffices.
const uint BUFFERS = C_G > 1u ? 2u : 1u;

// The input again, as vectors, for the 16-byte loads (the same binding as input_data).
layout(set = 0, binding = 0, std430) readonly buffer InputVec4 { vec4 input_vec4[]; };

// As vectors, so that the 16-byte loads land in shared memory as 16-byte stores (four scalar
// stores 4 words apart would meet in the same banks); read back one float at a time.
shared vec4 sIn[BUFFERS * TILE_WORDS / 4u];

// One channel's tile on its way from memory to shared memory.
float staged[LOAD_STEPS];
vec4 staged4[LOAD_STEPS4];

// Issues the loads of channel `plane`'s tile whose top-left input (shared column 0) is
// (ih0, iwA); zero outside the image.
void fetchTile(uint plane, int ih0, int iwA, bool vectors) {
    if (vectors) {
        [[unroll]] for (uint i = 0; i < LOAD_STEPS4; ++i) {
            const uint e = gl_LocalInvocationIndex + i * THREADS;  // 16-byte vector e of the tile
            const uint row = e / (ROW_WORDS / 4u);
            const int ih = ih0 + int(row);
            const int iw = iwA + 4 * int(e - row * (ROW_WORDS / 4u));
            const bool inside = e < TILE_WORDS / 4u && uint(ih) < IN_H && uint(iw) < IN_W;
            staged4[i] = inside ? input_vec4[(plane + uint(ih) * IN_W + uint(iw)) / 4u] : vec4(0.0);
        }
    } else {
        [[unroll]] for (uint i = 0; i < LOAD_STEPS; ++i) {
            const uint e = gl_LocalInvocationIndex + i * THREADS;
            const uint row = e / ROW_WORDS;
            const int ih = ih0 + int(row);
            const int iw = iwA + int(e - row * ROW_WORDS);
            const bool inside = e < TILE_WORDS && uint(ih) < IN_H && uint(iw) < IN_W;
            staged[i] = inside ? input_data[plane + uint(ih) * IN_W + uint(iw)] : 0.0;
        }
    }
}

void storeTile(uint base, bool vectors) {
    if (vectors) {
        [[unroll]] for (uint i = 0; i < LOAD_STEPS4; ++i) {
            const uint e = gl_LocalInvocationIndex + i * THREADS;
            if (e < TILE_WORDS / 4u) sIn[base / 4u + e] = staged4[i];
        }
    } else {
        [[unroll]] for (uint i = 0; i < LOAD_STEPS; ++i) {
            const uint e = gl_LocalInvocationIndex + i * THREADS;
            if (e < TILE_WORDS) sIn[(base + e) / 4u][(base + e) % 4u] = staged[i];
        }
    }
}

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint tile = gl_WorkGroupID.x + chunk.m_tile_base;  // over the chunk's images' tiles
    const uint kBlock = gl_WorkGroupID.y;
    const uint group = gl_WorkGroupID.z + chunk.group_base;
    const uint image = tile / TILES_PER_IMAGE;
    const uint tileInImage = tile - image * TILES_PER_IMAGE;
    const uint tileRow = tileInImage / TILES_W;
    const uint oh0 = tileRow * TILE_H;
    const uint ow0 = (tileInImage - tileRow * TILES_W) * TILE_W;
    const int ih0 = int(oh0) * STRIDE_H - PAD_H;
    const int iwA = int(ow0) * STRIDE_W - PAD_W - int(SHIFT);
    const uint tx = tid % THREADS_W;
    const uint ty = tid / THREADS_W;
    // This thread's outputs: rows oh0 + ty*ROWS + j, columns ow0 + tx*VEC_W + v. Its inputs
    // start at row ty*ROWS*SH, column SHIFT + tx*VEC_W*SW of the shared tile.
    const uint inRow0 = ty * ROWS * SH;
    const uint inCol0 = SHIFT + tx * VEC_W * SW;
    const bool vectorLoads = VECTOR_LOADS && (chunk.in_offset & 3u) == 0u;  // the same for the whole dispatch

    float acc[KB * ROWS * VEC_W];  // [kb][j][v]
    [[unroll]] for (uint kb = 0; kb < KB; ++kb) {
        const uint kk = kBlock * KB + kb;
        const float b = HAS_BIAS && kk < K_G ? bias_data[group * K_G + kk] : 0.0;
        [[unroll]] for (uint i = 0; i < ROWS * VEC_W; ++i) acc[kb * ROWS * VEC_W + i] = b;
    }

    const uint planes = chunk.in_offset + (image * C_TOTAL + group * C_G) * IN_HW;
    const uint weightBase = (group * K_BLOCKS + kBlock) * KB * C_G * TAPS;
    fetchTile(planes, ih0, iwA, vectorLoads);
    [[dont_unroll]] for (uint c = 0; c < C_G; ++c) {
        // Buffer c % 2 was last read for channel c - 2, before every thread passed the barrier
        // of channel c - 1.
        const uint base = (c % BUFFERS) * TILE_WORDS;
        storeTile(base, vectorLoads);
        barrier();
        if (c + 1u < C_G) fetchTile(planes + (c + 1u) * IN_HW, ih0, iwA, vectorLoads);
        float w[KB * TAPS];
        [[unroll]] for (uint i = 0; i < KB * TAPS; ++i) {
            const uint kb = i / TAPS;
            w[i] = weight_data[weightBase + (kb * C_G + c) * TAPS + (i - kb * TAPS)];
        }

        // Input row a of this thread's window feeds output row j through kernel row r where
        // a = j*SH + r*DH: all constants once the loops are unrolled.
        [[unroll]] for (uint a = 0; a < THREAD_IN_H; ++a) {
            float x[THREAD_IN_W];
            [[unroll]] for (uint q = 0; q < THREAD_IN_W; ++q) {
                const uint word = base + (inRow0 + a) * ROW_WORDS + inCol0 + q;
                x[q] = sIn[word / 4u][word % 4u];
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
    }

    // Whole 16-byte vectors when every output row starts 16-byte aligned (then a vector is
    // either wholly inside the row or wholly past it): decided per dispatch, not per thread.
    const bool vectors = VEC_W == 4u && OUT_W % 4u == 0u && (chunk.out_offset & 3u) == 0u;
    const uint ow = ow0 + tx * VEC_W;
    [[unroll]] for (uint kb = 0; kb < KB; ++kb) {
        const uint kk = kBlock * KB + kb;
        if (kk >= K_G) break;
        [[unroll]] for (uint j = 0; j < ROWS; ++j) {
            const uint oh = oh0 + ty * ROWS + j;
            if (oh >= OUT_H) break;
            const uint rowStart = chunk.out_offset + ((image * K_TOTAL + group * K_G + kk) * OUT_H + oh) * OUT_W;
            const uint o = (kb * ROWS + j) * VEC_W;
            if (vectors) {
                if (ow < OUT_W)
                    output_vec4[(rowStart + ow) / 4u] = vec4(acc[o], acc[o + min(1u, VEC_W - 1u)],
                                                            acc[o + min(2u, VEC_W - 1u)], acc[o + min(3u, VEC_W - 1u)]);
            } else {
                [[unroll]] for (uint v = 0; v < VEC_W; ++v)
                    if (ow + v < OUT_W) output_data[rowStart + ow + v] = acc[o + v];
            }
        }
    }
}
