#version 450
// The bandwidth probe behind measureCopyBandwidth: a grid-stride copy of 16-byte words by the
// shader cores. vkCmdCopyBuffer is not a fair ceiling: on the H200 it moved 0.85 TB/s where
// shaders move 4 TB/s. Uses the conv kernels' interface: binding 0 in, binding 3 out.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0, std430) readonly buffer Source { uvec4 source[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Destination { uvec4 destination[]; };
layout(push_constant) uniform Params { uint words; } params;  // 16-byte words to copy

void main() {
    const uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < params.words; i += step) destination[i] = source[i];
}
