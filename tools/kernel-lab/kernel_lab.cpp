// kernel-lab: a developer's tool for kernel work on a real GPU. Times every candidate
// configuration of a path for one problem (alexnet1 by default) in a single process, checks the
// fastest ones against the CPU reference, and prints a table sorted by time. The user-facing
// equivalent with acceptance rules and a cache is `vkconv sweep`; this tool exists to compare
// kernel variants quickly inside one short GPU lease.
//
//   kernel-lab [--batch N] [--path coopmat-f16|fp32] [--limit N] [--filter A|B,C] [--check K]
//              [--skip MASK]... [--stats] [--shape N,C,H,W,K,R,stride,pad[,groups]] [--ranked]
//              [--split-k S]... [--jobs J] [--warmup-ms MS] [--shift-mib M]
//   kernel-lab --device-file FILE [--device-index I] [--shape ... | --suite NAME [--shapes FILE]]
//              [--batch N] [--path P] [--limit N] [--filter A|B,C]
// --filter keeps configurations whose name contains (A or B) and C. --ranked takes them in the
// heuristic's order (best first), so that --limit N times its top N. --split-k S adds, after each
// unsplit configuration, its S-way split-K variant where canImplement takes it: the candidate
// list holds splits only where the heuristic's enumeration puts them (small grids). --jobs J
// plans the chosen configurations on J threads before any is timed, so that a search over
// hundreds of them is not bound by building their pipelines one after another (140-370 ms each
// on NVIDIA's driver); the timing then rebuilds each from the pipeline cache, one at a time.
// --warmup-ms shortens each configuration's warm-up (Conv2d::time's 500 ms by default): in a long
// search the configurations run back to back, so the clocks stay up after the first, and 500 ms
// each made a search of 673 fast configurations take over six minutes. A short warm-up still
// stretches to the time the device idled while the host built the configuration's pipeline
// (bench/idle_warmup.hpp), so that a slow build does not leave the clocks low for its timing.
// --shift-mib M holds an M MiB buffer allocated before the tensors, so that they and every
// configuration's workspace lie elsewhere in memory: on a problem whose buffers fit in the L2, a
// timing that moved with it would depend on where they lie, not on the kernel (bench/RESULTS.md).
// --device-file ranks for a described device instead, with no GPU (offline_rank.hpp); --filter
// there keeps the matching configurations, each printed with its rank among all of them.
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "kernels/channels_last/channels_last_params.hpp"  // src/
#include "select/config_select.hpp"
#include "config_filter.hpp"
#include "idle_warmup.hpp"     // bench/
#include "parallel_build.hpp"  // bench/
#include "offline_rank.hpp"
#include "conv/diagnostics.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"
#include "vkconv/reference.hpp"

using namespace vkconv;

static const char* kUsage =
    "kernel-lab: time every candidate configuration of a path for one problem (alexnet1 by default)\n"
    "  --shape N,C,H,W,K,R,stride,pad[,groups]  the problem (square kernel), not alexnet1\n"
    "  --batch N          images (default 256; 2 on a CPU device)\n"
    "  --path P           coopmat-f16 (default) or fp32\n"
    "  --filter A|B,C     keep configurations whose name contains (A or B) and C\n"
    "  --ranked           in the heuristic's order, best first (with --limit N: its top N)\n"
    "  --limit N          time at most N configurations\n"
    "  --check K          check the K fastest against the CPU reference (default 3)\n"
    "  --iterations N     timed runs per configuration (default 20)\n"
    "  --skip MASK        time the chosen configurations again with parts left out (repeatable;\n"
    "                     src/conv/diagnostics.hpp: results are then wrong)\n"
    "  --stats            print the driver's statistics of each pipeline (registers, memory)\n"
    "  --split-k S        also time each unsplit configuration split S ways along K, where it can\n"
    "                     run (repeatable; before --filter, so that a filter can pick them)\n"
    "  --jobs J           plan (build the pipelines of) the chosen configurations on J threads\n"
    "                     first (default 1: each planned as it is timed)\n"
    "  --warmup-ms MS     run each configuration back to back this long before timing it\n"
    "                     (default 500; at least as long as the device idled since the last\n"
    "                     timing, up to 500, and the first one always 500, while the clocks climb)\n"
    "  --shift-mib M      allocate M MiB before the tensors and hold it, so that the tensors\n"
    "                     and workspaces lie elsewhere: does a timing depend on where they lie?\n"
    "Offline, no GPU: the heuristic's ranking for a described device, nothing runs\n"
    "  --device-file FILE  a device as `vkconv devices --json` printed it (bench/devices/)\n"
    "  --device-index I    which of the file's devices (default 0)\n"
    "  --suite NAME        each shape of a bench/shapes.json suite: its pick (--limit N: top N);\n"
    "                      all: every suite's shapes\n"
    "  --profile NAME      see the described device through a shipped profile (rtx4090, ...)\n"
    "  --shapes FILE       the shapes file (default: the source tree's bench/shapes.json)\n"
    "  --batch, --shape, --limit (default 10 for one problem), --path (default: what fast\n"
    "  precision resolves to) as above; --filter keeps the matching configurations, each with its\n"
    "  rank among all of them\n";

// --shape's problem, or alexnet1 at `batch` images where it is empty.
static ConvProblem shapeProblem(const std::string& shape, int64_t batch) {
    ConvProblem p = ConvProblem::alexnet1(batch);
    if (shape.empty()) return p;
    int64_t v[9] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
    const int fields = std::sscanf(shape.c_str(), "%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld", &v[0], &v[1], &v[2],
                                   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]);
    if (fields != 8 && fields != 9) throw invalidArgument("--shape", shape, "expected N,C,H,W,K,R,stride,pad[,groups]");
    p.batch = v[0], p.inChannels = v[1], p.height = v[2], p.width = v[3], p.outChannels = v[4];
    p.kernelH = p.kernelW = v[5], p.strideH = p.strideW = v[6], p.padH = p.padW = v[7], p.groups = v[8];
    p.validate();
    return p;
}

int main(int argc, char** argv) try {
    int64_t batch = -1;
    std::string pathName = "coopmat-f16", filter;
    size_t limit = 100000, check = 3;
    std::vector<uint32_t> skips;  // --skip: time each chosen config again with parts left out
    std::vector<uint32_t> splits; // --split-k: each unsplit config's split-K variants as well
    bool stats = false;           // --stats: print the driver's statistics of each pipeline
    unsigned jobs = 1;            // --jobs: threads that plan the chosen configurations first
    int64_t shiftMib = 0;         // --shift-mib: a buffer of this size allocated before the tensors
    TimingOptions timing;         // --warmup-ms, --iterations
    timing.warmupRuns = 2;
    bool ranked = false;          // --ranked: candidates in the heuristic's order
    std::string shape;            // --shape N,C,H,W,K,R,stride,pad[,groups] (square kernel): not alexnet1
    lab::OfflineRequest offline;  // --device-file: rank for a described device, run nothing
    bool pathGiven = false, limitGiven = false;
    std::string runOnly;          // the last flag given that only a run on the GPU uses
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&] { return std::string(i + 1 < argc ? argv[++i] : ""); };
        // The next argument as a whole number in [lo, hi], or an error naming the flag and the value.
        auto number = [&](long long lo, long long hi) {
            const std::string v = next();
            char* end = nullptr;
            errno = 0;
            const long long n = std::strtoll(v.c_str(), &end, 10);
            if (v.empty() || *end != '\0' || errno == ERANGE || n < lo || n > hi)
                throw invalidArgument(a, v, "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
            return n;
        };
        if (a == "--check" || a == "--iterations" || a == "--skip" || a == "--split-k" || a == "--stats" ||
            a == "--jobs" || a == "--warmup-ms" || a == "--shift-mib")
            runOnly = a;
        if (a == "--batch") batch = number(1, int64_t(1) << 31);
        else if (a == "--path") pathName = next(), pathGiven = true;
        else if (a == "--limit") limit = size_t(number(1, 1000000)), limitGiven = true;
        else if (a == "--device-file") offline.deviceFile = next();
        else if (a == "--device-index") offline.deviceIndex = int(number(0, 1023));
        else if (a == "--profile") offline.profile = next();
        else if (a == "--suite") offline.suite = next();
        else if (a == "--shapes") offline.shapesFile = next();
        else if (a == "--filter") filter = next();
        else if (a == "--check") check = size_t(number(0, 1000000));
        else if (a == "--iterations") timing.iterations = int(number(1, Conv2d::kMaxTimedRuns));
        else if (a == "--warmup-ms") timing.warmupMs = double(number(0, 60000));
        else if (a == "--skip") skips.push_back(uint32_t(number(1, 0xffff)));
        else if (a == "--split-k") splits.push_back(uint32_t(number(2, 64)));
        else if (a == "--jobs") jobs = unsigned(number(1, 256));
        else if (a == "--shift-mib") shiftMib = number(0, 16384);
        else if (a == "--stats") stats = true;
        else if (a == "--ranked") ranked = true;
        else if (a == "--shape") shape = next();
        else if (a == "--help" || a == "-h") {
            std::printf("%s", kUsage);
            return 0;
        }
        else throw invalidArgument("argument", a, "unknown");
    }
    if (offline.deviceFile.empty()) {
        // On the GPU kernel-lab times one problem; suites are ranked offline only.
        if (!offline.suite.empty()) throw invalidArgument("--suite", offline.suite, "needs --device-file");
        if (!offline.shapesFile.empty()) throw invalidArgument("--shapes", offline.shapesFile, "needs --device-file");
        if (offline.deviceIndex) throw invalidArgument("--device-index", offline.deviceIndex, "needs --device-file");
        if (!offline.profile.empty()) throw invalidArgument("--profile", offline.profile, "needs --device-file");
    }
    if (!offline.deviceFile.empty()) {
        if (!runOnly.empty()) throw invalidArgument(runOnly, "given", "times configurations; with --device-file nothing runs");
        if (!offline.suite.empty() && !shape.empty())
            throw invalidArgument("--shape", shape, "give --shape or --suite, not both");
        offline.problem = shapeProblem(shape, batch < 0 ? 256 : batch);
        offline.batch = batch, offline.argv0 = argv[0];
        offline.path = pathGiven ? pathName : "";
        offline.top = limitGiven ? limit : 0;
        offline.filter = filter;
        return lab::rankOffline(offline);
    }
    ContextOptions options;
    options.pipelineStatistics = stats;
    Context ctx(options);
    const DeviceInfo& dev = ctx.device();
    if (batch < 0) batch = dev.isCpu() ? 2 : 256;
    const ConvProblem p = shapeProblem(shape, batch);

    std::printf("device: %s (%s)\nproblem: %s  %.1f GFLOP\n", dev.name.c_str(), dev.driverInfo.c_str(),
                p.str().c_str(), p.flops() * 1e-9);

    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> x(p.inputElements()), w(p.weightElements()), b(p.outChannels);
    for (auto& v : x) v = u(rng);
    for (auto& v : w) v = u(rng);
    for (auto& v : b) v = u(rng);
    // Held until the end, so that the tensors and every workspace lie elsewhere in memory.
    std::optional<Tensor> shift;
    if (shiftMib > 0) shift.emplace(ctx, std::vector<int64_t>{shiftMib, 1, 512, 512});
    Tensor in(ctx, {p.batch, p.inChannels, p.height, p.width});
    in.upload(x);
    auto os = p.outputShape();
    Tensor out(ctx, {os[0], os[1], os[2], os[3]});

    const Path path = pathFromString(pathName);
    auto configs = detail::candidateConfigs(path, dev, p);
    if (ranked) {
        configs.clear();
        for (auto& [c, cost] : detail::selectConfig(path, dev, p).weighed) configs.push_back(c);
    }
    if (!splits.empty()) {
        std::set<std::string> listed;
        for (const auto& c : configs) listed.insert(c.str());
        std::vector<KernelConfig> withSplits;
        for (const auto& c : configs) {
            withSplits.push_back(c);
            if (c.splits() != 1 || !c.is<ChannelsLastNhwcKernel>() && !c.is<ChannelsLastNchwKernel>()) continue;
            for (uint32_t split : splits) {
                KernelConfig v = c;
                detail::channelsLast(v).splitK = split;
                if (!listed.count(v.str()) && canImplement(v, dev, p).empty()) withSplits.push_back(v);
            }
        }
        configs = std::move(withSplits);
    }
    std::vector<KernelConfig> chosen;
    for (const auto& c : configs)
        if (lab::matchesFilter(c.str(), filter) && chosen.size() < limit) chosen.push_back(c);
    if (jobs > 1) {
        // The timing loop below builds each again from the pipeline cache, and reports a failure.
        const auto t0 = std::chrono::steady_clock::now();
        bench::buildOnThreads(ctx, p, w, b, chosen, jobs);
        std::printf("planned %zu configurations on %u threads in %.1f s\n", chosen.size(), jobs,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::vector<std::pair<double, KernelConfig>> results;
    // Each timing's warm-up covers the device's idle time before it: the planning above, and
    // each configuration's own pipeline build below (bench/idle_warmup.hpp).
    bench::IdleAwareWarmup warmup;
    for (const auto& c : chosen) {
        try {
            ConvOptions o;
            o.config = c;
            auto t0 = std::chrono::steady_clock::now();
            Conv2d conv(ctx, p, w, b, o);
            double planMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            auto ms = warmup.time(conv, in, out, timing);
            std::sort(ms.begin(), ms.end());
            results.push_back({ms[ms.size() / 2], c});
            std::printf("%9.4f ms %7.1f TFLOP/s  plan %6.1f ms  %s\n", ms[ms.size() / 2],
                        p.flops() / (ms[ms.size() / 2] * 1e-3) * 1e-12, planMs, c.str().c_str());
            if (stats) std::printf("%s", conv.driverStatistics().c_str());
            std::fflush(stdout);
        } catch (const std::exception& e) {
            std::printf("  failed: %s: %s\n", c.str().c_str(), e.what());
        }
    }
    std::sort(results.begin(), results.end(), [](auto& a, auto& b) { return a.first < b.first; });
    if (!skips.empty()) {
        std::printf("\n== parts left out (diagnostic: 1 = A / input loads, 2 = matrix work / arithmetic, 4 = stores)\n");
        for (size_t i = 0; i < std::min(results.size(), check); ++i)
            for (uint32_t skip : skips) {
                const KernelConfig& c = results[i].second;
                ConvOptions o;
                o.config = c;
                detail::BuildVariant diagnostics;
                diagnostics.skip = skip;
                Conv2d conv(ctx, p, w.data(), b.data(), o, diagnostics);
                auto ms = warmup.time(conv, in, out, timing);
                std::sort(ms.begin(), ms.end());
                std::printf("%9.4f ms (full %.4f)  %s, parts left out: %u\n", ms[ms.size() / 2], results[i].first,
                            c.str().c_str(), skip);
                if (stats) std::printf("%s", conv.driverStatistics().c_str());
            }
    }
    std::printf("\n== best %zu of %zu (checked against the CPU reference on images 0 and %lld)\n",
                std::min(results.size(), check), results.size(), (long long)(p.batch - 1));
    auto ref0 = referenceConv2d(p, x.data(), w.data(), b.data(), 0, 1);
    auto refN = referenceConv2d(p, x.data(), w.data(), b.data(), p.batch - 1, 1);
    const int64_t imageOut = p.outChannels * p.outHeight() * p.outWidth();
    for (size_t i = 0; i < std::min(results.size(), check); ++i) {
        ConvOptions o;
        o.config = results[i].second;
        Conv2d conv(ctx, p, w, b, o);
        out.fill(NAN);
        conv.run(in, out);
        auto y = out.download();
        double e0 = relativeError(y.data(), ref0);
        double eN = relativeError(y.data() + (p.batch - 1) * imageOut, refN);
        std::printf("%9.4f ms  err %.2e / %.2e %s  %s\n", results[i].first, e0, eN,
                    std::max(e0, eN) <= errorBound(results[i].second.path) ? "PASS" : "FAIL",
                    results[i].second.str().c_str());
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "kernel-lab: error: %s\n", e.what());
    return 1;
}
