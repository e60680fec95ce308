// The grouped direct kernel's cost model (groupedDirectCost, grouped_direct.hpp): the heuristic's
// estimate of a configuration's time from its loads, shared-memory reads and multiply-adds, with
// the rules measured on the H200's five grouped layers (docs/performance.md, and the lab notes in git: git show 5c2b4c3:bench/history/).
#include <algorithm>
#include <cmath>

#include "kernels/common/device_fill.hpp"  // workgroupSlots
#include "kernels/common/device_rules.hpp"  // the measured factors (src/kernels/rules/defaults.json)
#include "kernels/grouped_direct/grouped_direct.hpp"

namespace vkconv::detail {

namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

namespace {

// Four or more outputs along a row and at most two down a column, read as 16-byte vectors
// (groupedDirectCost's measured rules for these "vector strips").
bool vectorStrips(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    return !d.isCpu() && direct(c).vecW >= 4 && direct(c).rows <= 2 && p.outWidth() >= 28;
}

// Rows of 56 outputs on 16 threads of 4 (a tile 64 wide) instead of 14: the staged tiles that
// groupedDirectCost ranks ahead by the factor "sixteen_thread_rows", and fromMemoryFactor takes it
// back from.
bool sixteenThreadRows(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    return vectorStrips(c, d, p) && direct(c).vecW == 4 && ceilDiv(uint64_t(p.outWidth()), 4) == 14 &&
           direct(c).threadsW == 16;
}

// Windows read from shared memory as 16-byte vectors (VEC_W x stride a multiple of 4), with 7x7
// taps: the fastest staged tile timed on each plane but the smallest, by 10-37% over tiles of one
// or two outputs a row (H200 sweeps of ConvNeXt at batch 32: 14x14 thread 4x4 0.021 ms against
// 0.023-0.024 for thread 7x1 and 7x2, 28x28 thread 2x4 and 4x4 0.024 against 0.032 and 0.037,
// 56x56 thread 2x4 0.044 against 0.061 and 0.068; level at 7x7, 0.017; lab notes in git, 5c2b4c3:bench/history/
// network-suites.md), where the model put
// thread 7x2 first at 14x14 (its 16x16 tiles compute a 14x14 plane's 31% more). A staged tile's
// factor ("shared_vector_windows"): fromMemoryFactor takes it back, as those tiles read no shared
// windows.
// More taps than 3x3: the 7x7 rules here and in groupedDirectCost were measured on ConvNeXt's
// 7x7; 5x5 follows them untimed.
bool wideTaps(const ConvProblem& p) { return p.kernelH * p.kernelW > 9; }
bool sharedVectorWindows(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    return !d.isCpu() && wideTaps(p) && (uint64_t(direct(c).vecW) * p.strideW) % 4 == 0;
}

// What reading windows and weights from memory does to a tile's cost, against the same tile
// staged in shared memory. Measured on the H200 (kernel-lab, the same tiles both ways,
// docs/performance.md): it saves each workgroup the staging, the zeroing and a barrier a step, and
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
    const auto f = [&](const char* name) { return deviceRules(d).groupedDirectFactor(name); };
    if (d.isCpu()) return f("from_memory_cpu");  // not measured on CPU devices: the staged tile stays first there
    if (wideTaps(p)) {
        // Whole small planes passed out through shared memory (PLANES_OUT) won with 7x7 taps too:
        // ConvNeXt's depthwise at batch 32, 7x7 planes 0.0120 ms as 8x8 thread 4x4 against 0.0168
        // staged, 14x14 0.0187 as 16x16 thread 4x4 against 0.0215 (kernel-lab on the H200,
        // docs/performance.md). Larger planes not timed.
        // (The from-memory sweep at 7x7 put thread 2x8 at 0.0092 ms and 7x2 at 0.0097 ahead of
        // 4x4's 0.0116: the staged tiles' factor for 16-byte windows does not carry over.)
        const double staged = sharedVectorWindows(c, d, p) ? f("shared_vector_windows") : 1.0;
        if (groupedDirectPlanesOut(c, p) && p.outHeight() * p.outWidth() <= 14 * 14)
            return f("from_memory_wide_taps_small_planes") / staged;
        return f("from_memory_wide_taps") / staged;
    }
    if (p.strided()) {
        const uint64_t laneWords = uint64_t(direct(c).vecW) * p.strideW;  // between neighbouring lanes' windows
        // 14 rows a thread (a 29-row window): 0.43-0.48 ms against 0.131 with 8.
        if (direct(c).rows > 8) return f("from_memory_strided_long_rows");
        // Depthwise planes 7 or 14 outputs wide, one output a lane, rows of 8 or 16 lanes (one
        // or two idle, which the model counts as work): MobileNet's dw 256/28 s2 at batch 32 took
        // 0.0099-0.0106 ms with 16 lanes a row against 0.0119-0.0130 with 14, dw 512/14 s2
        // 0.0086 with 8 against 0.0116-0.0117 with 7 (H200 sweeps of 899d328 and d7e5915,
        // docs/performance.md). Both ran 4-8 rows a thread.
        const uint64_t lanes = direct(c).threadsW, outW = uint64_t(p.outWidth());
        const bool paddedLaneRows = p.inChannels == p.groups && direct(c).vecW == 1 && (lanes == 8 || lanes == 16) &&
                                    outW < lanes && 2 * outW > lanes;
        const double lanesFactor = paddedLaneRows ? f("from_memory_strided_padded_lane_rows") : 1.0;
        if (direct(c).rows == 8 && laneWords <= 2) return f("from_memory_strided_eight_rows") * lanesFactor;
        return (direct(c).rows >= 4 && laneWords <= 4 ? f("from_memory_strided_four_rows") : f("from_memory_strided_other")) *
               lanesFactor;
    }
    if (p.inChannels / p.groups > 1) {
        // 14 rows a thread, as at stride 2: ResNeXt-50's grouped 3x3 of 8 channels a group at
        // 28x28, batch 32, 0.154 ms as 28x28 thread 14x1 k4 against 0.054-0.055 for thread 2x4 k4
        // and 7x1 k8 (H100 sweep, docs/performance.md).
        if (direct(c).rows > 8) return f("from_memory_grouped_long_rows");
        // Thread 2x4 with 8 output channels, a whole group of 8, where the model ranked the same
        // tile of 4 channels 6% ahead: ResNeXt-50's grouped 3x3 of 8 channels a group at 28x28,
        // batch 32, 0.0482-0.0485 ms as 16x28 thread 2x4 k8 threads 7x8 against 0.0543 for its k4
        // twin and 0.0522-0.0527 for the next tiles, the pick 28x28 thread 7x2 k4 among them
        // (every candidate timed twice on the H200, docs/performance.md). Each window
        // row loaded then serves all of the group's outputs.
        const bool wholeGroupStrips = direct(c).channels == 8 && uint64_t(p.outChannels / p.groups) == 8 &&
                                      direct(c).rows == 2 && direct(c).vecW == 4;
        if (wholeGroupStrips) return f("from_memory_grouped_strips") * f("from_memory_grouped_whole_group");
        // With the weights read as uniforms, rows of 14 threads (56 outputs) led the 16-thread rows
        // that lead staged tiles (groupedDirectCost): ResNeXt's grouped 3x3 0.168 ms as 8x56
        // thread 2x4 k4 against 0.175 as 8x64 (kernel-lab on the H200, docs/performance.md), so the
        // staged tiles' factor for 16-thread rows is taken back here.
        return (direct(c).rows >= 2 ? f("from_memory_grouped_strips") : f("from_memory_grouped_one_row")) /
               (sixteenThreadRows(c, d, p) ? f("sixteen_thread_rows") : 1.0);
    }
    // Whole planes of one output channel leave through shared memory as one run (PLANES_OUT):
    // dw 512/14 0.145 ms as thread 8x2 with 16 groups a workgroup (0.246 with each thread's words
    // stored down its column), 0.157 as thread 8x1 with 8 (0.178). Fastest of the 120 such tiles
    // timed: one thread a column strip two outputs wide down the whole plane (thread 14x2), 8
    // threads a plane (the 16-wide tile: workgroups of whole subgroups), 4 or 8 planes a workgroup:
    // 0.135 ms, against 0.141 with 16 planes, 0.144 with 7 threads a plane (the 14-wide tile),
    // 0.138-0.140 for the next tiles and 0.149 for 7 rows a thread over 2 threads.
    // Measured on planes of 14x14 (196 outputs) and 28x28: on 56x56 planes (3,136 outputs, 12.5 KB
    // of shared memory a plane) every whole-plane tile lost to the staged strips, MobileNet's dw
    // 128/56 at batch 32 0.040-0.066 ms against 0.034 for 8x56 thread 2x4 (H200 sweep,
    // docs/performance.md), so larger planes take the from-memory tiles' plain factor.
    if (groupedDirectPlanesOut(c, p) && p.outHeight() * p.outWidth() <= 28 * 28) {
        const bool wholeSubgroups = d.subgroupSize != 0 && c.threads() % d.subgroupSize == 0;
        if (direct(c).threadsH == 1 && direct(c).vecW == 2 && wholeSubgroups && direct(c).groups >= 4 && direct(c).groups <= 8)
            return f("from_memory_planes_column_strips");
        // On planes at most 8 outputs wide, two threads a plane of 4-output strips, 16 or 32
        // planes a workgroup: MobileNet's dw 1024/7 at batch 32 0.0100-0.0102 ms (16 planes) and
        // 0.0096-0.0100 (32) against 0.0117-0.0121 for four threads of 2 (the rule above; three
        // H200 sweeps, docs/performance.md), 0.0104-0.0107 for one thread of 8.
        if (p.outWidth() <= 8 && direct(c).threadsH == 1 && direct(c).vecW == 4 && direct(c).groups >= 16)
            return f("from_memory_planes_narrow");
        // On 28x28 planes, threads of 7 rows and one or two outputs a row led: MobileNet's dw
        // 256/28 at batch 32 0.0207-0.0217 ms on the five such tiles timed (1, 2 or 4 planes a
        // workgroup), against 0.0230-0.0265 for 7 rows of 4, 0.0233-0.028 for 14 rows and
        // 0.0254-0.0259 for the strips of 2 rows that had ranked first (H200, kernel-lab and two
        // sweeps, docs/performance.md).
        if (p.outHeight() * p.outWidth() > 14 * 14 && direct(c).rows == 7 && direct(c).vecW <= 2)
            return f("from_memory_planes_seven_rows");
        return direct(c).vecW == 2 && direct(c).groups >= 16 ? f("from_memory_planes_many_groups") : f("from_memory_planes");
    }
    if (groupedDirectTile(c, p).tilesPerImage == 1 && direct(c).vecW == 1) return f("from_memory_one_tile_columns");
    return f("from_memory_other");
}

}  // namespace

double groupedDirectCost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    const auto f = [&](const char* name) { return deviceRules(d).groupedDirectFactor(name); };
    if (direct(c).fromMemory) {
        KernelConfig staged = c;
        direct(staged).fromMemory = false;
        return groupedDirectCost(staged, d, p) * fromMemoryFactor(c, d, p);
    }
    // Not yet calibrated on a GPU. A model of one compute unit (NVIDIA's SM: 4 warp-wide FMAs a
    // cycle, one shared-memory wavefront of 128 bytes a cycle, 16 bytes of DRAM bandwidth a cycle
    // on the H200) against the layer's own floor; the result is in the GEMM kernels' unit
    // (multiply-adds done, times what the layer takes over its floor), so that the two compare.
    const GroupedDirectTile t = groupedDirectTile(c, p);
    const double cG = double(p.inChannels / p.groups), kG = double(p.outChannels / p.groups);
    const double taps = double(p.kernelH * p.kernelW);
    const double kBlocks = std::ceil(kG / direct(c).channels);
    const double groupBlocks = std::ceil(double(p.groups) / (double(direct(c).groups) * direct(c).groupSteps));
    const double workgroups = double(p.batch) * double(t.tilesPerImage) * kBlocks * groupBlocks;
    const double threads = double(c.threads());
    const double warps = std::ceil(threads / 32.0);
    const double perThread = double(direct(c).rows * direct(c).vecW * direct(c).channels);  // outputs a step
    // Arithmetic, per warp and step, in cycles: FMAs; shared-memory wavefronts of the window
    // reads (16-byte reads where VEC_W x stride is a multiple of 4, lanes VEC_W x stride words
    // apart; else one word a read and that many lanes on a bank); the weights' 16-byte loads.
    const double fma = perThread * taps / 4.0;
    const uint64_t laneStride = uint64_t(direct(c).vecW) * p.strideW;
    const double windowH = double((direct(c).rows - 1) * p.strideH + (p.kernelH - 1) * p.dilationH + 1);
    const uint64_t windowW = (direct(c).vecW - 1) * p.strideW + (p.kernelW - 1) * p.dilationW + 1;
    const double rowReads = laneStride % 4 == 0 ? double((t.shift + windowW + 3) / 4) * 4.0 * double(laneStride / 4)
                                                : double(windowW) * std::min<double>(double(laneStride), 32.0);
    const double shared = windowH * rowReads + std::ceil(double(direct(c).channels) * taps / 4.0);
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
    const double registers = 24.0 + double((direct(c).channels * uint64_t(taps) + 3) / 4 * 4) + perThread +
                             double(windowW) + (t.steps > 1 ? staged : 0.0);
    const double sharedBytes = std::max(1.0, double(groupedDirectSharedBytes(c, p)));
    const double resident = std::max(1.0, std::floor(std::min({32.0, 2048.0 / threads, 4.0 * d.maxSharedMemoryBytes / sharedBytes,
                                                                65536.0 / (std::min(registers, 255.0) * threads)})));
    // One step's bytes per workgroup (the image's part of its tiles); without a next step to
    // fetch they are in flight only while the workgroup waits for them, not while it computes.
    const double stepBytes = double(direct(c).groups) * double(std::min<uint64_t>(t.inH, uint64_t(p.height))) *
                             double(std::min<uint64_t>(t.inW, uint64_t(p.width))) * 4.0;
    const double inFlight = resident * stepBytes * (t.steps > 1 ? 1.0 : 0.5);
    if (!d.isCpu()) memoryCycles /= std::min(1.0, inFlight / 16384.0);
    const double floorCycles = std::max(double(p.batch) * p.outHeight() * p.outWidth() * p.outChannels * cG * taps / 128.0,
                                        (inBytes + outBytes) / 16.0);
    double factor = (std::max(computeCycles, memoryCycles) + 0.25 * std::min(computeCycles, memoryCycles)) / floorCycles;
    // Past about 168 registers a thread a GPU compiler spills.
    if (registers > f("register_spill_from"))
        factor *= 1.0 + (registers - f("register_spill_from")) / f("register_spill_per");
    // NVIDIA's compiler sizes a kernel's register budget by how many of its workgroups fit
    // maxComputeSharedMemorySize; past half of it the GEMM kernels lost a third of their speed
    // (docs/performance.md, heuristicCost's packed-loader rule).
    if (!d.isCpu() && 2.0 * sharedBytes > d.maxSharedMemoryBytes) factor *= f("shared_over_half");
    // Four or more outputs along a row and at most two down a column, read as 16-byte vectors
    // from shared memory: on the H200 these led wherever a row holds several such strips
    // (kernel-lab, docs/performance.md: MobileNet's dw 32/112 0.118 ms against 0.141
    // for the model's 8x1, ResNeXt's grouped 3x3 0.218-0.235 against 0.266, dw 64/112 stride 2
    // 0.157 against 0.167, ConvNeXt's 7x7 0.170 as the model's own pick), which the model,
    // counting shared-memory wavefronts, ranks behind one output a row.
    const bool strips = vectorStrips(c, d, p);
    if (strips) factor *= f("strips");
    // Among them, tiles that read at most 8 input rows (before the halo) led MobileNet's two
    // 112x112 depthwise layers in every H200 run, against tiles of twice as many rows: dw 32/112
    // 0.118-0.123 ms as 8x112 threads 28x4 against 0.124-0.125 as 16x112 threads 28x8, dw 64/112
    // s2 0.157-0.160 as 4x56 threads 14x4 against 0.161 as 8x56 threads 14x8 (kernel-lab twice
    // and the sweep of eab2b95, docs/performance.md).
    if (strips && t.outH * uint64_t(p.strideH) <= 8) factor *= f("short_strips");
    // Among them, with four or more output channels a thread, eight outputs along one row led:
    // ResNeXt's grouped 3x3 (4 channels a group) 0.218 ms as 1x8 against 0.234 as 2x4 (kernel-lab
    // on the H200, twice: docs/performance.md).
    if (strips && direct(c).channels >= 4 && direct(c).vecW == 8 && direct(c).rows == 1) factor *= f("eight_wide_strips");
    // Where a row takes 14 threads (56 outputs, 4 a thread), 16 threads a row (a tile 64 wide, two
    // whole rows a subgroup) led by 3-4% in every tile height timed: ResNeXt's grouped 3x3 0.178 ms
    // against 0.185 from memory, ConvNeXt's 7x7 0.165 against 0.170 staged (kernel-lab on the
    // H200, docs/performance.md). Rows of 28 threads (MobileNet's dw 32/112) stayed ahead of 32
    // (0.119 against 0.131), so the rule stops at 14. The model counts the 8 columns past the row
    // as work (1.14x), hence the factor: 0.97 / 1.14. (From memory with the weights as uniforms,
    // 14 threads led on ResNeXt: fromMemoryFactor takes the factor back there.)
    if (sixteenThreadRows(c, d, p)) factor *= f("sixteen_thread_rows");
    // The same at 28 outputs a row with 7x7 taps: rows of 8 threads of 4 (a tile 32 wide, four
    // whole rows a subgroup) led rows of 7 by 9-11% in three H200 sweeps of ConvNeXt's depthwise
    // at 28x28, batch 32 (16x32 threads 8x8 0.0240-0.0244 ms against 0.0264-0.0268 for 16x28
    // threads 7x8; docs/performance.md), where the model counts the 4 columns past
    // the row as work and more (1.19x): 0.91 / 1.19.
    if (!d.isCpu() && wideTaps(p) && vectorStrips(c, d, p) && direct(c).vecW == 4 &&
        ceilDiv(uint64_t(p.outWidth()), 4) == 7 && direct(c).threadsW == 8)
        factor *= f("eight_thread_rows_wide_taps");
    // Steps of groups one after another, the next one's loads in flight: on the H200 every such
    // configuration ran 4-40% behind the same tile with one step (kernel-lab on the five grouped
    // layers of the suite, docs/performance.md), so they rank behind it; the sweep can
    // still take one.
    // With 7x7 taps the gap was wider: ConvNeXt's depthwise at batch 32, 1.3x behind at 56x56,
    // 1.6x at 28x28, 1.5-1.8x at 14x14 and 7x7 (H200 sweeps, docs/performance.md).
    if (!d.isCpu() && direct(c).groupSteps > 1)
        factor *= (wideTaps(p) ? f("group_steps_wide_taps") : f("group_steps")) + f("group_steps_each") * direct(c).groupSteps;
    // Threads of more than 8 output rows, with 7x7 taps: 2-4.5 times the time of the best tile
    // on each of ConvNeXt's depthwise planes at batch 32 (56x56 thread 14x1 0.197 ms against 0.044
    // for 8x64 thread 2x4; 28x28 0.119-0.132 against 0.024; 14x14 0.082-0.121 against 0.021 for
    // 16x16 thread 4x4; H200 sweeps, docs/performance.md), where the model ranked them first at
    // 28x28 and 14x14. (On 3x3 kernels 14 rows a thread led dw 512/14 from memory: fromMemoryFactor.)
    if (!d.isCpu() && wideTaps(p) && direct(c).rows > 8) factor *= f("long_rows_wide_taps");
    // More than 16 outputs a thread, with 7x7 taps: 1.8-2.8 times the time of tiles of 16 or fewer
    // on ConvNeXt's depthwise at batch 32, 14x14 and 7x7 (thread 7x4 0.043 and 0.047 ms, thread
    // 4x8 0.032-0.039 and 0.031, against 0.021 and 0.017 for thread 4x4; H200 sweeps,
    // docs/performance.md), though the model counts them as cheaper: fewer window
    // reads an output.
    if (!d.isCpu() && wideTaps(p) && perThread > 16) factor *= f("many_outputs_wide_taps");
    // Windows read from shared memory as 16-byte vectors (sharedVectorWindows).
    if (sharedVectorWindows(c, d, p)) factor *= f("shared_vector_windows");
    // A grid that cannot fill the device: the units left idle.
    const double slots = workgroupSlots(d);
    const double work = workgroups * double(t.outH * t.outW) * direct(c).channels * cG * taps *
                        double(direct(c).groups * direct(c).groupSteps);  // multiply-adds done, padding included
    return work * factor * (workgroups < slots ? slots / workgroups : 1.0);
}

}  // namespace vkconv::detail
