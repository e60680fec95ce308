// The grouped direct kernel's configurations: what they use, whether they fit, which to try and
// how they rank. Must match shaders/conv2d_grouped_direct.comp's constants.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "config_select.hpp"  // workgroupSlots
#include "grouped_direct.hpp"

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
    t.outH = uint64_t(c.directThreadsH) * c.directRows;
    t.outW = uint64_t(c.directThreadsW) * c.directVecW;
    t.inH = t.outH ? (t.outH - 1) * p.strideH + (p.kernelH - 1) * p.dilationH + 1 : 0;
    t.inW = t.outW ? (t.outW - 1) * p.strideW + (p.kernelW - 1) * p.dilationW + 1 : 0;
    t.shift = (4 - uint64_t(p.padW) % 4) % 4;
    t.rowWords = (t.shift + t.inW + 3) / 4 * 4;
    t.steps = uint64_t(p.inChannels / p.groups) * c.directGroupSteps;
    t.buffers = t.steps > 1 ? 2 : 1;
    const uint64_t tilesW = t.outW ? ceilDiv(uint64_t(p.outWidth()), t.outW) : 0;
    t.tilesPerImage = t.outH ? ceilDiv(uint64_t(p.outHeight()), t.outH) * tilesW : 0;
    t.rowVectors = p.width % 4 == 0 && (tilesW == 1 || (t.outW * p.strideW) % 4 == 0);
    t.planeLoads = t.tilesPerImage == 1 && !t.rowVectors;
    t.stepLoads = uint64_t(c.directGroups) * (t.planeLoads ? uint64_t(p.height) * uint64_t(p.width) : t.inH * t.rowWords);
    return t;
}

namespace {

// The 16-byte vectors of weights a workgroup keeps in shared memory: KB x R x S (padded to whole
// vectors) for each step and group side by side.
uint64_t groupedDirectWeightVectors(const KernelConfig& c, const ConvProblem& p) {
    const uint64_t wordsPerStep = uint64_t(c.directChannels) * p.kernelH * p.kernelW;
    return groupedDirectTile(c, p).steps * c.directGroups * ceilDiv(wordsPerStep, 4);
}

}  // namespace

bool groupedDirectPlanesOut(const KernelConfig& c, const ConvProblem& p) {
    const GroupedDirectTile t = groupedDirectTile(c, p);
    return c.directFromMemory && t.tilesPerImage == 1 && p.outChannels == p.groups && c.directChannels == 1 &&
           t.steps == 1;
}

uint32_t groupedDirectSharedBytes(const KernelConfig& c, const ConvProblem& p) {
    if (c.directFromMemory) {
        // The shader's two input arrays, one unused vector each, and its output planes.
        const uint64_t outWords = groupedDirectPlanesOut(c, p)
                                      ? uint64_t(c.directGroups) * uint64_t(p.outHeight()) * uint64_t(p.outWidth())
                                      : 1;
        return uint32_t(std::min<uint64_t>(2 * 16 + outWords * 4, 1u << 30));
    }
    // The staged weights: counted even where the kernel reads them as a uniform buffer instead
    // (prepareGroupedDirectKernel), which depends on the device; an upper bound there.
    const GroupedDirectTile t = groupedDirectTile(c, p);
    return uint32_t(std::min<uint64_t>(
        t.buffers * c.directGroups * t.inH * t.rowWords * 4 + groupedDirectWeightVectors(c, p) * 16, 1u << 30));
}

uint32_t groupedDirectTilesPerImage(const KernelConfig& c, const ConvProblem& p) {
    return uint32_t(groupedDirectTile(c, p).tilesPerImage);
}

std::string canImplementGroupedDirect(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    if (c.directThreadsW == 0 || c.directThreadsH == 0) return "grouped-direct threads must be >= 1 along W and H";
    if (c.debugSkip > 7) return "grouped-direct leaves out 1, 2 or 4 (debugSkip at most 7), not " + std::to_string(c.debugSkip);
    if (c.directVecW != 1 && c.directVecW != 2 && c.directVecW != 4 && c.directVecW != 8)
        return "grouped-direct outputs a thread computes along W must be 1, 2, 4 or 8, not " +
               std::to_string(c.directVecW);
    if (c.directRows == 0 || c.directRows > 16)
        return "grouped-direct outputs a thread computes along H must be 1..16, not " + std::to_string(c.directRows);
    if (c.directChannels == 0 || c.directChannels > 16)
        return "grouped-direct output channels a workgroup computes must be 1..16, not " +
               std::to_string(c.directChannels);
    if (c.directGroups == 0 || c.directGroups > 64)
        return "grouped-direct groups a workgroup computes side by side must be 1..64, not " +
               std::to_string(c.directGroups);
    if (c.directGroupSteps == 0 || c.directGroupSteps > 64)
        return "grouped-direct groups a workgroup computes one after another must be 1..64, not " +
               std::to_string(c.directGroupSteps);
    const uint64_t taps = uint64_t(p.kernelH) * p.kernelW;
    if ((c.directChannels * taps + 3) / 4 * 4 > kMaxWeightRegisters)
        return "grouped-direct keeps " + std::to_string(c.directChannels) + " x " + std::to_string(taps) +
               " weights in registers (at most " + std::to_string(kMaxWeightRegisters) + ")";
    if (uint64_t(c.directChannels) * c.directRows * c.directVecW > kMaxAccumulators)
        return "grouped-direct would hold more than " + std::to_string(kMaxAccumulators) + " accumulators a thread";
    const uint64_t threads = uint64_t(c.directThreadsW) * c.directThreadsH * c.directGroups;
    if (threads > d.maxWorkGroupInvocations)
        return std::to_string(threads) + " threads exceed maxComputeWorkGroupInvocations " +
               std::to_string(d.maxWorkGroupInvocations);
    const GroupedDirectTile t = groupedDirectTile(c, p);
    // Staging: a step's loads and the workgroup's weights, spread over its threads.
    if (!c.directFromMemory && ceilDiv(t.stepLoads, threads) > kMaxLoadSteps)
        return "grouped-direct input tile of " + std::to_string(t.inH) + "x" + std::to_string(t.inW) + " (x" +
               std::to_string(c.directGroups) + " groups) takes more than " + std::to_string(kMaxLoadSteps) +
               " loads a thread";
    if (!c.directFromMemory && ceilDiv(groupedDirectWeightVectors(c, p), threads) > kMaxLoadSteps)
        return "grouped-direct workgroup's weights take more than " + std::to_string(kMaxLoadSteps) +
               " 16-byte loads a thread";
    const uint32_t shared = groupedDirectSharedBytes(c, p);
    if (shared > d.maxSharedMemoryBytes)
        return std::to_string(shared) + " bytes of shared memory exceed " + std::to_string(d.maxSharedMemoryBytes);
    const uint64_t kBlocks = ceilDiv(p.outChannels / p.groups, c.directChannels);
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
                                c.fp32Kernel = Fp32Kernel::GroupedDirect;
                                c.directThreadsW = tw, c.directThreadsH = th;
                                c.directVecW = vecW, c.directRows = rows, c.directChannels = kb;
                                c.directGroups = gb, c.directGroupSteps = gs;
                                if (canImplementGroupedDirect(c, d, p).empty()) all.push_back(c);
                                // The same tile reading from memory; with nothing to prefetch,
                                // one set of groups a workgroup.
                                c.directFromMemory = true;
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
        return std::vector<uint32_t>{c.directVecW, c.directGroups, c.directGroupSteps, c.directFromMemory};
    });
    takeCheapestOfEach([](const KernelConfig& c) {  // tile
        return std::vector<uint32_t>{c.directThreadsW, c.directThreadsH, c.directVecW,       c.directRows,
                                     c.directChannels, c.directGroups,  c.directFromMemory};
    });
    takeCheapestOfEach([](const KernelConfig&) { return std::vector<uint32_t>{}; });
    return out;
}

namespace {

// Four or more outputs along a row and at most two down a column, read as 16-byte vectors
// (groupedDirectCost's measured rules for these "vector strips").
bool vectorStrips(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    return !d.isCpu() && c.directVecW >= 4 && c.directRows <= 2 && p.outWidth() >= 28;
}

// Rows of 56 outputs on 16 threads of 4 (a tile 64 wide) instead of 14: the staged tiles that
// groupedDirectCost ranks ahead by this factor, and fromMemoryFactor takes it back from.
constexpr double kSixteenThreadRows = 0.85;
bool sixteenThreadRows(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    return vectorStrips(c, d, p) && c.directVecW == 4 && ceilDiv(uint64_t(p.outWidth()), 4) == 14 &&
           c.directThreadsW == 16;
}

// What reading windows and weights from memory does to a tile's cost, against the same tile
// staged in shared memory. Measured on the H200 (kernel-lab, the same tiles both ways,
// bench/RESULTS.md): it saves each workgroup the staging, the zeroing and a barrier a step, and
// reads every window row from the L1 cache once per thread that needs it. It won where a group
// has several input channels (a barrier each): ResNeXt's grouped 3x3, 4 channels a group,
// 0.178 ms as thread 2x4 k4 against 0.234 staged (0.217 the best staged tile), but not with one
// output row a thread (1x4 0.212 against 0.219, 1x8 0.256 against 0.217); and with whole small
// planes, one output column a thread: dw 512/14 0.176 against 0.194; and at stride 2 with 4 or
// more rows a thread and lanes at most 4 words apart: dw 64/112 s2 0.131 with 8 rows of one
// output (56 threads a row), 0.136 with 4, 0.143 with 4 rows of 2, against 0.157 for the best
// staged tile. It lost where a thread reads many taps or lanes lie 8 or more words apart
// (ConvNeXt's 7x7 0.264-0.291 against 0.165, dw 64/112 s2 thread 1x4 0.215, 1x8 0.376), on
// large planes at stride 1 (dw 32/112 0.126 against 0.119) and with fewer, wider threads on
// small planes (dw 512/14 thread 8x2 0.258 against 0.235, 4x2 0.271 against 0.214).
double fromMemoryFactor(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    if (d.isCpu()) return 1.2;  // not measured on CPU devices: the staged tile stays first there
    if (p.kernelH * p.kernelW > 9) return 1.5;
    if (p.strideH > 1 || p.strideW > 1) {
        const uint64_t laneWords = uint64_t(c.directVecW) * p.strideW;  // between neighbouring lanes' windows
        // 14 rows a thread (a 29-row window): 0.43-0.48 ms against 0.131 with 8.
        if (c.directRows > 8) return 1.5;
        if (c.directRows == 8 && laneWords <= 2) return 0.6;
        return c.directRows >= 4 && laneWords <= 4 ? 0.7 : 1.5;
    }
    if (p.inChannels / p.groups > 1) {
        // With the weights read as uniforms, rows of 14 threads (56 outputs) led the 16-thread rows
        // that lead staged tiles (groupedDirectCost): ResNeXt's grouped 3x3 0.168 ms as 8x56
        // thread 2x4 k4 against 0.175 as 8x64 (kernel-lab on the H200, bench/RESULTS.md), so the
        // staged tiles' factor for 16-thread rows is taken back here.
        return (c.directRows >= 2 ? 0.76 : 1.1) / (sixteenThreadRows(c, d, p) ? kSixteenThreadRows : 1.0);
    }
    // Whole planes of one output channel leave through shared memory as one run (PLANES_OUT):
    // dw 512/14 0.145 ms as thread 8x2 with 16 groups a workgroup (0.246 with each thread's words
    // stored down its column), 0.157 as thread 8x1 with 8 (0.178). Fastest of the 120 such tiles
    // timed: one thread a column strip two outputs wide down the whole plane (thread 14x2), 8
    // threads a plane (the 16-wide tile: workgroups of whole subgroups), 4 or 8 planes a workgroup:
    // 0.135 ms, against 0.141 with 16 planes, 0.144 with 7 threads a plane (the 14-wide tile),
    // 0.138-0.140 for the next tiles and 0.149 for 7 rows a thread over 2 threads.
    if (groupedDirectPlanesOut(c, p)) {
        const bool wholeSubgroups = d.subgroupSize != 0 && c.threads() % d.subgroupSize == 0;
        if (c.directThreadsH == 1 && c.directVecW == 2 && wholeSubgroups && c.directGroups >= 4 && c.directGroups <= 8)
            return 0.6;
        return c.directVecW == 2 && c.directGroups >= 16 ? 0.7 : 0.8;
    }
    if (groupedDirectTile(c, p).tilesPerImage == 1 && c.directVecW == 1) return 0.91;
    return 1.1;
}

}  // namespace

double groupedDirectCost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    if (c.directFromMemory) {
        KernelConfig staged = c;
        staged.directFromMemory = false;
        return groupedDirectCost(staged, d, p) * fromMemoryFactor(c, d, p);
    }
    // Not yet calibrated on a GPU. A model of one compute unit (NVIDIA's SM: 4 warp-wide FMAs a
    // cycle, one shared-memory wavefront of 128 bytes a cycle, 16 bytes of DRAM bandwidth a cycle
    // on the H200) against the layer's own floor; the result is in the GEMM kernels' unit
    // (multiply-adds done, times what the layer takes over its floor), so that the two compare.
    const GroupedDirectTile t = groupedDirectTile(c, p);
    const double cG = double(p.inChannels / p.groups), kG = double(p.outChannels / p.groups);
    const double taps = double(p.kernelH * p.kernelW);
    const double kBlocks = std::ceil(kG / c.directChannels);
    const double groupBlocks = std::ceil(double(p.groups) / (double(c.directGroups) * c.directGroupSteps));
    const double workgroups = double(p.batch) * double(t.tilesPerImage) * kBlocks * groupBlocks;
    const double threads = double(c.threads());
    const double warps = std::ceil(threads / 32.0);
    const double perThread = double(c.directRows * c.directVecW * c.directChannels);  // outputs a step
    // Arithmetic, per warp and step, in cycles: FMAs; shared-memory wavefronts of the window
    // reads (16-byte reads where VEC_W x stride is a multiple of 4, lanes VEC_W x stride words
    // apart; else one word a read and that many lanes on a bank); the weights' 16-byte loads.
    const double fma = perThread * taps / 4.0;
    const uint64_t laneStride = uint64_t(c.directVecW) * p.strideW;
    const double windowH = double((c.directRows - 1) * p.strideH + (p.kernelH - 1) * p.dilationH + 1);
    const uint64_t windowW = (c.directVecW - 1) * p.strideW + (p.kernelW - 1) * p.dilationW + 1;
    const double rowReads = laneStride % 4 == 0 ? double((t.shift + windowW + 3) / 4) * 4.0 * double(laneStride / 4)
                                                : double(windowW) * std::min<double>(double(laneStride), 32.0);
    const double shared = windowH * rowReads + std::ceil(double(c.directChannels) * taps / 4.0);
    const double arithmetic = std::max(fma, shared) + 0.3 * std::min(fma, shared);
    const double computeCycles = workgroups * warps * double(t.steps) * arithmetic;
    // Memory: the input (the halo again, mostly from L2, at a quarter) and output, once.
    const double inBytes = double(p.inputElements()) * 4, outBytes = double(p.batch) * p.outChannels * p.outHeight() * p.outWidth() * 4;
    const double needed = double(t.outH * p.strideH) * double(t.outW * p.strideW);
    const double halo = std::max(0.0, double(t.inH * t.inW) / needed - 1.0);
    double memoryCycles = (inBytes * (1.0 + 0.25 * halo) * kBlocks + outBytes) / 16.0;
    // Latency: a compute unit keeps about 16 KB in flight to stream at full speed (calibrated on
    // the H200's measurements of this kernel with one group a workgroup: 14 x 14 planes, about
    // 7 KB in flight, took 2.9 times the memory floor; 112 x 112 planes, 37 KB, 1.44 times).
    // Resident workgroups: at most 32 and 2048 threads (NVIDIA), the
    // shared memory of four of the largest ones, and 64K registers (weights, accumulators, a
    // window row, the next step's staged loads, about 24 for addresses).
    const double staged = std::ceil(double(t.stepLoads) / threads);
    const double registers = 24.0 + double((c.directChannels * uint64_t(taps) + 3) / 4 * 4) + perThread +
                             double(windowW) + (t.steps > 1 ? staged : 0.0);
    const double sharedBytes = std::max(1.0, double(groupedDirectSharedBytes(c, p)));
    const double resident = std::max(1.0, std::floor(std::min({32.0, 2048.0 / threads, 4.0 * d.maxSharedMemoryBytes / sharedBytes,
                                                                65536.0 / (std::min(registers, 255.0) * threads)})));
    // One step's bytes per workgroup (the image's part of its tiles); without a next step to
    // fetch they are in flight only while the workgroup waits for them, not while it computes.
    const double stepBytes = double(c.directGroups) * double(std::min<uint64_t>(t.inH, uint64_t(p.height))) *
                             double(std::min<uint64_t>(t.inW, uint64_t(p.width))) * 4.0;
    const double inFlight = resident * stepBytes * (t.steps > 1 ? 1.0 : 0.5);
    if (!d.isCpu()) memoryCycles /= std::min(1.0, inFlight / 16384.0);
    const double floorCycles = std::max(double(p.batch) * p.outHeight() * p.outWidth() * p.outChannels * cG * taps / 128.0,
                                        (inBytes + outBytes) / 16.0);
    double factor = (std::max(computeCycles, memoryCycles) + 0.25 * std::min(computeCycles, memoryCycles)) / floorCycles;
    // Past about 168 registers a thread a GPU compiler spills.
    if (registers > 168) factor *= 1.0 + (registers - 168) / 64.0;
    // NVIDIA's compiler sizes a kernel's register budget by how many of its workgroups fit
    // maxComputeSharedMemorySize; past half of it the GEMM kernels lost a third of their speed
    // (bench/RESULTS.md, heuristicCost's packed-loader rule).
    if (!d.isCpu() && 2.0 * sharedBytes > d.maxSharedMemoryBytes) factor *= 1.45;
    // Four or more outputs along a row and at most two down a column, read as 16-byte vectors
    // from shared memory: on the H200 these led wherever a row holds several such strips
    // (kernel-lab, bench/history/general-path.md: MobileNet's dw 32/112 0.118 ms against 0.141
    // for the model's 8x1, ResNeXt's grouped 3x3 0.218-0.235 against 0.266, dw 64/112 stride 2
    // 0.157 against 0.167, ConvNeXt's 7x7 0.170 as the model's own pick), which the model,
    // counting shared-memory wavefronts, ranks behind one output a row.
    const bool strips = vectorStrips(c, d, p);
    if (strips) factor *= 0.8;
    // Among them, tiles that read at most 8 input rows (before the halo) led MobileNet's two
    // 112x112 depthwise layers in every H200 run, against tiles of twice as many rows: dw 32/112
    // 0.118-0.123 ms as 8x112 threads 28x4 against 0.124-0.125 as 16x112 threads 28x8, dw 64/112
    // s2 0.157-0.160 as 4x56 threads 14x4 against 0.161 as 8x56 threads 14x8 (kernel-lab twice
    // and the sweep of eab2b95, bench/RESULTS.md).
    if (strips && t.outH * uint64_t(p.strideH) <= 8) factor *= 0.96;
    // Among them, with four or more output channels a thread, eight outputs along one row led:
    // ResNeXt's grouped 3x3 (4 channels a group) 0.218 ms as 1x8 against 0.234 as 2x4 (kernel-lab
    // on the H200, twice: bench/history/general-path.md).
    if (strips && c.directChannels >= 4 && c.directVecW == 8 && c.directRows == 1) factor *= 0.88;
    // Where a row takes 14 threads (56 outputs, 4 a thread), 16 threads a row (a tile 64 wide, two
    // whole rows a subgroup) led by 3-4% in every tile height timed: ResNeXt's grouped 3x3 0.178 ms
    // against 0.185 from memory, ConvNeXt's 7x7 0.165 against 0.170 staged (kernel-lab on the
    // H200, bench/RESULTS.md). Rows of 28 threads (MobileNet's dw 32/112) stayed ahead of 32
    // (0.119 against 0.131), so the rule stops at 14. The model counts the 8 columns past the row
    // as work (1.14x), hence the factor: 0.97 / 1.14. (From memory with the weights as uniforms,
    // 14 threads led on ResNeXt: fromMemoryFactor takes the factor back there.)
    if (sixteenThreadRows(c, d, p)) factor *= kSixteenThreadRows;
    // Steps of groups one after another, the next one's loads in flight: on the H200 every such
    // configuration ran 4-40% behind the same tile with one step (kernel-lab on the five grouped
    // layers of the suite, bench/history/general-path.md), so they rank behind it; the sweep can
    // still take one.
    if (!d.isCpu() && c.directGroupSteps > 1) factor *= 1.1 + 0.05 * c.directGroupSteps;
    // A grid that cannot fill the device: the units left idle.
    const double slots = workgroupSlots(d);
    const double work = workgroups * double(t.outH * t.outW) * c.directChannels * cG * taps *
                        double(c.directGroups * c.directGroupSteps);  // multiply-adds done, padding included
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
    vary(&KernelConfig::directGroups);
    vary(&KernelConfig::directGroupSteps);
    KernelConfig other = c;  // staged or from memory: the other way
    other.directFromMemory = !c.directFromMemory;
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
