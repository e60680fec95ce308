#version 450
#extension GL_EXT_control_flow_attributes : require
#ifdef VKCONV_TENSOR_IO
#extension GL_EXT_shader_16bit_storage : require  // fp16 outputs (fused_epilogue.glsl)
#endif
#extension GL_GOOGLE_include_directive : require
// The second pass of split-K (split_k.hpp): out[i] = epilogue(partials[0][i] + partials[1][i] +
// ... + partials[SPLITS-1][i]), added in that order, over one chunk's NCHW output; the epilogue
// (bias, alpha, residual, activation: fused_epilogue.glsl) once, on the sum. Uses the conv
// kernels' interface: binding 0 the partials, binding 2 the bias, binding 3 the output, binding 5
// the residual, the same push constants (ChunkParams in conv_problem.glsl).
layout(local_size_x = 128) in;  // kSplitKReduceThreads

layout(constant_id = 0) const uint SPLITS = 2;
layout(constant_id = 1) const uint K_TOTAL = 1;  // output channels
layout(constant_id = 2) const uint OUT_HW = 1;   // output pixels an image
layout(constant_id = 3) const bool HAS_BIAS = true;

layout(set = 0, binding = 0, std430) readonly buffer Partials { float partials[]; };
layout(set = 0, binding = 2, std430) readonly buffer BiasBuffer { float bias_data[]; };
layout(set = 0, binding = 3, std430) writeonly buffer OutputBuffer { float output_data[]; };

layout(push_constant) uniform ChunkParams {
    uint m_rows;  // GEMM rows in this chunk: images * OUT_H * OUT_W
    uint in_offset;
    uint out_offset;  // element offset of the chunk's first image in the bound output range
    uint m_tile_base;
    uint group_base;
} chunk;

#include "fused_epilogue.glsl"

void main() {
    const uint count = chunk.m_rows * K_TOTAL;  // the chunk's output values; a split's partials
    const uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += step) {
        float sum = partials[i];
        [[unroll]] for (uint z = 1; z < SPLITS; ++z) sum += partials[z * count + i];
        const float biasValue = HAS_BIAS ? bias_data[(i / OUT_HW) % K_TOTAL] : 0.0;
        STORE_OUTPUT(OUTPUT_ELEMENT(chunk.out_offset + i), fusedEpilogue(sum, biasValue, OUTPUT_ELEMENT(chunk.out_offset + i)));
    }
}
