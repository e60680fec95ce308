// Split-K for the channels-last kernel family (conv2d_channels_last.comp, with either of
// its A loaders). Where the M x N tiles are too few to fill the GPU (batch 1, 7x7 outputs), each
// tile's K slices are shared among KernelConfig::splitK workgroups along the grid's Z: workgroup z
// multiplies slices [z * S / splitK, (z + 1) * S / splitK) and writes its fp32 partial tile to a
// workspace laid out as the chunk's NCHW output once per split ([split][image][k][pixel]); split 0
// starts from the bias. A second pass (reduce_split_k.comp) then adds the splits in order
// 0, 1, ..., splitK - 1 into the output: the same sums in the same order on every run.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/common/kernel_specs.hpp"
#include "runtime/pipeline.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::detail {

// The K slices the channels-last kernel walks for the whole GEMM K: one per kernel tap and
// BK-channel slice of the channels padded to BK.
uint64_t channelsLastSlices(const KernelConfig& config, const ConvProblem& problem);

// Empty if `config`'s splitK can run `problem` on `device` (the loader itself is checked by
// canImplement): the splits divide the K slices evenly, fit the grid's Z, and the partials of the
// whole problem fit one buffer range of 32-bit indexed floats.
std::string splitKCanImplement(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem);

// Bytes of the partials workspace for `images` images (0 without a split).
uint64_t splitKWorkspaceBytes(const KernelConfig& config, const ConvProblem& problem, uint64_t images);

// The GEMM's 64x64 tiles: the unit of the deep 1x1 rules below and nchwCost's.
double pointwiseTiles64(const ConvProblem& problem);

// The windows below are the device rules' (deep_pointwise_splits in src/kernels/rules/); the
// figures in these comments are the defaults' and what they were measured on.
// A 1x1 convolution over K >= 2048 input channels whose unsplit 64x64 tiles make from half a
// workgroup a compute unit to one (`units`): ResNet-50's 2048->512 at 7x7 at batch 12-20. There
// 64x64x16 tiles on 2x2 subgroups in 4 splits led every unsplit tile by 15-46% (nhwcCost). Over
// 1024 channels (1024->256 and 1024->512 at 14x14, the 1024->2048 downsample; batch 2-12) every
// split timed lost to the unsplit picks by 4-30% (H200, docs/performance.md).
bool deepPointwiseMidGrid(const ConvProblem& problem, const DeviceInfo& device, double units);

// Within deepPointwiseMidGrid, where the 64x64 tiles make three quarters of a workgroup a unit or
// more: there the NCHW loader's 64x128x16 tiles on 2x4 subgroups in 4 splits (two to four workgroups
// a unit, no packing pass) led the channels-last 64x64x16 ones by 3-7% (2048->512 at 7x7, batch
// 16-20, H200, docs/performance.md); below it they came level or lost (batch 14 0.0265 ms both, batch
// 12 0.0266 against 0.0256).
bool deepPointwiseNchwSplit(const ConvProblem& problem, const DeviceInfo& device, double units);

// A 1x1 convolution over K >= 2048 input channels whose unsplit 64x64 tiles make one to one and a
// half workgroups a compute unit (`units`): ResNet-50's 2048->512 at 7x7 at batch 22-28. There the
// unsplit pick's own 64x64x16 tiles on 2x2 subgroups with fragment prefetch, in 2 splits, led it by
// 9-15% (0.0346 ms against 0.0406 at batch 24); in 4 splits they lost, and from 1.5 (batch 32,
// 200 tiles) the unsplit tile leads (H200, docs/performance.md).
bool deepPointwiseTwoSplits(const ConvProblem& problem, const DeviceInfo& device, double units);

// The heuristic's charge for splitting (on top of the channels-last cost models, whose grid
// counts the splits' workgroups): the partial tiles written and read back, and the reduce pass.
double splitKCostFactor(const KernelConfig& config, const DeviceInfo& device, const ConvProblem& problem);

// reduce_split_k.comp: its constants (ids 0..3) and the epilogue's.
struct SplitKReduceSpec {
    uint32_t splits;       // id 0: SPLITS
    uint32_t outChannels;  // id 1: K_TOTAL
    uint32_t outPixels;    // id 2: OUT_HW
    VkBool32 hasBias;      // id 3: HAS_BIAS
    EpilogueSpec epilogue;
    static std::vector<VkSpecializationMapEntry> entries();
};
// The reduce pass: its pipeline, and the workgroups (of kSplitKReduceThreads threads) it takes
// for a chunk of `elements` output values (a grid-stride loop, within the device's grid).
inline constexpr uint32_t kSplitKReduceThreads = 128;
PipelineKey splitKReducePipeline(const KernelConfig& config, const ConvProblem& problem);
uint32_t splitKReduceWorkgroups(uint64_t elements, const DeviceInfo& device);

}  // namespace vkconv::detail
