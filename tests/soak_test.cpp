// Soak: four threads on one Context, each recording hundreds of small convolutions into
// Sequences (random batches up to the planned one, random inputs, new tensors every round, so
// that descriptor sets are made and dropped as tensors come and go), every result checked
// against the reference; afterwards the live Vulkan objects are back where they started and the
// process's resident memory has stopped growing. Then an allocation the device cannot hold is an
// Error naming its size, and the Context still runs a convolution.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <random>
#include <memory>
#include <thread>
#include <tuple>
#include <vector>

#include "expect_refused.hpp"
#include "runtime/context_impl.hpp"  // src/: the live-object counters
#include "test_devices.hpp"
#include "test_problems.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/reference.hpp"
#include "vkconv/sequence.hpp"

namespace vkconv::test {
namespace {

uint64_t residentBytes() {
    std::ifstream statm("/proc/self/statm");
    uint64_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * 4096;
}

struct SoakLayer {
    ConvProblem problem;
    std::vector<float> weight, bias;
    Conv2d conv;
};

ConvProblem soakProblem(int kind) {
    ConvProblem p;
    p.batch = 4, p.inChannels = 3 + kind, p.height = p.width = 6 + kind, p.outChannels = 4 + 2 * kind;
    p.kernelH = p.kernelW = kind % 2 ? 3 : 1, p.padH = p.padW = kind % 2;
    p.epilogue.activation = kind == 2 ? Activation::Relu : Activation::Identity;
    return p;
}

TEST(Soak, ThreadsAndSequencesStayCorrectAndFlat) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device).context;
    const detail::LiveObjects& live = ctx.impl()->live;
    constexpr int kThreads = 4, kRounds = 60, kKinds = 3;
    std::atomic<int> checked{0};
    std::vector<std::string> failures(kThreads);
    std::vector<uint64_t> rssAfterWarmup(kThreads, 0);
    const int64_t buffersBefore = live.buffers, poolsBefore = live.descriptorPools;
    {
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                try {
                    std::vector<std::unique_ptr<SoakLayer>> layers;
                    for (int k = 0; k < kKinds; ++k) {
                        const ConvProblem p = soakProblem(k);
                        std::vector<float> w = randomValues(900 + k, size_t(p.weightElements()));
                        std::vector<float> b = randomValues(950 + k, size_t(p.outChannels));
                        ConvOptions o;
                        o.precision = Precision::Fp32;
                        auto conv = Conv2d(ctx, p, w, b, o);
                        layers.push_back(std::make_unique<SoakLayer>(SoakLayer{p, std::move(w), std::move(b), std::move(conv)}));
                    }
                    std::mt19937 rng(1000 + t);
                    for (int round = 0; round < kRounds; ++round) {
                        // 1-3 independent convolutions a Sequence, each on fresh tensors.
                        const int count = 1 + int(rng() % 3);
                        std::vector<std::tuple<SoakLayer*, Tensor, Tensor>> work;
                        Sequence seq(ctx);
                        for (int i = 0; i < count; ++i) {
                            SoakLayer* l = layers[rng() % kKinds].get();
                            const int64_t n = 1 + int64_t(rng() % 4);
                            auto in = l->problem.inputShape(), out = l->problem.outputShape();
                            in[0] = out[0] = n;
                            Tensor x(ctx, {in.begin(), in.end()}), y(ctx, {out.begin(), out.end()});
                            x.upload(randomValues(rng(), x.elements()));
                            seq.record(l->conv, x, y);
                            work.emplace_back(l, std::move(x), std::move(y));
                        }
                        seq.eval();
                        for (auto& [l, x, y] : work) {
                            ConvProblem p = l->problem;
                            p.batch = x.shape()[0];
                            const std::vector<float> xv = x.download(), yv = y.download();
                            const double e = relativeError(yv.data(), referenceConv2d(p, xv.data(), l->weight.data(), l->bias.data()));
                            if (!(e <= 1e-5)) throw Error(Error::Kind::Internal, "relative error " + std::to_string(e) + " on " + p.str());
                            ++checked;
                        }
                        if (round == kRounds / 4) rssAfterWarmup[size_t(t)] = residentBytes();
                    }
                } catch (const std::exception& e) {
                    failures[size_t(t)] = e.what();
                }
            });
        for (auto& th : threads) th.join();
    }
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[size_t(t)], "") << "thread " << t;
    EXPECT_GE(checked.load(), kThreads * kRounds);
    // Every tensor, Conv2d and Sequence is gone: so are their buffers and descriptor pools.
    EXPECT_EQ(live.buffers - buffersBefore, 0);
    EXPECT_EQ(live.descriptorPools - poolsBefore, 0);
    const uint64_t warm = *std::max_element(rssAfterWarmup.begin(), rssAfterWarmup.end()), end = residentBytes();
    std::cout << "[ soak ] " << checked.load() << " convolutions checked; resident " << warm / 1048576 << " MiB after a "
              << "quarter, " << end / 1048576 << " MiB at the end\n";
    EXPECT_LE(end, warm + (64ull << 20)) << "resident memory grew by more than 64 MiB over the last three quarters";
}

TEST(Soak, AnAllocationTooLargeIsAnErrorAndTheContextGoesOn) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device).context;
    // Past maxMemoryAllocationSize (or 2^50 elements): refused before any allocation, naming it.
    const uint64_t limit = ctx.device().maxMemoryAllocationSize;
    const int64_t elements = limit ? int64_t(limit / 4 + 1024) : int64_t(1) << 51;
    expectRefused([&] { Tensor(ctx, {elements}); }, limit ? "maxMemoryAllocationSize" : "2^50");
    ConvProblem p = soakProblem(1);
    ConvOptions o;
    o.precision = Precision::Fp32;
    const std::vector<float> w = randomValues(1, size_t(p.weightElements())), b = randomValues(2, size_t(p.outChannels));
    Conv2d conv(ctx, p, w, b, o);
    Tensor x(ctx, {4, 4, 7, 7}), y(ctx, {4, 6, 7, 7});
    x.upload(randomValues(3, x.elements()));
    conv.run(x, y);
    const std::vector<float> xv = x.download(), yv = y.download();
    EXPECT_LE(relativeError(yv.data(), referenceConv2d(p, xv.data(), w.data(), b.data())), 1e-5);
}

}  // namespace
}  // namespace vkconv::test
