#version 450
#extension GL_GOOGLE_include_directive : require
// Packs a chunk of the fp32 NCHW input into the channels-last fp16 layout of nhwc_input.glsl, for
// conv2d_coopmat_nhwc.comp: one thread per 8 channels of one pixel, written as one 16-byte word.
// Consecutive threads take consecutive pixels of the same 8 channels, so each of their 8 reads is
// one contiguous run of a channel plane. Binding 0 is the chunk's input, binding 3 the packed
// buffer.
#define VKCONV_OWN_OUTPUT
#include "conv_problem.glsl"
#include "nhwc_input.glsl"

layout(local_size_x = 256) in;
layout(set = 0, binding = 3, std430) writeonly buffer PackedBuffer { uvec4 packed_data[]; };

float channelValue(uint image, uint c, uint pixel) {
    if (c >= C_TOTAL) return 0.0;
    // Saturate to fp16's range: an infinity would meet a zero weight of the padding channels
    // (inf * 0 = NaN) and spoil outputs whose receptive field does not contain it.
    return clamp(input_data[chunk.in_offset + (image * C_TOTAL + c) * IN_HW + pixel], -65504.0, 65504.0);
}

void main() {
    const uint images = chunk.m_rows / OUT_HW;
    const uint pixels = images * IN_HW;
    const uint v = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256;
    if (v >= pixels * NHWC_WORDS) return;
    const uint word = v / pixels, p = v - word * pixels;
    const uint image = p / IN_HW, pixel = p - image * IN_HW;
    const uint c0 = word * 8;
    uvec4 packed;
    for (uint e = 0; e < 4; ++e)
        packed[e] = packHalf2x16(vec2(channelValue(image, c0 + 2 * e, pixel), channelValue(image, c0 + 2 * e + 1, pixel)));
    packed_data[p * NHWC_WORDS + word] = packed;
}
