// Tensors of other types and layouts than fp32 NCHW, as the kernels meet them.
// - Outputs (and residuals): every kernel writes every format. Its "_io" module (compiled with
//   VKCONV_TENSOR_IO, fused_epilogue.glsl) stores in the output's type and layout; the plain
//   module, for fp32 NCHW, is what it was before other formats existed.
// - Inputs: a family says which formats its loader reads (KernelFamily::readsInput). Where it
//   cannot read the input's, Conv2d first runs convert_input.comp, which rewrites each chunk's
//   input as fp32 NCHW images in a workspace, and describe() says so.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/pipeline.hpp"
#include "vkconv/conv_problem.hpp"

namespace vkconv::detail {

// `shader` for an fp32 NCHW output, else its "_io" build.
std::string outputModule(const std::string& shader, const ConvProblem& problem);

// The conversion pass (convert_input.comp) for the problem's input format.
PipelineKey convertInputKey(const ConvProblem& problem);
// Bytes of the converted input an image (fp32, C x H x W).
uint64_t convertedImageBytes(const ConvProblem& problem);
// Workgroups of 256 threads for `images` images (the pass loops over what a grid leaves).
uint64_t convertInputWorkgroups(const ConvProblem& problem, uint64_t images);

}  // namespace vkconv::detail
