// The packed-input loader of the cooperative-matrix path (packed_input.glsl): the input
// is rewritten once per run as fp16 NHWC images, zero-padded, with the stride folded into the
// channels, so the conv becomes a stride-1 one whose im2col rows are strided runs of memory. This
// file holds its geometry, which problems it serves, its weight packing and its two pipelines.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/common/kernel_specs.hpp"
#include "kernels/common/prepared_kernel.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

// The kernel's own parameters of a configuration that is the packed loader's.
inline const CoopMatPackedKernel& packed(const KernelConfig& c) { return c.as<CoopMatPackedKernel>(); }
inline CoopMatPackedKernel& packed(KernelConfig& c) { return c.as<CoopMatPackedKernel>(); }

struct PackedInputLayout {
    uint32_t kernelRows = 0, kernelCols = 0;  // PACK_R, PACK_S: the stride-1 kernel
    uint32_t tapK = 0;                        // PACK_CK: GEMM K per tap, C*sh*sw padded to the MMA's K
    uint32_t channels = 0;                    // PACK_C: halves per packed pixel, >= tapK
    uint32_t height = 0, width = 0;           // PACK_H, PACK_W: packed image
    uint32_t gemmK = 0;                       // kernelRows * kernelCols * tapK, padded to BK
    uint32_t tilesPerImage = 0;               // M tiles of BM packed pixels per image

    uint64_t imageHalves() const { return uint64_t(height) * width * channels; }
    // Halves the kernel may read past the last image: the last tile's overhang and last tap.
    uint64_t tailHalves(uint32_t bm) const { return (uint64_t(bm) + kernelCols) * channels + 8; }
    uint64_t windowBytes(uint32_t bm) const;  // shared memory of one workgroup's window
};

// Empty if the packed loader can serve the problem at all, else why not.
std::string packedInputSupport(const ConvProblem& problem);

// bk: the K slice (the GEMM K is padded to a whole number of slices); mmaK: the instruction's K
// (each tap's K run is padded to it).
PackedInputLayout packedInputLayout(const ConvProblem& problem, uint32_t bm, uint32_t bk, uint32_t mmaK);

// packed_input.glsl (ids 50..56)
struct PackedInputSpec {
    uint32_t kernelRows, kernelCols, channels, height, width, tapK, tilesPerImage;
    static PackedInputSpec from(const PackedInputLayout& layout);
    static void appendEntries(std::vector<VkSpecializationMapEntry>& entries, uint32_t base);
};

// pack_input_f16.comp
struct PackInputKernelSpec {
    ProblemSpec problem;
    PackedInputSpec packed;
    static std::vector<VkSpecializationMapEntry> entries();
};

// packed_window.glsl: the window's 16-byte words (WINDOW_WORDS). The B-in-registers kernel
// also stages its epilogue there: WARPS_N warp tiles of BM rows x (MMA_N + 4) floats.
uint32_t packedWindowWords(const PackedInputLayout& layout, const KernelConfig& config);

// conv2d_coopmat_packed_breg.comp
struct CoopMatPackedKernelSpec {
    CoopMatKernelSpec kernel;
    PackedInputSpec packed;
    uint32_t tilesPerWorkgroup;  // id 58
    uint32_t windowWords;        // id 59
    static std::vector<VkSpecializationMapEntry> entries();
};

// The conv kernel (weights packed as [GEMM K][K padded to BN] fp16, tap-major) and the pipeline
// that packs the input.
PreparedKernel preparePackedCoopMatKernel(const ConvProblem& problem, const KernelConfig& config,
                                          const float* weight);

}  // namespace vkconv::detail
