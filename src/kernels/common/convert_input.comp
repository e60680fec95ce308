#version 450
#extension GL_EXT_control_flow_attributes : require
#if defined(VKCONV_INPUT_F16) || defined(VKCONV_INPUT_BF16)
#extension GL_EXT_shader_16bit_storage : require
#endif
// The input conversion pass: a chunk of the input, in any type and layout, rewritten as the fp32
// NCHW images a kernel that reads only those takes (Conv2d runs it first where the kernel's
// family says it cannot read the input's format: kernels/common/tensor_io.hpp). Binding 0 is
// the chunk's input, binding 3 the converted images, from element 0. Compiled twice: for fp32
// inputs (convert_input: no 16-bit storage needed) and, with VKCONV_INPUT_F16, for fp16 ones
// (convert_input_f16), read as float16_t: a word view would read past an odd-sized range's end;
// with VKCONV_INPUT_BF16 (convert_input_bf16), bfloat16 read as its 16-bit patterns.
// Each thread writes consecutive fp32 elements; NHWC reads are strided, which this pass, off the
// fast paths, accepts.
layout(local_size_x = 256) in;

layout(constant_id = 0) const uint CHANNELS = 1;
layout(constant_id = 1) const uint PIXELS = 1;      // H * W of an input image
layout(constant_id = 3) const bool IN_NHWC = false;
layout(constant_id = 4) const uint OUT_PIXELS = 1;  // the conv's output pixels an image (m_rows / OUT_PIXELS images)

layout(push_constant) uniform ChunkParams {
    uint m_rows;
    uint in_offset;  // element offset of the chunk's first image in the bound input range
    uint out_offset;
    uint m_tile_base;
    uint group_base;
} chunk;

#if defined(VKCONV_INPUT_F16)
layout(set = 0, binding = 0, std430) readonly buffer InputHalves { float16_t input_data[]; };
#elif defined(VKCONV_INPUT_BF16)
layout(set = 0, binding = 0, std430) readonly buffer InputBfloat16 { uint16_t input_data[]; };
#else
layout(set = 0, binding = 0, std430) readonly buffer InputFloats { float input_data[]; };
#endif
layout(set = 0, binding = 3, std430) writeonly buffer Converted { float converted[]; };

#ifdef VKCONV_INPUT_BF16
float inputValue(uint element) { return uintBitsToFloat(uint(input_data[chunk.in_offset + element]) << 16); }
#else
float inputValue(uint element) { return float(input_data[chunk.in_offset + element]); }
#endif

void main() {
    const uint imageSize = CHANNELS * PIXELS;
    const uint count = chunk.m_rows / OUT_PIXELS * imageSize;
    const uint step = gl_NumWorkGroups.x * gl_NumWorkGroups.y * 256u;
    for (uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationIndex;
         i < count; i += step) {
        uint source = i;
        if (IN_NHWC) {
            const uint image = i / imageSize, inImage = i - image * imageSize;
            const uint c = inImage / PIXELS, pixel = inImage - c * PIXELS;
            source = image * imageSize + pixel * CHANNELS + c;
        }
        converted[i] = inputValue(source);
    }
}
