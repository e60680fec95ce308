// The channels-last loader of the cooperative-matrix path (nhwc_input.glsl): a pre-pass
// rewrites each chunk's input as fp16 channels-last images in slices of BK channels (the channels
// padded to a multiple of BK), and the general kernel (conv2d_channels_last.comp) reads
// each K slice (one tap, one channel slice) of a row as 16-byte words. This file owns everything
// the loader decides: which problems and configurations it serves, its shared memory, its weight
// packing and its two pipelines.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/common/prepared_kernel.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

// Halves per packed pixel: C padded to a multiple of BK.
uint32_t nhwcChannels(const ConvProblem& problem, uint32_t bk);

// Whether the packing pass keeps only the pixels the conv reads: a strided 1x1 convolution without
// padding reads one pixel in stride_h x stride_w, so its packed image is the output's size and
// the conv on it has stride 1.
bool nhwcSubsamples(const ConvProblem& problem);
// The packing pass's workgroups each take one part of the packed image's planes (whole planes up
// to 256 pixels, else the parts of at most 256 pixels that this many divide them into) and this
// many channels of one image (pack_input_nhwc_f16.comp: PLANE_PARTS, PLANE_CHANNELS).
uint32_t nhwcPackParts(const ConvProblem& problem);
uint32_t nhwcPackChannels(const ConvProblem& problem);
// The problem the channels-last kernel computes on the packed image: `problem` itself, or with
// nhwcSubsamples the stride-1 1x1 convolution over the output-sized image.
ConvProblem nhwcPackedProblem(const ConvProblem& problem);

// Whether the kernel reads the caller's input as it is, with no packing pass: an fp16 NHWC input
// whose channels fill whole 16-byte words (C a multiple of 8; a last K slice past C reads zeros)
// and that nhwcSubsamples does not shrink.
bool nhwcReadsInPlace(const ConvProblem& problem);

// Bytes of one image of the packed input (of nhwcPackedProblem's size); 0 where the kernel reads
// the input in place.
uint64_t nhwcImageBytes(const ConvProblem& problem, uint32_t bk);

// The rules of the kernel family of conv2d_channels_last.comp that do not depend on how A
// is loaded (B's 16-byte words, the two-stage pipeline, C padded to BK, the packed weights' size):
// empty if `config` keeps them, else why not, naming `loader`.
std::string channelsLastKernelRules(const KernelConfig& config, const ConvProblem& problem, const std::string& loader);

// Empty if `config` (a ChannelsLastNhwcKernel) can run `problem` as far as the loader is concerned, else why
// not; canImplement checks the rest (shapes, subgroups, threads, shared memory).
std::string nhwcCanImplement(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem);

// The cost factor the channels-last kernel family starts from (the NCHW loader too), calibrated on
// the H200: its time against the gather kernel's cost unit, and the L2 stream of every workgroup's
// A rows and B columns, which larger tiles read less often.
double channelsLastTileFactor(const KernelConfig& config);

// The heuristic's estimated relative cost of `config` (heuristicCost in config_select.cpp): its
// calibration on the H200, tile by tile, subgroup layout, K order, fragment prefetch and
// instruction shape (nhwc_cost.cpp).
double nhwcCost(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem);

// Shared memory the kernel declares: A's and B's two stages, the bias row and the fragment table.
uint32_t nhwcSharedMemoryBytes(const KernelConfig& config);

// conv2d_channels_last.comp
struct CoopMatNhwcKernelSpec {
    CoopMatKernelSpec kernel;
    uint32_t channels;   // id 60: NHWC_C
    VkBool32 tapsInner;  // id 62: TAPS_INNER
    uint32_t slice;      // id 64: NHWC_SLICE, the configuration's BK
    VkBool32 fragmentPrefetch;  // id 65: FRAGMENT_PREFETCH
    uint32_t splitK;     // id 66: SPLIT_K
    VkBool32 inPlace;    // id 74: A_IN_PLACE (the "_io" module only): nhwcReadsInPlace
    static std::vector<VkSpecializationMapEntry> entries();
};

// pack_input_nhwc_f16.comp
struct PackNhwcKernelSpec {
    ProblemSpec problem;  // the problem as given: the input's geometry, the output's, the stride
    uint32_t channels;    // id 60
    VkBool32 subsample;   // id 63: nhwcSubsamples
    uint32_t slice;       // id 64: the conv kernel's BK
    VkBool32 inF16, inNhwc;  // ids 72, 73: the input's format (the "_io" module only)
    uint32_t inputPart;      // id 74: INPUT_PART (the "_io" module only; the precise mode sets it)
    static std::vector<VkSpecializationMapEntry> entries();
};

// Weights KCRS -> B[k][n] in the channels-last K order, zero in the padding channels and columns:
// k = (r*S + s)*channels + c, or with the taps inner ((c / bk)*R*S + r*S + s)*bk + c % bk. The
// NCHW loader (nchw_input.hpp) walks K the same way.
std::vector<float> packWeightsChannelsLast(const ConvProblem& problem, const float* weight, uint32_t channels,
                                           uint32_t bCols, uint32_t bk, bool tapsInner);

// The conv kernel (weights as B[(r*S + s)*NHWC_C + c][n] fp16, columns padded to BN) and its
// packing pass.
PreparedKernel prepareNhwcCoopMatKernel(const ConvProblem& problem, const KernelConfig& config,
                                        const float* weight);

}  // namespace vkconv::detail
