#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Packs a chunk of the fp32 NCHW input into the packed layout of packed_input.glsl, for the packed
// conv kernels. A workgroup makes PACK_TILE_X consecutive packed pixels of one packed row, words
// w0 .. w0+PACK_TILE_WORDS-1 of each (a word: 8 packed channels, 16 bytes). It first copies the
// input those words come from, STRIDE_H input rows of each of their channels across the tile's
// PACK_TILE_X*STRIDE_W columns, into shared memory with consecutive threads on consecutive input
// floats; then each thread gathers one word from there and writes it, consecutive threads to
// consecutive words. Both global sides are whole-line accesses. Against one thread per word
// reading its 8 floats straight from the input (short runs from STRIDE_H rows): see
// bench/RESULTS-breg.md, session 7.
// Binding 0 is the chunk's input, binding 3 the packed buffer.
#define VKCONV_OWN_OUTPUT
#include "conv_problem.glsl"
#include "packed_input.glsl"

layout(local_size_x = 256) in;
layout(set = 0, binding = 3, std430) writeonly buffer PackedBuffer { uvec4 packed_data[]; };

// The tiling, from the host (src/packed_input.cpp: packInputTiling), which fits the stage into
// its shared-memory budget. Plain constants rather than expressions of the others: NVIDIA's
// driver seemed to size shared arrays wrongly from selects in specialization-constant
// expressions (bench/RESULTS.md, 962de81).
layout(constant_id = 60) const uint PACK_TILE_X = 1;      // packed pixels of a row per workgroup
layout(constant_id = 61) const uint PACK_TILE_WORDS = 1;  // words of each pixel per workgroup
layout(constant_id = 62) const uint PACK_WORDS = 1;       // words written per pixel: PACK_CK / 8
layout(constant_id = 63) const uint STAGE_ROW = 1;        // floats per staged row, >= PACK_TILE_X*STRIDE_W
layout(constant_id = 64) const uint STAGE_FLOATS = 1;     // >= the channels of a word tile * STRIDE_H * STAGE_ROW
shared float sStage[STAGE_FLOATS];

// Packed channel j = (c*STRIDE_H + dy)*STRIDE_W + dx holds channel c at (y*STRIDE_H + dy - PAD_H,
// x*STRIDE_W + dx - PAD_W); the stage holds channels c0.. of this tile, row (c-c0)*STRIDE_H + dy.
const uint TAPS = uint(STRIDE_H) * uint(STRIDE_W);
const uint REAL_CHANNELS = C_TOTAL * TAPS;  // packed channels past this one are zero

float stagedValue(uint j, uint c0, uint xLocal) {
    if (j >= REAL_CHANNELS) return 0.0;
    const uint c = j / TAPS, rest = j - c * TAPS, dy = rest / uint(STRIDE_W), dx = rest - dy * uint(STRIDE_W);
    return sStage[((c - c0) * uint(STRIDE_H) + dy) * STAGE_ROW + xLocal * uint(STRIDE_W) + dx];
}

void main() {
    // The halves of a pixel past PACK_CK only space the conv kernel's shared-memory rows apart;
    // the conv never multiplies them, they stay as the zeros the buffer was filled with, and
    // not writing them saves a seventh of alexnet1's packed bytes.
    const uint xTiles = (PACK_W + PACK_TILE_X - 1) / PACK_TILE_X;
    const uint wordTiles = (PACK_WORDS + PACK_TILE_WORDS - 1) / PACK_TILE_WORDS;
    const uint images = chunk.m_rows / OUT_HW;
    uint g = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (g >= images * PACK_H * xTiles * wordTiles) return;  // the whole workgroup: before any barrier
    const uint wordTile = g % wordTiles;
    g /= wordTiles;
    const uint xTile = g % xTiles;
    g /= xTiles;
    const uint y = g % PACK_H, image = g / PACK_H;

    const uint w0 = wordTile * PACK_TILE_WORDS, words = min(PACK_TILE_WORDS, PACK_WORDS - w0);
    const uint x0 = xTile * PACK_TILE_X, pixels = min(PACK_TILE_X, PACK_W - x0);
    const uint c0 = min(8 * w0 / TAPS, C_TOTAL);
    const uint c1 = min((8 * (w0 + words) - 1) / TAPS + 1, C_TOTAL);

    // LOAD_BATCH independent loads in flight a thread: one at a time, the stage's loads were
    // latency-bound (alexnet1's packing 0.127 ms against 0.078 for the unstaged pass).
    const uint STAGE_COLS = PACK_TILE_X * uint(STRIDE_W), LOAD_BATCH = 4;
    const uint stageSize = (c1 - c0) * uint(STRIDE_H) * STAGE_COLS;
    const uint cols = pixels * uint(STRIDE_W);
    const int ix0 = int(x0) * STRIDE_W - PAD_W;
    for (uint e0 = gl_LocalInvocationIndex; e0 < stageSize; e0 += 256 * LOAD_BATCH) {
        float v[LOAD_BATCH];
        [[unroll]] for (uint k = 0; k < LOAD_BATCH; ++k) {
            const uint e = e0 + k * 256, row = e / STAGE_COLS, col = e - row * STAGE_COLS;
            const uint cLocal = row / uint(STRIDE_H), dy = row - cLocal * uint(STRIDE_H);
            const int iy = int(y) * STRIDE_H + int(dy) - PAD_H, ix = ix0 + int(col);
            v[k] = 0.0;
            if (e < stageSize && col < cols && iy >= 0 && iy < int(IN_H) && ix >= 0 && ix < int(IN_W))
                v[k] = input_data[chunk.in_offset + (image * C_TOTAL + c0 + cLocal) * IN_HW + uint(iy) * IN_W + uint(ix)];
        }
        [[unroll]] for (uint k = 0; k < LOAD_BATCH; ++k) {
            const uint e = e0 + k * 256, row = e / STAGE_COLS, col = e - row * STAGE_COLS;
            // Saturate to fp16's range: an infinity would meet the zero weights of the padding
            // taps (inf * 0 = NaN) and spoil outputs whose receptive field does not contain it.
            if (e < stageSize) sStage[row * STAGE_ROW + col] = clamp(v[k], -65504.0, 65504.0);
        }
    }
    barrier();

    const uint rowBase = ((image * PACK_H + y) * PACK_W + x0) * (PACK_C / 8);
    for (uint o = gl_LocalInvocationIndex; o < PACK_TILE_X * PACK_TILE_WORDS; o += 256) {
        const uint xLocal = o / PACK_TILE_WORDS, wLocal = o - xLocal * PACK_TILE_WORDS, w = w0 + wLocal, j = 8 * w;
        if (xLocal >= pixels || wLocal >= words) continue;
        uvec4 word;
        [[unroll]] for (uint e = 0; e < 4; ++e)
            word[e] = packHalf2x16(vec2(stagedValue(j + 2 * e, c0, xLocal), stagedValue(j + 2 * e + 1, c0, xLocal)));
        packed_data[rowBase + xLocal * (PACK_C / 8) + w] = word;
    }
}
