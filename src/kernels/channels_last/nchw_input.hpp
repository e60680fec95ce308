// The direct NCHW loader of the channels-last kernel family, for convolutions without padding
// (1x1 kernels, and kernels no larger than their stride: patch embeddings, 2x2 downsamples): the
// kernel of conv2d_channels_last.comp compiled with the A loader of
// nchw_input.glsl, which reads A (pixels x taps and channels) straight from the fp32 NCHW
// input, with no packing pass and no workspace. This file owns everything the loader decides:
// which problems and configurations it serves, its shared memory, its vector loads and its
// pipeline.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/common/prepared_kernel.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

// The problems the loader serves: padding 0 and groups 1 (any kernel, stride and dilation: every
// tap then lies inside the image). Empty if `problem` is one, else why not.
std::string nchwProblemSupport(const ConvProblem& problem);

// Whether the problem's windows overlap (a kernel, dilated or not, wider than its stride). Where
// they do not, each input is read once, and the loader saves the packing pass the channels-last
// loader makes; where they do, it reads each input once per window that holds it.
bool nchwWindowsOverlap(const ConvProblem& problem);

// Whether the kernel loads 4 consecutive pixels of a channel as one 16-byte vector: a 1x1 at
// stride 1 and output planes of a multiple of 4 pixels (a run of 4 then never straddles two
// images).
bool nchwVectorLoads(const ConvProblem& problem);

// The NCHW loader's tile that ran fastest, or within 4% of the fastest, on the 1x1 layers timed
// (BM x BN x BK on warpsM x warpsN subgroups of 16x16x16 fragments) on `device`, whose compute
// units and slots (workgroupSlots) set the waves its grid takes. nchwCost ranks it first; the
// channels-last kernel's cost measures its own small- and mid-grid rules against its grid.
struct NchwTile {
    uint32_t bm, bn, bk, warpsM, warpsN;
};
NchwTile preferredNchwTile(const ConvProblem& problem, const DeviceInfo& device);
// The workgroups the preferred tile's grid holds (the loader serves groups 1 only): the other
// cost rules draw their lines on it.
double preferredNchwWorkgroups(const ConvProblem& problem, const DeviceInfo& device);

// A GEMM small enough that its time is a few workgroups' latency: at most 2M multiply-adds a
// compute unit over K < 2048, 1M over a deeper K (batch 1-4 of ResNet-50's deep and strided 1x1
// layers). There the channels-last kernel's packing dispatch adds to that latency (nhwcCost).
bool tinyGemm(const ConvProblem& problem, double units);
// The same for a 1x1 kernel.
bool tinyPointwise(const ConvProblem& problem, double units);

// A kernel larger than 1x1 whose windows, without padding, share no input (patch embeddings,
// 2x2 downsamples): the NCHW loader reads each input once, as for a 1x1.
bool nchwPatchKernel(const ConvProblem& problem);
// A patch kernel whose GEMM is at most 1M multiply-adds a compute unit (tinyGemm over half the
// units): there the NCHW loader leads, and the channels-last kernel's packing dispatch adds to
// a few workgroups' latency (nchwCost and nhwcCost both draw this line).
bool tinyPatchKernel(const ConvProblem& problem, double units);

// Empty if `config` (a ChannelsLastNchwKernel) can run `problem` as far as the loader is concerned, else why
// not; canImplement checks the rest (shapes, subgroups, threads, shared memory).
std::string nchwCanImplement(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem);

// Shared memory the kernel declares: A's and B's two stages, the bias row and the fragment table.
uint32_t nchwSharedMemoryBytes(const KernelConfig& config);

// The heuristic's estimated relative cost of `config` (heuristicCost in config_select.cpp).
double nchwCost(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem);

// Registers a thread of the kernel holds for its accumulators and the two prefetched slices of A
// (fp32, with their input offsets) and B: an estimate, without the addresses and fragments the
// compiler adds (on NVIDIA 48-64 more).
uint32_t nchwRegisterEstimate(const KernelConfig& config, const ConvProblem& problem);

// conv2d_channels_last.comp with VKCONV_NCHW_INPUT
struct CoopMatNchwKernelSpec {
    CoopMatKernelSpec kernel;
    uint32_t channels;    // id 60: NHWC_C, C padded to a multiple of BK (the GEMM K a tap)
    VkBool32 vectorLoads;  // id 61: NCHW_VEC4
    VkBool32 tapsInner;    // id 62: TAPS_INNER
    uint32_t splitK;       // id 66: SPLIT_K
    static std::vector<VkSpecializationMapEntry> entries();
};

// The conv kernel, its weights packed as for the channels-last loader (B[(r, s, c)][n] fp16 in the
// configuration's K order, C padded to BK with zero rows, columns padded to BN). No packing pass.
PreparedKernel prepareNchwCoopMatKernel(const ConvProblem& problem, const KernelConfig& config, const float* weight);

}  // namespace vkconv::detail
