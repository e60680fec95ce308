// The packed-input loader of the cooperative-matrix path (shaders/packed_input.glsl): the input
// is rewritten once per run as fp16 NHWC images, zero-padded, with the stride folded into the
// channels, so the conv becomes a stride-1 one whose im2col rows are strided runs of memory. This
// file holds its geometry, which problems it serves, its weight packing and its two pipelines.
#pragma once

#include <cstdint>
#include <string>

#include "kernel_specs.hpp"
#include "kernels.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

struct PackedInputLayout {
    uint32_t kernelRows = 0, kernelCols = 0;  // PACK_R, PACK_S: the stride-1 kernel
    uint32_t channels = 0;                    // PACK_C: packed channels, padded to 8
    uint32_t height = 0, width = 0;           // PACK_H, PACK_W: packed image
    uint32_t rowK = 0;                        // PACK_KROW: GEMM K per kernel row
    uint32_t tilesPerImage = 0;               // M tiles of BM packed pixels per image

    uint64_t imageHalves() const { return uint64_t(height) * width * channels; }
    // Halves the kernel may read past the last image: the last tile's overhang and K run.
    uint64_t tailHalves(uint32_t bm) const { return uint64_t(bm) * channels + rowK + 8; }
    uint64_t windowBytes(uint32_t bm) const;  // shared memory of one workgroup's window
    uint32_t gemmK() const { return kernelRows * rowK; }
};

// Empty if the packed loader can serve the problem at all, else why not.
std::string packedInputSupport(const ConvProblem& problem);

// bk: the K slice (each kernel row's K run is padded to a whole number of slices).
PackedInputLayout packedInputLayout(const ConvProblem& problem, uint32_t bm, uint32_t bk);

// shaders/packed_input.glsl (ids 50..56)
struct PackedInputSpec {
    uint32_t kernelRows, kernelCols, channels, height, width, rowK, tilesPerImage;
    static PackedInputSpec from(const PackedInputLayout& layout);
    static void appendEntries(std::vector<VkSpecializationMapEntry>& entries, uint32_t base);
};

// shaders/pack_input_f16.comp
struct PackInputKernelSpec {
    ProblemSpec problem;
    PackedInputSpec packed;
    static std::vector<VkSpecializationMapEntry> entries();
};

// shaders/conv2d_coopmat_packed.comp
struct CoopMatPackedKernelSpec {
    CoopMatKernelSpec kernel;
    PackedInputSpec packed;
    VkBool32 bRegisters;         // id 57
    uint32_t tilesPerWorkgroup;  // id 58
    static std::vector<VkSpecializationMapEntry> entries();
};

// The conv kernel (weights packed as [PACK_R*PACK_KROW][K padded to BN] fp16) and, in `packInput`,
// the pipeline that packs the input.
PreparedKernel preparePackedCoopMatKernel(const ConvProblem& problem, const KernelConfig& config,
                                          const float* weight, PipelineKey& packInput);

}  // namespace vkconv::detail
