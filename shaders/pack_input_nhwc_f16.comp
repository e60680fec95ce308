#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Packs a chunk of the fp32 NCHW input into the channels-last fp16 layout of nhwc_input.glsl, for
// conv2d_coopmat_nhwc.comp. A transpose through shared memory: each workgroup reads a tile of 64
// channels x 64 pixels, each channel's pixels one contiguous run, and writes the tile's 64
// pixels x 64 channels as 16-byte words, each pixel's channels one contiguous run. (One thread a
// word straight from the planes wrote 16 bytes every NHWC_C halves: on the H200 that pass alone
// took about as long as ResNet-50's 1x1 256->128 conv.) Binding 0 is the chunk's input, binding 3
// the packed buffer.
#define VKCONV_OWN_OUTPUT
#include "conv_problem.glsl"
#include "nhwc_input.glsl"

layout(local_size_x = 256) in;
layout(set = 0, binding = 3, std430) writeonly buffer PackedBuffer { uvec4 packed_data[]; };

const uint TILE = 64;                  // pixels and channels of a workgroup's tile
shared float sTile[TILE * (TILE + 1)];  // [channel][pixel], rows padded against bank conflicts

void main() {
    const uint images = chunk.m_rows / OUT_HW;
    const uint pixels = images * IN_HW;
    const uint pixelTiles = (pixels + TILE - 1) / TILE;
    const uint channelTiles = (NHWC_C + TILE - 1) / TILE;
    const uint id = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (id >= pixelTiles * channelTiles) return;
    const uint p0 = (id % pixelTiles) * TILE, c0 = (id / pixelTiles) * TILE;
    const uint tid = gl_LocalInvocationIndex;

    [[unroll]] for (uint i = 0; i < TILE * TILE / 256; ++i) {
        const uint idx = i * 256 + tid, c = idx / TILE, px = idx % TILE;
        const uint p = p0 + px, image = p / IN_HW, pixel = p - image * IN_HW;
        float v = 0.0;
        // Saturate to fp16's range: an infinity would meet a zero weight of the padding channels
        // (inf * 0 = NaN) and spoil outputs whose receptive field does not contain it.
        if (p < pixels && c0 + c < C_TOTAL)
            v = clamp(input_data[chunk.in_offset + (image * C_TOTAL + c0 + c) * IN_HW + pixel], -65504.0, 65504.0);
        sTile[c * (TILE + 1) + px] = v;
    }
    barrier();
    const uint words = min(TILE, NHWC_C - c0) / 8;
    [[unroll]] for (uint i = 0; i < TILE * TILE / 8 / 256; ++i) {
        const uint idx = i * 256 + tid, px = idx / 8, w = idx % 8;
        if (p0 + px >= pixels || w >= words) continue;
        uvec4 word;
        [[unroll]] for (uint e = 0; e < 4; ++e)
            word[e] = packHalf2x16(vec2(sTile[(w * 8 + 2 * e) * (TILE + 1) + px], sTile[(w * 8 + 2 * e + 1) * (TILE + 1) + px]));
        packed_data[(p0 + px) * NHWC_WORDS + c0 / 8 + w] = word;
    }
}
