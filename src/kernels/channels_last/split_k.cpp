#include "kernels/channels_last/split_k.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/channels_last/channels_last_params.hpp"
#include "kernels/channels_last/nhwc_input.hpp"
#include "kernels/common/device_rules.hpp"
#include "kernels/common/tensor_io.hpp"

namespace vkconv::detail {

uint64_t channelsLastSlices(const KernelConfig& c, const ConvProblem& p) {
    return uint64_t(p.kernelH) * uint64_t(p.kernelW) * (nhwcChannels(p, c.bk) / std::max(c.bk, 1u));
}

uint64_t splitKWorkspaceBytes(const KernelConfig& c, const ConvProblem& p, uint64_t images) {
    const ChannelsLastTiling& cl = channelsLast(c);
    if (cl.splitK <= 1) return 0;
    return uint64_t(cl.splitK) * images * uint64_t(p.outChannels) * uint64_t(p.outHeight()) * uint64_t(p.outWidth()) * 4;
}

std::string splitKCanImplement(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    const ChannelsLastTiling& cl = channelsLast(c);
    if (cl.splitK <= 1) return "";
    const std::string split = "splitK " + std::to_string(cl.splitK);
    const uint64_t slices = channelsLastSlices(c, p);
    if (slices % cl.splitK)
        return split + " does not divide the " + std::to_string(slices) + " K slices (" + std::to_string(p.kernelH) + "x" +
               std::to_string(p.kernelW) + " taps x " + std::to_string(nhwcChannels(p, c.bk) / c.bk) + " slices of BK " +
               std::to_string(c.bk) + " channels)";
    if (cl.splitK > d.maxWorkGroupCount[2])
        return split + " exceeds maxComputeWorkGroupCount[2] " + std::to_string(d.maxWorkGroupCount[2]);
    // The partials are bound whole, and indexed with 32-bit element offsets in both passes.
    const uint64_t bytes = splitKWorkspaceBytes(c, p, uint64_t(p.batch));
    if (bytes > std::min<uint64_t>(d.maxStorageBufferRange, 1ull << 31))
        return split + ": the partial sums (" + std::to_string(bytes) + " bytes) exceed maxStorageBufferRange " +
               std::to_string(d.maxStorageBufferRange);
    return "";
}

double pointwiseTiles64(const ConvProblem& p) {
    return std::ceil(double(p.gemmM()) / 64) * std::ceil(double(p.gemmN()) / 64);
}

bool deepPointwiseMidGrid(const ConvProblem& p, const DeviceInfo& d, double units) {
    const DeepPointwiseSplitRules& r = deviceRules(d).deepPointwiseSplits;
    const double tiles = pointwiseTiles64(p);
    return p.kernelH * p.kernelW == 1 && p.gemmK() >= r.minK && tiles >= r.midGridFrom * units &&
           tiles <= r.midGridTo * units;
}

bool deepPointwiseNchwSplit(const ConvProblem& p, const DeviceInfo& d, double units) {
    return deepPointwiseMidGrid(p, d, units) &&
           pointwiseTiles64(p) >= deviceRules(d).deepPointwiseSplits.nchwSplitFrom * units;
}

bool deepPointwiseTwoSplits(const ConvProblem& p, const DeviceInfo& d, double units) {
    const DeepPointwiseSplitRules& r = deviceRules(d).deepPointwiseSplits;
    const double tiles = pointwiseTiles64(p);
    return p.kernelH * p.kernelW == 1 && p.gemmK() >= r.minK && tiles > r.twoSplitsFrom * units &&
           tiles <= r.twoSplitsTo * units;
}

double splitKCostFactor(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    const ChannelsLastTiling& cl = channelsLast(c);
    if (cl.splitK <= 1) return 1.0;
    const SplitKCostRules& r = deviceRules(d).splitKCost;
    // The cost models already count the split grid's workgroups (tileGrid); on top, a share a
    // split for the partial tiles and the reduce pass (per_split), and each workgroup's pipeline
    // start and epilogue as some K (k_overhead: about three 16-deep slices) next to its share of
    // K, whatever its slice depth.
    // Calibrated on the H200 (kernel-lab, docs/performance.md): where the unsplit grid is a few
    // dozen workgroups this picks the splits measured fastest or within 7% of them. Counted in
    // slices instead, the overhead ranked 64-deep tiles behind 16-deep ones at batch 1 (3x3/512
    // at 7x7 in 8 splits: 32x64x16 0.021 ms, 32x64x64 0.015).
    const double kShare = double(channelsLastSlices(c, p)) * c.bk / cl.splitK;
    return (1.0 + r.perSplit * cl.splitK) * (kShare + r.kOverhead) / kShare;
}

std::vector<VkSpecializationMapEntry> SplitKReduceSpec::entries() {
    std::vector<VkSpecializationMapEntry> e{{0, offsetof(SplitKReduceSpec, splits), 4},
                                            {1, offsetof(SplitKReduceSpec, outChannels), 4},
                                            {2, offsetof(SplitKReduceSpec, outPixels), 4},
                                            {3, offsetof(SplitKReduceSpec, hasBias), 4}};
    appendEpilogueEntries(e, offsetof(SplitKReduceSpec, epilogue));
    return e;
}

PipelineKey splitKReducePipeline(const KernelConfig& c, const ConvProblem& p) {
    return pipelineKey(outputModule("reduce_split_k", p),
                       SplitKReduceSpec{channelsLast(c).splitK, uint32_t(p.outChannels),
                                        uint32_t(p.outHeight() * p.outWidth()), p.bias ? VK_TRUE : VK_FALSE,
                                        makeEpilogueSpec(p.epilogue, p.outputFormat)});
}

uint32_t splitKReduceWorkgroups(uint64_t elements, const DeviceInfo& d) {
    // Four values a thread once the grid is large; within maxComputeWorkGroupCount[0] beyond that.
    const uint64_t wanted = (elements + 4ull * kSplitKReduceThreads - 1) / (4ull * kSplitKReduceThreads);
    return uint32_t(std::clamp<uint64_t>(wanted, 1, d.maxWorkGroupCount[0]));
}

}  // namespace vkconv::detail
