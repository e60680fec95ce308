#version 450
#extension GL_GOOGLE_include_directive : require
// The fast path on VK_NV_cooperative_matrix2: the packed input (packed_input.glsl, written by
// pack_input_f16.comp) read by workgroup-scope cooperative matrices through tensor layouts. The
// driver splits each matrix over the workgroup and stages its loads through shared memory itself;
// the shader only says which part of which tensor each operand is.
//
// A workgroup computes a TILE_H x TILE_W patch of output pixels of one image (BM = TILE_H*TILE_W
// GEMM rows) for BN output channels. After packing, the conv is a stride-1 PACK_R x PACK_S one
// over PACK_C channels, so the A operand of kernel tap (r, s) is the packed image's
// [TILE_H, TILE_W, PACK_C] box at (oh0 + r, ow0 + s, 0): one 3-D slice, read with zeros past the
// image's edge (clamp mode Constant). B is the tap's PACK_C rows of the packed weights. The
// accumulator is stored straight into the NCHW output through a tensor view that permutes
// (pixel, channel) to (channel, row, column) and drops what falls outside the image.
//
// Needs: cooperativeMatrixWorkgroupScope, FlexibleDimensions and TensorAddressing, a workgroup
// of the size the flexible shape names, BM/BN/PACK_C multiples of its granularities, and a
// 16-byte aligned chunk.out_offset (can_implement checks all of it).
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

#define VKCONV_OWN_INPUT
#include "conv_problem.glsl"
#include "packed_input.glsl"

layout(constant_id = 20) const uint BM = 128;      // TILE_H * TILE_W
layout(constant_id = 21) const uint BN = 96;
layout(constant_id = 30) const uint THREADS = 256;  // the flexible shape's workgroupInvocations
layout(constant_id = 31) const uint TILE_H = 8;
layout(constant_id = 32) const uint TILE_W = 16;
layout(local_size_x_id = 30) in;

layout(set = 0, binding = 0, std430) readonly buffer PackedBuffer { float16_t packed_data[]; };
layout(set = 0, binding = 1, std430) readonly buffer WeightBuffer { float16_t weight_data[]; };

const int CLAMP_ZERO = gl_CooperativeMatrixClampModeConstantNV;
const int CLAMP_EDGE = gl_CooperativeMatrixClampModeClampToEdgeNV;

void main() {
    const uint tilesW = (OUT_W + TILE_W - 1) / TILE_W, tilesH = (OUT_H + TILE_H - 1) / TILE_H;
    const uint tile = gl_WorkGroupID.x + chunk.m_tile_base;
    const uint image = tile / (tilesH * tilesW), rest = tile - image * (tilesH * tilesW);
    const uint oh0 = rest / tilesW * TILE_H, ow0 = rest % tilesW * TILE_W;
    const uint n0 = gl_WorkGroupID.y * BN;
    const uint images = chunk.m_rows / OUT_HW;

    tensorLayoutNV<4, CLAMP_ZERO> packedLayout = createTensorLayoutNV(4, CLAMP_ZERO);
    packedLayout = setTensorLayoutDimensionNV(packedLayout, images, PACK_H, PACK_W, PACK_C);
    tensorLayoutNV<2, CLAMP_ZERO> weightLayout = createTensorLayoutNV(2, CLAMP_ZERO);
    weightLayout = setTensorLayoutDimensionNV(weightLayout, B_ROWS, B_COLS);

    coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> acc =
        coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(0.0);
    if ((DEBUG_SKIP & 2u) == 0u)
        for (uint r = 0; r < PACK_R; ++r)
            for (uint s = 0; s < PACK_S; ++s) {
                coopmat<float16_t, gl_ScopeWorkgroup, BM, PACK_C, gl_MatrixUseA> a;
                coopMatLoadTensorNV(a, packed_data, 0,
                                    sliceTensorLayoutNV(packedLayout, image, 1, oh0 + r, TILE_H,
                                                        ow0 + s, TILE_W, 0, PACK_C));
                coopmat<float16_t, gl_ScopeWorkgroup, PACK_C, BN, gl_MatrixUseB> b;
                coopMatLoadTensorNV(b, weight_data, 0,
                                    sliceTensorLayoutNV(weightLayout, r * PACK_KROW + s * PACK_C, PACK_C, n0, BN));
                acc = coopMatMulAdd(a, b, acc);
            }

    if (HAS_BIAS) {
        // Every row reads the bias row: a 1 x K_TOTAL tensor, rows clamped to its only row.
        tensorLayoutNV<2, CLAMP_EDGE> biasLayout = createTensorLayoutNV(2, CLAMP_EDGE);
        biasLayout = setTensorLayoutDimensionNV(biasLayout, 1, K_TOTAL);
        coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> bias;
        coopMatLoadTensorNV(bias, bias_data, 0, sliceTensorLayoutNV(biasLayout, 0, BM, n0, BN));
        acc += bias;
    }
    if ((DEBUG_SKIP & 4u) != 0u) return;  // keeps the math, drops the store

    // Matrix (row = th*TILE_W + tw, column = n) -> output[image][n0 + n][oh0 + th][ow0 + tw].
    // The view's dimensions are the slice's span (1, BN, TILE_H, TILE_W); the permutation makes
    // the channel the fastest-varying coordinate of the matrix's row-major index.
    tensorLayoutNV<4, CLAMP_ZERO> outLayout = createTensorLayoutNV(4, CLAMP_ZERO);
    outLayout = setTensorLayoutDimensionNV(outLayout, images, K_TOTAL, OUT_H, OUT_W);
    tensorViewNV<4, false, 0, 2, 3, 1> toNchw = createTensorViewNV(4, false, 0, 2, 3, 1);
    coopMatStoreTensorNV(acc, output_data, chunk.out_offset,
                         sliceTensorLayoutNV(outLayout, image, 1, n0, BN, oh0, TILE_H, ow0, TILE_W), toNchw);
}
