// The grouped direct kernel's configurations: what they use, whether they fit, which to try, the
// neighbours micro-tuning tries (how they rank: grouped_direct_cost.cpp). Must match
// conv2d_grouped_direct.comp's constants.
#include <algorithm>
#include <sstream>

#include "kernels/grouped_direct/grouped_direct.hpp"

namespace vkconv::detail {

namespace {

// Register budgets of the unrolled kernel: the weights of KB channels, the accumulators, and the
// values a thread stages on their way to shared memory. Past them a GPU compiler spills, and
// lavapipe's compile time grows with the unrolled body.
constexpr uint64_t kMaxWeightRegisters = 128;
constexpr uint64_t kMaxAccumulators = 64;
constexpr uint64_t kMaxLoadSteps = 32;
// Candidates a problem gets: the sweep times each of them.
constexpr size_t kMaxCandidates = 60;

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

bool groupedDirectServes(const ConvProblem& p) {
    return p.groups > 1 && p.inChannels / p.groups <= 16 && p.outChannels / p.groups <= 16;
}

GroupedDirectTile groupedDirectTile(const KernelConfig& c, const ConvProblem& p) {
    GroupedDirectTile t;
    t.outH = uint64_t(direct(c).threadsH) * direct(c).rows;
    t.outW = uint64_t(direct(c).threadsW) * direct(c).vecW;
    t.inH = t.outH ? (t.outH - 1) * p.strideH + (p.kernelH - 1) * p.dilationH + 1 : 0;
    t.inW = t.outW ? (t.outW - 1) * p.strideW + (p.kernelW - 1) * p.dilationW + 1 : 0;
    t.shift = (4 - uint64_t(p.padW) % 4) % 4;
    t.rowWords = (t.shift + t.inW + 3) / 4 * 4;
    t.steps = uint64_t(p.inChannels / p.groups) * direct(c).groupSteps;
    t.buffers = t.steps > 1 ? 2 : 1;
    const uint64_t tilesW = t.outW ? ceilDiv(uint64_t(p.outWidth()), t.outW) : 0;
    t.tilesPerImage = t.outH ? ceilDiv(uint64_t(p.outHeight()), t.outH) * tilesW : 0;
    t.rowVectors = p.width % 4 == 0 && (tilesW == 1 || (t.outW * p.strideW) % 4 == 0);
    t.planeLoads = t.tilesPerImage == 1 && !t.rowVectors;
    t.stepLoads = uint64_t(direct(c).groups) * (t.planeLoads ? uint64_t(p.height) * uint64_t(p.width) : t.inH * t.rowWords);
    return t;
}

namespace {

// The 16-byte vectors of weights a workgroup keeps in shared memory: KB x R x S (padded to whole
// vectors) for each step and group side by side.
uint64_t groupedDirectWeightVectors(const KernelConfig& c, const ConvProblem& p) {
    const uint64_t wordsPerStep = uint64_t(direct(c).channels) * p.kernelH * p.kernelW;
    return groupedDirectTile(c, p).steps * direct(c).groups * ceilDiv(wordsPerStep, 4);
}

}  // namespace

bool groupedDirectPlanesOut(const KernelConfig& c, const ConvProblem& p) {
    const GroupedDirectTile t = groupedDirectTile(c, p);
    return direct(c).fromMemory && t.tilesPerImage == 1 && p.outChannels == p.groups && direct(c).channels == 1 &&
           t.steps == 1;
}

uint32_t groupedDirectSharedBytes(const KernelConfig& c, const ConvProblem& p) {
    if (direct(c).fromMemory) {
        // The shader's two input arrays, one unused vector each, and its output planes.
        const uint64_t outWords = groupedDirectPlanesOut(c, p)
                                      ? uint64_t(direct(c).groups) * uint64_t(p.outHeight()) * uint64_t(p.outWidth())
                                      : 1;
        return uint32_t(std::min<uint64_t>(2 * 16 + outWords * 4, 1u << 30));
    }
    // The staged weights: counted even where the kernel reads them as a uniform buffer instead
    // (prepareGroupedDirectKernel), which depends on the device; an upper bound there.
    const GroupedDirectTile t = groupedDirectTile(c, p);
    return uint32_t(std::min<uint64_t>(
        t.buffers * direct(c).groups * t.inH * t.rowWords * 4 + groupedDirectWeightVectors(c, p) * 16, 1u << 30));
}

uint32_t groupedDirectTilesPerImage(const KernelConfig& c, const ConvProblem& p) {
    return uint32_t(groupedDirectTile(c, p).tilesPerImage);
}

std::string canImplementGroupedDirect(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    if (direct(c).threadsW == 0 || direct(c).threadsH == 0) return "grouped-direct threads must be >= 1 along W and H";
    if (direct(c).vecW != 1 && direct(c).vecW != 2 && direct(c).vecW != 4 && direct(c).vecW != 8)
        return "grouped-direct outputs a thread computes along W must be 1, 2, 4 or 8, not " +
               std::to_string(direct(c).vecW);
    if (direct(c).rows == 0 || direct(c).rows > 16)
        return "grouped-direct outputs a thread computes along H must be 1..16, not " + std::to_string(direct(c).rows);
    if (direct(c).channels == 0 || direct(c).channels > 16)
        return "grouped-direct output channels a workgroup computes must be 1..16, not " +
               std::to_string(direct(c).channels);
    if (direct(c).groups == 0 || direct(c).groups > 64)
        return "grouped-direct groups a workgroup computes side by side must be 1..64, not " +
               std::to_string(direct(c).groups);
    if (direct(c).groupSteps == 0 || direct(c).groupSteps > 64)
        return "grouped-direct groups a workgroup computes one after another must be 1..64, not " +
               std::to_string(direct(c).groupSteps);
    const uint64_t taps = uint64_t(p.kernelH) * p.kernelW;
    if ((direct(c).channels * taps + 3) / 4 * 4 > kMaxWeightRegisters)
        return "grouped-direct keeps " + std::to_string(direct(c).channels) + " x " + std::to_string(taps) +
               " weights in registers (at most " + std::to_string(kMaxWeightRegisters) + ")";
    if (uint64_t(direct(c).channels) * direct(c).rows * direct(c).vecW > kMaxAccumulators)
        return "grouped-direct would hold more than " + std::to_string(kMaxAccumulators) + " accumulators a thread";
    const uint64_t threads = uint64_t(direct(c).threadsW) * direct(c).threadsH * direct(c).groups;
    if (threads > d.maxWorkGroupInvocations)
        return std::to_string(threads) + " threads exceed maxComputeWorkGroupInvocations " +
               std::to_string(d.maxWorkGroupInvocations);
    const GroupedDirectTile t = groupedDirectTile(c, p);
    // Staging: a step's loads and the workgroup's weights, spread over its threads.
    if (!direct(c).fromMemory && ceilDiv(t.stepLoads, threads) > kMaxLoadSteps)
        return "grouped-direct input tile of " + std::to_string(t.inH) + "x" + std::to_string(t.inW) + " (x" +
               std::to_string(direct(c).groups) + " groups) takes more than " + std::to_string(kMaxLoadSteps) +
               " loads a thread";
    if (!direct(c).fromMemory && ceilDiv(groupedDirectWeightVectors(c, p), threads) > kMaxLoadSteps)
        return "grouped-direct workgroup's weights take more than " + std::to_string(kMaxLoadSteps) +
               " 16-byte loads a thread";
    const uint32_t shared = groupedDirectSharedBytes(c, p);
    if (shared > d.maxSharedMemoryBytes)
        return std::to_string(shared) + " bytes of shared memory exceed " + std::to_string(d.maxSharedMemoryBytes);
    const uint64_t kBlocks = ceilDiv(p.outChannels / p.groups, direct(c).channels);
    if (kBlocks > d.maxWorkGroupCount[1])
        return std::to_string(kBlocks) + " channel blocks exceed maxComputeWorkGroupCount[1]";
    return "";
}

std::vector<KernelConfig> groupedDirectCandidates(const DeviceInfo& d, const ConvProblem& p) {
    std::vector<KernelConfig> all;
    if (!groupedDirectServes(p)) return all;
    const uint64_t outH = uint64_t(p.outHeight()), outW = uint64_t(p.outWidth());
    const uint64_t kG = uint64_t(p.outChannels / p.groups), groups = uint64_t(p.groups);
    for (uint32_t vecW : {1u, 2u, 4u, 8u}) {
        // Tile widths: a whole output row (then a tile's rows are one contiguous run of memory
        // in and out), or a power of two.
        std::vector<uint32_t> widths{8u, 16u, 32u, 64u};
        const uint32_t rowThreads = uint32_t(std::min<uint64_t>(ceilDiv(outW, vecW), 1024));
        if (std::find(widths.begin(), widths.end(), rowThreads) == widths.end()) widths.push_back(rowThreads);
        for (uint32_t tw : widths)
            for (uint32_t th : {1u, 2u, 4u, 8u, 16u, 32u}) {
                // Rows a thread: powers of two, and the rows that make th threads cover the output's
                // height exactly (14 x 14 planes: 7 rows for 2 threads, not 8 with 2 rows of padding).
                std::vector<uint32_t> rowCounts{1u, 2u, 4u, 8u};
                const uint64_t exact = ceilDiv(outH, th);
                if (exact <= 16 && std::find(rowCounts.begin(), rowCounts.end(), uint32_t(exact)) == rowCounts.end())
                    rowCounts.push_back(uint32_t(exact));
                for (uint32_t rows : rowCounts)
                    for (uint32_t kb : {1u, 2u, 4u, 8u, 16u})
                        for (uint32_t gb : {1u, 2u, 4u, 8u, 16u, 32u})
                            for (uint32_t gs : {1u, 2u, 4u}) {
                                // 32 to 256 threads, fewer only where one tile covers the whole
                                // output of every group.
                                const uint64_t threads = uint64_t(tw) * th * gb;
                                const bool whole = uint64_t(tw) * vecW >= outW && uint64_t(th) * rows >= outH;
                                if ((threads < 32 && !(whole && gb >= groups)) || threads > 256) continue;
                                // A tile no wider or taller than the output needs; the channel
                                // block no larger than the group's channels rounded up to a power
                                // of two; groups side by side only where one tile covers a plane
                                // (elsewhere a larger tile does the same), and no more groups a
                                // workgroup than the layer has.
                                if (tw > 8 && uint64_t(tw / 2) * vecW >= outW && tw != rowThreads) continue;
                                if (th > 1 && uint64_t(th / 2) * rows >= outH) continue;
                                if (kb > 1 && kb / 2 >= kG) continue;
                                if (gb > 1 && !whole) continue;
                                if (uint64_t(gb) * gs > groups) continue;
                                KernelConfig c;
                                c.path = Path::Fp32;
                                c.params = GroupedDirectKernel{};
                                direct(c).threadsW = tw, direct(c).threadsH = th;
                                direct(c).vecW = vecW, direct(c).rows = rows, direct(c).channels = kb;
                                direct(c).groups = gb, direct(c).groupSteps = gs;
                                if (canImplementGroupedDirect(c, d, p).empty()) all.push_back(c);
                                // The same tile reading from memory; with nothing to prefetch,
                                // one set of groups a workgroup.
                                direct(c).fromMemory = true;
                                if (gs == 1 && canImplementGroupedDirect(c, d, p).empty()) all.push_back(c);
                            }
            }
    }
    // The sweep times every candidate: keep kMaxCandidates, by the model below: first the best of
    // each structural variant (vector width, groups side by side, one after another), then the
    // best of each tile (whatever its groups one after another, which the model barely tells
    // apart), then the rest.
    std::vector<std::pair<double, size_t>> ranked;
    for (size_t i = 0; i < all.size(); ++i) ranked.push_back({groupedDirectCost(all[i], d, p), i});
    std::stable_sort(ranked.begin(), ranked.end());
    std::vector<KernelConfig> out;
    std::vector<bool> taken(all.size(), false);
    // One pass per key: the cheapest configuration of each key not taken yet (an empty key: all).
    const auto takeCheapestOfEach = [&](auto key) {
        std::vector<std::vector<uint32_t>> seen;
        for (const auto& [cost, i] : ranked) {
            if (taken[i] || out.size() >= kMaxCandidates) continue;
            const std::vector<uint32_t> k = key(all[i]);
            if (!k.empty() && std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
            seen.push_back(k);
            out.push_back(all[i]);
            taken[i] = true;
        }
    };
    takeCheapestOfEach([](const KernelConfig& c) {  // structural variant
        return std::vector<uint32_t>{direct(c).vecW, direct(c).groups, direct(c).groupSteps, direct(c).fromMemory};
    });
    takeCheapestOfEach([](const KernelConfig& c) {  // tile
        return std::vector<uint32_t>{direct(c).threadsW, direct(c).threadsH, direct(c).vecW,       direct(c).rows,
                                     direct(c).channels, direct(c).groups,  direct(c).fromMemory};
    });
    takeCheapestOfEach([](const KernelConfig&) { return std::vector<uint32_t>{}; });
    return out;
}

std::vector<KernelConfig> groupedDirectNeighbours(const KernelConfig& c) {
    std::vector<KernelConfig> out;
    auto vary = [&](uint32_t GroupedDirectKernel::*field) {
        for (uint32_t v : {direct(c).*field / 2, direct(c).*field * 2}) {
            if (v == 0) continue;
            KernelConfig n = c;
            direct(n).*field = v;
            out.push_back(n);
        }
    };
    vary(&GroupedDirectKernel::rows);
    vary(&GroupedDirectKernel::vecW);
    vary(&GroupedDirectKernel::channels);
    vary(&GroupedDirectKernel::threadsH);
    vary(&GroupedDirectKernel::threadsW);
    vary(&GroupedDirectKernel::groups);
    vary(&GroupedDirectKernel::groupSteps);
    KernelConfig other = c;  // staged or from memory: the other way
    direct(other).fromMemory = !direct(c).fromMemory;
    out.push_back(other);
    return out;
}

std::string groupedDirectNote(const ConvProblem& p) {
    std::ostringstream s;
    const int64_t cG = p.inChannels / p.groups, kG = p.outChannels / p.groups;
    const int64_t macs = cG * p.kernelH * p.kernelW;
    s << "grouped direct kernel: groups of " << cG << " input and " << kG << " output channel(s) ("
      << macs << " multiply-adds an output) would leave a GEMM tile mostly padding; it reads each input "
      << "from memory once for all its taps (staged in shared memory, or through the cache) and computes in fp32, which";
    // About 64 multiply-adds an output is where fp32 FMA throughput meets memory bandwidth on
    // current GPUs (H200: ~67 TFLOP/s against 4.8 TB/s of 8-byte outputs-and-inputs).
    if (macs <= 64) s << " costs these memory-bound layers little and";
    s << " holds fp32's bound " << errorBound(Path::Fp32) << " on every path";
    if (!groupedDirectServes(p)) s << " (not a problem it is chosen for: given by the caller)";
    return s.str();
}

}  // namespace vkconv::detail
