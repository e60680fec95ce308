// The grouped direct kernel's configurations: what they use, whether they fit, which to try and
// how they rank. Must match shaders/conv2d_grouped_direct.comp's constants.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "grouped_direct.hpp"

namespace vkconv::detail {

namespace {

// Register budgets of the unrolled kernel: the weights of KB channels, the accumulators, and the
// values a thread stages on their way to shared memory. Past them a GPU compiler spills, and
// lavapipe's compile time grows with the unrolled body.
constexpr uint64_t kMaxWeightRegisters = 128;
constexpr uint64_t kMaxAccumulators = 64;
constexpr uint64_t kMaxLoadSteps = 32;

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

bool groupedDirectServes(const ConvProblem& p) {
    return p.groups > 1 && p.inChannels / p.groups <= 16 && p.outChannels / p.groups <= 16;
}

GroupedDirectTile groupedDirectTile(const KernelConfig& c, const ConvProblem& p) {
    GroupedDirectTile t;
    t.outH = uint64_t(c.directThreadsH) * c.directRows;
    t.outW = uint64_t(c.directThreadsW) * c.directVecW;
    t.inH = t.outH ? (t.outH - 1) * p.strideH + (p.kernelH - 1) * p.dilationH + 1 : 0;
    t.inW = t.outW ? (t.outW - 1) * p.strideW + (p.kernelW - 1) * p.dilationW + 1 : 0;
    t.shift = (4 - uint64_t(p.padW) % 4) % 4;
    t.rowWords = (t.shift + t.inW + 3) / 4 * 4;
    t.buffers = p.inChannels / p.groups > 1 ? 2 : 1;
    return t;
}

uint32_t groupedDirectSharedBytes(const KernelConfig& c, const ConvProblem& p) {
    const GroupedDirectTile t = groupedDirectTile(c, p);
    return uint32_t(std::min<uint64_t>(t.buffers * t.inH * t.rowWords * 4, 1u << 30));
}

uint32_t groupedDirectTilesPerImage(const KernelConfig& c, const ConvProblem& p) {
    const GroupedDirectTile t = groupedDirectTile(c, p);
    return uint32_t(ceilDiv(p.outHeight(), t.outH) * ceilDiv(p.outWidth(), t.outW));
}

std::string canImplementGroupedDirect(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    if (c.directThreadsW == 0 || c.directThreadsH == 0) return "grouped-direct threads must be >= 1 along W and H";
    if (c.debugSkip) return "grouped-direct has no parts to leave out (debugSkip must be 0)";
    if (c.directVecW != 1 && c.directVecW != 2 && c.directVecW != 4)
        return "grouped-direct outputs a thread computes along W must be 1, 2 or 4, not " + std::to_string(c.directVecW);
    if (c.directRows == 0 || c.directRows > 8)
        return "grouped-direct outputs a thread computes along H must be 1..8, not " + std::to_string(c.directRows);
    if (c.directChannels == 0 || c.directChannels > 16)
        return "grouped-direct output channels a workgroup computes must be 1..16, not " +
               std::to_string(c.directChannels);
    const uint64_t taps = uint64_t(p.kernelH) * p.kernelW;
    if (c.directChannels * taps > kMaxWeightRegisters)
        return "grouped-direct keeps " + std::to_string(c.directChannels) + " x " + std::to_string(taps) +
               " weights in registers (at most " + std::to_string(kMaxWeightRegisters) + ")";
    if (uint64_t(c.directChannels) * c.directRows * c.directVecW > kMaxAccumulators)
        return "grouped-direct would hold more than " + std::to_string(kMaxAccumulators) + " accumulators a thread";
    const uint64_t threads = uint64_t(c.directThreadsW) * c.directThreadsH;
    if (threads > d.maxWorkGroupInvocations)
        return std::to_string(threads) + " threads exceed maxComputeWorkGroupInvocations " +
               std::to_string(d.maxWorkGroupInvocations);
    const GroupedDirectTile t = groupedDirectTile(c, p);
    if (ceilDiv(t.inH * t.rowWords, threads) > kMaxLoadSteps)
        return "grouped-direct input tile of " + std::to_string(t.inH) + "x" + std::to_string(t.inW) +
               " takes more than " + std::to_string(kMaxLoadSteps) + " loads a thread";
    const uint32_t shared = groupedDirectSharedBytes(c, p);
    if (shared > d.maxSharedMemoryBytes)
        return std::to_string(shared) + " bytes of shared memory exceed " + std::to_string(d.maxSharedMemoryBytes);
    if (c.subgroupSize != 0 && c.subgroupSize != d.subgroupSize &&
        !(d.subgroupSizeControl && c.subgroupSize >= d.minSubgroupSize && c.subgroupSize <= d.maxSubgroupSize))
        return "subgroup size " + std::to_string(c.subgroupSize) + " not available";
    const uint64_t kBlocks = ceilDiv(p.outChannels / p.groups, c.directChannels);
    if (kBlocks > d.maxWorkGroupCount[1])
        return std::to_string(kBlocks) + " channel blocks exceed maxComputeWorkGroupCount[1]";
    return "";
}

std::vector<KernelConfig> groupedDirectCandidates(const DeviceInfo& d, const ConvProblem& p) {
    std::vector<KernelConfig> out;
    if (!groupedDirectServes(p)) return out;
    const uint64_t outH = uint64_t(p.outHeight()), outW = uint64_t(p.outWidth());
    const uint64_t kG = uint64_t(p.outChannels / p.groups);
    for (uint32_t vecW : {1u, 2u, 4u}) {
        // Tile widths: a whole output row (then a tile's rows are one contiguous run of memory
        // in and out), or a power of two.
        std::vector<uint32_t> widths{8u, 16u, 32u, 64u};
        const uint32_t rowThreads = uint32_t(std::min<uint64_t>(ceilDiv(outW, vecW), 1024));
        if (std::find(widths.begin(), widths.end(), rowThreads) == widths.end()) widths.push_back(rowThreads);
        for (uint32_t tw : widths)
            for (uint32_t th : {1u, 2u, 4u, 8u, 16u, 32u})
                for (uint32_t rows : {1u, 2u, 4u, 8u})
                    for (uint32_t kb : {1u, 2u, 4u, 8u, 16u}) {
                        // 32 to 256 threads, fewer only where one tile covers the whole output.
                        const uint64_t threads = uint64_t(tw) * th;
                        const bool whole = uint64_t(tw) * vecW >= outW && uint64_t(th) * rows >= outH;
                        if ((threads < 32 && !whole) || threads > 256) continue;
                        // A tile no wider or taller than the output needs; the channel block
                        // no larger than the group's channels rounded up to a power of two.
                        if (tw > 8 && uint64_t(tw / 2) * vecW >= outW && tw != rowThreads) continue;
                        if (th > 1 && uint64_t(th / 2) * rows >= outH) continue;
                        if (kb > 1 && kb / 2 >= kG) continue;
                        KernelConfig c;
                        c.path = Path::Fp32;
                        c.fp32Kernel = Fp32Kernel::GroupedDirect;
                        c.directThreadsW = tw, c.directThreadsH = th;
                        c.directVecW = vecW, c.directRows = rows, c.directChannels = kb;
                        if (canImplementGroupedDirect(c, d, p).empty()) out.push_back(c);
                    }
    }
    return out;
}

double groupedDirectCost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    // Not yet calibrated on a GPU: the factors below are what the kernel's structure costs, in
    // the GEMM kernels' unit (multiply-adds done, padding included), so that the two compare.
    const GroupedDirectTile t = groupedDirectTile(c, p);
    const double cG = double(p.inChannels / p.groups), kG = double(p.outChannels / p.groups);
    const double taps = double(p.kernelH * p.kernelW);
    const double tiles = double(p.batch) * groupedDirectTilesPerImage(c, p);
    const double kBlocks = std::ceil(kG / c.directChannels);
    const double work = tiles * double(t.outH * t.outW) * kBlocks * c.directChannels * double(p.groups) * cG * taps;
    double factor = 1.0;
    // The halo: input loaded (and read from L2) per input the tile needs, once per channel block.
    const double needed = double(t.outH * p.strideH) * double(t.outW * p.strideW);
    factor *= 1.0 + 0.25 * (double(t.inH * t.rowWords) / needed - 1.0);
    // Shared-memory reads per multiply-add: a thread reads its window's rows once and uses each
    // value for every tap, row and channel it meets. Lanes of a subgroup read VEC_W x SW words
    // apart: that many of them share a bank.
    const double window = double(((c.directRows - 1) * p.strideH + (p.kernelH - 1) * p.dilationH + 1) *
                                 ((c.directVecW - 1) * p.strideW + (p.kernelW - 1) * p.dilationW + 1));
    const double conflicts = std::min<double>(double(c.directVecW * p.strideW), 32.0);
    factor *= 1.0 + 0.5 * window * conflicts / (double(c.directRows * c.directVecW * c.directChannels) * taps);
    // GPUs keep at most so many workgroups resident per compute unit (32 on NVIDIA's): below 64
    // threads a workgroup they cannot fill it.
    if (!d.isCpu()) factor *= c.threads() >= 128 ? 1.0 : c.threads() >= 64 ? 1.05 : 1.3;
    // NVIDIA's compiler sizes a kernel's register budget by how many of its workgroups fit
    // maxComputeSharedMemorySize; past half of it the GEMM kernels lost a third of their speed
    // (bench/RESULTS.md, heuristicCost's packed-loader rule).
    if (!d.isCpu() && 2ull * groupedDirectSharedBytes(c, p) > d.maxSharedMemoryBytes) factor *= 1.45;
    // The weights of KB channels, the accumulators and (with two buffers) the next channel's
    // staged loads cost registers: past 64 of them fewer workgroups stay resident.
    const double staged = t.buffers > 1 ? std::ceil(double(t.inH * t.rowWords) / c.threads()) : 0.0;
    const double registers = double(c.directChannels) * taps +
                             double(c.directChannels * c.directRows * c.directVecW) + staged;
    if (registers > 64) factor *= 1.0 + (registers - 64) / 256.0;
    const double workgroups = tiles * kBlocks * double(p.groups);
    const double slots = d.isCpu() ? 16.0 : 512.0;
    return work * factor * (workgroups < slots ? slots / workgroups : 1.0);
}

std::vector<KernelConfig> groupedDirectNeighbours(const KernelConfig& c) {
    std::vector<KernelConfig> out;
    auto vary = [&](uint32_t KernelConfig::*field) {
        for (uint32_t v : {c.*field / 2, c.*field * 2}) {
            if (v == 0) continue;
            KernelConfig n = c;
            n.*field = v;
            out.push_back(n);
        }
    };
    vary(&KernelConfig::directRows);
    vary(&KernelConfig::directVecW);
    vary(&KernelConfig::directChannels);
    vary(&KernelConfig::directThreadsH);
    vary(&KernelConfig::directThreadsW);
    return out;
}

std::string groupedDirectNote(const ConvProblem& p) {
    std::ostringstream s;
    const int64_t cG = p.inChannels / p.groups, kG = p.outChannels / p.groups;
    const int64_t macs = cG * p.kernelH * p.kernelW;
    s << "grouped direct kernel: groups of " << cG << " input and " << kG << " output channel(s) ("
      << macs << " multiply-adds an output) would leave a GEMM tile mostly padding; it reads each input "
      << "once into shared memory for all its taps and computes in fp32, which";
    // About 64 multiply-adds an output is where fp32 FMA throughput meets memory bandwidth on
    // current GPUs (H200: ~67 TFLOP/s against 4.8 TB/s of 8-byte outputs-and-inputs).
    if (macs <= 64) s << " costs these memory-bound layers little and";
    s << " holds fp32's bound " << errorBound(Path::Fp32) << " on every path";
    if (!groupedDirectServes(p)) s << " (not a problem it is chosen for: given by the caller)";
    return s.str();
}

}  // namespace vkconv::detail
