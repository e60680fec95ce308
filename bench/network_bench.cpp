#include "network_bench.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>

#include "bench_shape.hpp"
#include "resnet50.hpp"
#include "stats.hpp"
#include "runtime/utc_time.hpp"
#include "vkconv/error.hpp"
#include "vkconv/reference.hpp"

namespace vkconv::bench {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

}  // namespace

int benchNetwork(const Context& context, const NetworkSettings& s) {
    if (s.network != "resnet50") throw invalidArgument("--network", s.network, "the networks: resnet50");
    const ResNetTrunk net = resnet50Trunk(s.batch, s.image, s.format);
    const std::vector<FoldedWeights> weights = resnet50Weights(net, 2026);
    ConvOptions options;
    options.precision = s.precision;
    std::cout << "network: resnet50 trunk, batch " << s.batch << ", " << s.image << "x" << s.image << ", "
              << s.format.str() << ", precision " << toString(s.precision) << ": " << net.convs.size()
              << " convolutions (the stem's max-pool on the host, outside the timed submission)\n";
    ResNetRunner runner(context, net, weights, options);
    std::cout << "plan:    " << std::fixed << std::setprecision(1) << runner.planMs() << " ms for the "
              << net.convs.size() << " Conv2ds\nrecord:  " << std::setprecision(3) << runner.recordMs()
              << " ms of CPU for the trunk's Sequence (" << runner.trunk().size() << " convolutions, "
              << runner.trunk().barriers() << " barriers)\n" << std::defaultfloat;

    const std::vector<float> image = randomData(size_t(s.batch * 3 * s.image * s.image), 2027);
    const std::vector<float> out = runner.run(image);
    double error = std::nan("");
    // The trunk's bound: each layer's fp16 rounding compounds over 53 (tests/resnet50_test.cpp).
    const double bound = s.format.type == DataType::F16 || s.precision == Precision::Fast ? 5e-3 : 1e-5;
    if (s.check) {
        error = relativeError(out.data(), resnet50Reference(net, weights, image, 1));
        std::cout << "check:   image 0 against the chain of double references: relative error " << std::scientific
                  << std::setprecision(2) << error << " (bound " << bound << ")\n" << std::defaultfloat;
        if (!(error <= bound)) {
            std::cout << "WRONG: no time reported\n";
            return 1;
        }
    }

    // Warm-up: the trunk back to back until warmupMs has passed, then the timed submissions.
    const auto warmStart = Clock::now();
    int warmRuns = 0;
    while (msSince(warmStart) < s.warmupMs || warmRuns < s.warmup) {
        runner.trunk().eval();
        ++warmRuns;
    }
    std::vector<double> gpu, stemGpu, submitUs;
    for (int i = 0; i < s.iterations; ++i) {
        const auto t = Clock::now();
        runner.trunk().submit();
        submitUs.push_back(msSince(t) * 1e3);
        runner.trunk().wait();
        gpu.push_back(runner.trunk().gpuMs());
    }
    for (int i = 0; i < std::min(s.iterations, 20); ++i) {
        runner.stem().eval();
        stemGpu.push_back(runner.stem().gpuMs());
    }
    const TimingSummary trunk = summarize(gpu), stem = summarize(stemGpu), submit = summarize(submitUs);
    const double trunkMs = trunk.medianMs, stemMs = stem.medianMs;
    std::cout << std::fixed << std::setprecision(3) << "trunk:   median " << trunkMs << " ms GPU ("
              << runner.trunk().size() << " convolutions in one submission; min "
              << trunk.minMs << ", " << gpu.size() << " runs after " << warmRuns
              << " warm-up)\nstem:    median " << stemMs << " ms GPU (conv1, its own submission)\ntotal:   "
              << trunkMs + stemMs << " ms GPU for all 53 convolutions\nsubmit:  median " << std::setprecision(1)
              << submit.medianMs << " us of CPU to submit the recorded trunk again\n" << std::defaultfloat;
    if (!s.json.empty()) {
        nlohmann::ordered_json j{{"network", s.network},
                                 {"command_line", s.commandLine},
                                 {"date", detail::utcTimestamp()},
                                 {"device", context.device().name},
                                 {"batch", s.batch},
                                 {"image", s.image},
                                 {"format", s.format.str()},
                                 {"precision", toString(s.precision)},
                                 {"convolutions", net.convs.size()},
                                 {"trunk_barriers", runner.trunk().barriers()},
                                 {"max_pool", "host, outside the timed submissions"},
                                 {"plan_ms", runner.planMs()},
                                 {"record_ms", runner.recordMs()},
                                 {"submit_us_median", submit.medianMs},
                                 {"trunk_gpu_ms", {{"median", trunkMs}, {"min", trunk.minMs}, {"runs", gpu}}},
                                 {"stem_gpu_ms", {{"median", stemMs}, {"runs", stemGpu}}},
                                 {"total_gpu_ms", trunkMs + stemMs},
                                 {"check_error", s.check ? nlohmann::json(error) : nlohmann::json(nullptr)}};
        std::ofstream(s.json) << j.dump(2) << "\n";
    }
    return 0;
}

}  // namespace vkconv::bench
