#version 450
#extension GL_GOOGLE_include_directive : require
// Packs a chunk of the fp32 NCHW input into the packed layout of packed_input.glsl, for
// conv2d_coopmat_packed_breg.comp: one thread per 8 packed channels of a packed pixel, written as
// one 16-byte word, so the stores are contiguous and the reads are short runs along input rows.
// Binding 0 is the chunk's input, binding 3 the packed buffer.
#define VKCONV_OWN_OUTPUT
#include "conv_problem.glsl"
#include "packed_input.glsl"

layout(local_size_x = 256) in;
layout(set = 0, binding = 3, std430) writeonly buffer PackedBuffer { uvec4 packed_data[]; };

float packedValue(uint image, uint j, uint y, uint x) {
    const uint sh = uint(STRIDE_H), sw = uint(STRIDE_W);
    if (j >= C_TOTAL * sh * sw) return 0.0;
    const uint c = j / (sh * sw), dy = (j / sw) % sh, dx = j % sw;
    const int iy = int(y * sh + dy) - PAD_H, ix = int(x * sw + dx) - PAD_W;
    if (iy < 0 || iy >= int(IN_H) || ix < 0 || ix >= int(IN_W)) return 0.0;
    const float v = input_data[chunk.in_offset + (image * C_TOTAL + c) * IN_HW + uint(iy) * IN_W + uint(ix)];
    // Saturate to fp16's range: an infinity would meet the zero weights of the padding taps
    // (inf * 0 = NaN) and spoil outputs whose receptive field does not contain it.
    return clamp(v, -65504.0, 65504.0);
}

void main() {
    const uint words = PACK_C / 8;
    const uint v = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256;
    const uint images = chunk.m_rows / OUT_HW;
    if (v >= images * PACK_H * PACK_W * words) return;
    const uint pixel = v / words, j = (v - pixel * words) * 8;
    const uint image = pixel / (PACK_H * PACK_W), rest = pixel - image * (PACK_H * PACK_W);
    const uint y = rest / PACK_W, x = rest - y * PACK_W;
    uvec4 word;
    for (uint e = 0; e < 4; ++e)
        word[e] = packHalf2x16(vec2(packedValue(image, j + 2 * e, y, x), packedValue(image, j + 2 * e + 1, y, x)));
    packed_data[v] = word;  // v == (image*PACK_IMAGE + (y*PACK_W + x)*PACK_C + j) / 8
}
