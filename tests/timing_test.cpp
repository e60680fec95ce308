// Guards of trustworthy timing (vkconv sweep, vkconv-bench, Conv2d::time):
//  - every timing is preceded by a warm-up of the kernel itself, so that a GPU whose clocks fell
//    while the host planned, packed and checked is measured at speed, not on its way up;
//  - the Vulkan objects that many configurations build one after another are released with them,
//    so that a sweep leaves the device as it found it, also where several threads build them at
//    once (kernel-lab --jobs).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <random>
#include <thread>

#include "runtime/context_impl.hpp"
#include "runtime/pipeline.hpp"
#include "test_devices.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/reference.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv::test {
namespace {

ConvProblem smallProblem() {
    ConvProblem p;
    p.batch = 2;
    p.inChannels = 4;
    p.height = 12;
    p.width = 12;
    p.outChannels = 8;
    p.kernelH = p.kernelW = 3;
    p.strideH = p.strideW = 1;
    p.padH = p.padW = 1;
    p.bias = true;
    return p;
}

struct LiveCounts {
    int64_t buffers, pipelines, descriptorPools, queryPools;
    size_t cachedPipelines;
    bool operator==(const LiveCounts& o) const {
        return buffers == o.buffers && pipelines == o.pipelines && descriptorPools == o.descriptorPools &&
               queryPools == o.queryPools && cachedPipelines == o.cachedPipelines;
    }
};

LiveCounts liveCounts(const Context& context) {
    detail::ContextImpl& impl = *context.impl();
    return {impl.live.buffers.load(), impl.live.pipelines.load(), impl.live.descriptorPools.load(),
            impl.live.queryPools.load(), impl.pipelines().size()};
}

std::ostream& operator<<(std::ostream& o, const LiveCounts& c) {
    return o << "{buffers " << c.buffers << ", pipelines " << c.pipelines << ", descriptor pools "
             << c.descriptorPools << ", query pools " << c.queryPools << ", pipelines in the map "
             << c.cachedPipelines << "}";
}

class Timing : public ::testing::TestWithParam<int> {};

// 60 configurations built, run and timed one after another, as `vkconv sweep` does: afterwards
// the context holds exactly what it held before.
TEST_P(Timing, ObjectsOfManyConfigurationsReturnToBaseline) {
    if (GetParam() < 0) FAIL() << listDevicesError();
    Context& context = *sharedContext(GetParam()).context;
    const LiveCounts before = liveCounts(context);
    TimingOptions timing;
    timing.warmupMs = 0;
    timing.warmupRuns = 0;
    timing.iterations = 1;
    // Every configuration of the problem in turn, 60 builds in all: each is released with its
    // Conv2d and built again (from the pipeline cache) on its next turn.
    const ConvProblem p = smallProblem();
    std::vector<float> w(size_t(p.weightElements()), 0.25f), b(size_t(p.outChannels), 0.5f);
    const std::vector<RankedConfig> ranked = rankConfigs(Path::Fp32, context.device(), p);
    ASSERT_GE(ranked.size(), 8u);
    {
        Tensor in(context, {p.batch, p.inChannels, p.height, p.width});
        const auto s = p.outputShape();
        Tensor out(context, {s[0], s[1], s[2], s[3]});
        in.upload(std::vector<float>(size_t(p.inputElements()), 1.0f));
        for (size_t i = 0; i < 60; ++i) {
            ConvOptions options;
            options.config = ranked[i % ranked.size()].config;
            Conv2d conv(context, p, w, b, options);
            conv.run(in, out);
            (void)conv.time(in, out, timing);
            EXPECT_LE(liveCounts(context).pipelines, before.pipelines + 1) << "after configuration " << i;
        }
    }
    EXPECT_EQ(liveCounts(context), before);
}

// Four threads build and run configurations on one context at once, first each its own, then
// all the same one (one pipeline key built by several threads): every result holds the fp32
// bound against the double reference on random inputs, and afterwards the context holds
// exactly what it held before.
TEST_P(Timing, ConfigurationsBuiltOnSeveralThreadsAtOnce) {
    if (GetParam() < 0) FAIL() << listDevicesError();
    Context& context = *sharedContext(GetParam()).context;
    const LiveCounts before = liveCounts(context);
    const ConvProblem p = smallProblem();
    std::mt19937 rng(41);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> x(size_t(p.inputElements())), w(size_t(p.weightElements())), b(size_t(p.outChannels));
    for (auto* v : {&x, &w, &b})
        for (float& e : *v) e = u(rng);
    const std::vector<double> ref = referenceConv2d(p, x.data(), w.data(), b.data());
    const std::vector<RankedConfig> ranked = rankConfigs(Path::Fp32, context.device(), p);
    ASSERT_GE(ranked.size(), 8u);

    constexpr size_t kThreads = 4;
    std::mutex failuresMutex;
    std::vector<std::string> failures;
    std::atomic<size_t> ready{0};
    std::atomic<bool> go{false};
    {
        Tensor in(context, {p.batch, p.inChannels, p.height, p.width});
        in.upload(x);
        std::vector<std::thread> threads;
        for (size_t t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                ++ready;
                while (!go.load()) std::this_thread::yield();
                const auto s = p.outputShape();
                for (size_t i : {t, t + kThreads, size_t(0)}) {
                    const std::string name = ranked[i].config.str();
                    try {
                        ConvOptions options;
                        options.config = ranked[i].config;
                        Conv2d conv(context, p, w, b, options);
                        Tensor out(context, {s[0], s[1], s[2], s[3]});
                        out.fill(std::nanf(""));
                        conv.run(in, out);
                        const double relative = relativeError(out.download().data(), ref);
                        if (!(relative <= 1e-5)) {
                            std::lock_guard<std::mutex> lock(failuresMutex);
                            failures.push_back(name + ": relative error " + std::to_string(relative));
                        }
                    } catch (const std::exception& e) {
                        std::lock_guard<std::mutex> lock(failuresMutex);
                        failures.push_back(name + ": " + e.what());
                    }
                }
            });
        while (ready.load() < kThreads) std::this_thread::yield();
        go = true;
        for (auto& thread : threads) thread.join();
    }
    EXPECT_TRUE(failures.empty()) << failures.size() << " failed, the first: " << (failures.empty() ? std::string() : failures.front());
    EXPECT_EQ(liveCounts(context), before);
}

// Conv2d::time runs the kernel back to back for TimingOptions::warmupMs before its timed
// submission, and its plain form does so for the default 200 ms.
TEST_P(Timing, EveryTimingIsPrecededByItsWarmup) {
    if (GetParam() < 0) FAIL() << listDevicesError();
    Context& context = *sharedContext(GetParam()).context;
    const ConvProblem p = smallProblem();
    std::vector<float> w(size_t(p.weightElements()), 0.25f), b(size_t(p.outChannels), 0.5f);
    Tensor in(context, {p.batch, p.inChannels, p.height, p.width});
    const auto s = p.outputShape();
    Tensor out(context, {s[0], s[1], s[2], s[3]});
    in.upload(std::vector<float>(size_t(p.inputElements()), 1.0f));
    ConvOptions options;
    options.precision = Precision::Fp32;
    Conv2d conv(context, p, w, b, options);

    TimingOptions timing;
    timing.warmupMs = 60;
    timing.iterations = 3;
    WarmupReport warmup;
    const std::vector<double> ms = conv.time(in, out, timing, &warmup);
    EXPECT_EQ(ms.size(), 3u);
    EXPECT_GE(warmup.wallMs, 60.0);
    EXPECT_GE(warmup.runs, 1);

    EXPECT_GE(TimingOptions{}.warmupMs, 200.0);
    const auto start = std::chrono::steady_clock::now();
    (void)conv.time(in, out, 0, 1);
    const double wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GE(wallMs, TimingOptions{}.warmupMs) << "the plain Conv2d::time did not warm the device up first";

    timing.warmupMs = -1;
    EXPECT_THROW((void)conv.time(in, out, timing), Error);
}

INSTANTIATE_TEST_SUITE_P(Devices, Timing, ::testing::ValuesIn(testDeviceIndices()));

}  // namespace
}  // namespace vkconv::test
