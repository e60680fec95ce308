// Inside a network (include/vkconv/sequence.hpp, Conv2d::record, Tensor::wrap and view, dynamic
// batch): chains of convolutions recorded into one command buffer, each result checked against
// the double reference of what its input held when the Sequence had run (a missing barrier lets
// a later conv read its input half written, and its result then matches no reference); the
// barriers only dependencies need; resubmission; any batch up to the planned one; tensors at
// offsets of one caller-made buffer; overlap errors; several threads on one Context.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <tuple>
#include <vector>

#include "expect_refused.hpp"
#include "runtime/buffer.hpp"  // src/: a buffer of the test's own to wrap
#include "test_devices.hpp"
#include "test_problems.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"
#include "vkconv/reference.hpp"
#include "vkconv/sequence.hpp"

namespace vkconv::test {
namespace {

ConvProblem convProblem(int64_t batch, int64_t c, int64_t k, int64_t hw, int64_t kernel) {
    ConvProblem p;
    p.batch = batch, p.inChannels = c, p.height = p.width = hw, p.outChannels = k;
    p.kernelH = p.kernelW = kernel, p.padH = p.padW = kernel / 2;
    return p;
}

// A Conv2d with its random weights and bias kept for the reference.
struct Layer {
    ConvProblem problem;
    std::vector<float> weight, bias;
    Conv2d conv;
    Layer(const Context& ctx, const ConvProblem& p, uint64_t seed, Precision precision = Precision::Fp32)
        : problem(p),
          weight(randomValues(seed, size_t(p.weightElements()))),
          bias(randomValues(seed + 1, size_t(p.outChannels))),
          conv(ctx, p, weight, bias, [&] {
              ConvOptions o;
              o.precision = precision;
              return o;
          }()) {}

    // The relative error of `out` against the reference on what `in` (and `z`) hold now.
    double error(const Tensor& in, const Tensor& out, const Tensor* z = nullptr) const {
        ConvProblem p = problem;
        p.batch = in.shape()[0];
        const std::vector<float> x = in.downloadNchw(), y = out.downloadNchw();
        const std::vector<float> zv = z ? z->downloadNchw() : std::vector<float>{};
        const std::vector<double> ref = referenceConv2d(p, x.data(), weight.data(), bias.data(), 0, -1, z ? zv.data() : nullptr);
        return relativeError(y.data(), ref);
    }
};

std::vector<int64_t> dims(const std::array<int64_t, 4>& a) { return {a.begin(), a.end()}; }

const Context& context() {
    const int device = testDeviceIndices().front();
    if (device < 0) throw Error(Error::Kind::Unsupported, listDevicesError());
    return *sharedContext(device).context;
}

// x -> a -> b -> y = conv3(b) + x: three dependent convolutions, two barriers, each right.
TEST(Sequence, ChainsRunInOrderWithTheBarriersTheyNeed) {
    const Context& ctx = context();
    Layer l1(ctx, convProblem(2, 8, 16, 9, 3), 501), l2(ctx, convProblem(2, 16, 16, 9, 1), 503);
    ConvProblem p3 = convProblem(2, 16, 8, 9, 3);
    p3.epilogue.activation = Activation::Relu, p3.epilogue.residual = true;
    Layer l3(ctx, p3, 505);
    Tensor x(ctx, {2, 8, 9, 9}), a(ctx, {2, 16, 9, 9}), b(ctx, {2, 16, 9, 9}), y(ctx, {2, 8, 9, 9});
    x.upload(randomValues(507, x.elements()));
    for (Tensor* t : {&a, &b, &y}) t->fill(std::nanf(""));
    Sequence seq(ctx);
    seq.record(l1.conv, x, a).record(l2.conv, a, b).record(l3.conv, b, y, x);
    EXPECT_EQ(seq.size(), 3u);
    EXPECT_EQ(seq.barriers(), 2u);
    seq.eval();
    EXPECT_LE(l1.error(x, a), 1e-5);
    EXPECT_LE(l2.error(a, b), 1e-5);
    EXPECT_LE(l3.error(b, y, &x), 1e-5);

    // Submitted again on new input, without recording anew.
    x.upload(randomValues(509, x.elements()));
    seq.submit();
    seq.wait();
    EXPECT_LE(l1.error(x, a), 1e-5);
    EXPECT_LE(l3.error(b, y, &x), 1e-5);
    EXPECT_THROW(seq.record(l1.conv, x, a), Error);  // recording ended with the first submit
}

// Two branches that share only their input need no barrier between them; the same Conv2d
// recorded twice with other tensors keeps both sets of descriptors.
TEST(Sequence, IndependentConvolutionsShareABarrierlessStretch) {
    const Context& ctx = context();
    Layer l(ctx, convProblem(1, 4, 8, 7, 3), 511);
    Tensor x1(ctx, {1, 4, 7, 7}), x2(ctx, {1, 4, 7, 7}), y1(ctx, {1, 8, 7, 7}), y2(ctx, {1, 8, 7, 7});
    x1.upload(randomValues(513, x1.elements()));
    x2.upload(randomValues(515, x2.elements()));
    Sequence seq(ctx);
    seq.record(l.conv, x1, y1).record(l.conv, x2, y2);
    EXPECT_EQ(seq.barriers(), 0u);
    seq.eval();
    EXPECT_LE(l.error(x1, y1), 1e-5);
    EXPECT_LE(l.error(x2, y2), 1e-5);
}

// A Conv2d planned for 4 images runs 1, 3 and 4 on its packed weights; 5 is refused by name.
TEST(DynamicBatch, AnyBatchUpToThePlannedOne) {
    const Context& ctx = context();
    Layer l(ctx, convProblem(4, 6, 10, 8, 3), 521);
    for (int64_t n : {1, 3, 4, 1}) {
        Tensor x(ctx, {n, 6, 8, 8}), y(ctx, {n, 10, 8, 8});
        x.upload(randomValues(523 + n, x.elements()));
        y.fill(std::nanf(""));
        l.conv.run(x, y);
        EXPECT_LE(l.error(x, y), 1e-5) << "batch " << n;
    }
    Tensor x5(ctx, {5, 6, 8, 8}), y5(ctx, {5, 10, 8, 8});
    try {
        l.conv.run(x5, y5);
        ADD_FAILURE() << "batch 5 accepted by a Conv2d planned for 4";
    } catch (const Error& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr("batch 5 is outside 1..4"));
    }
}

// Tensors at offsets of one buffer the caller made (an engine's arena), and views of a tensor.
TEST(ExternalMemory, WrappedTensorsAtOffsetsOfOneBuffer) {
    const Context& ctx = context();
    const uint64_t align = std::max<uint64_t>(ctx.device().minStorageBufferOffsetAlignment, 4);
    Layer l(ctx, convProblem(2, 4, 8, 6, 3), 531);
    const uint64_t xBytes = 2 * 4 * 6 * 6 * 4, yBytes = 2 * 8 * 6 * 6 * 4;
    const uint64_t yAt = (xBytes + align - 1) / align * align + align;  // a gap, aligned
    const uint64_t total = yAt + yBytes;
    detail::Buffer arena(*ctx.impl(), total, detail::Buffer::Kind::DeviceLocal);
    Tensor x = Tensor::wrap(ctx, arena.handle(), total, 0, {2, 4, 6, 6});
    Tensor y = Tensor::wrap(ctx, arena.handle(), total, yAt, {2, 8, 6, 6});
    x.upload(randomValues(533, x.elements()));
    y.fill(std::nanf(""));
    l.conv.run(x, y);
    EXPECT_LE(l.error(x, y), 1e-5);

    if (align > 4) expectRefused([&] { Tensor::wrap(ctx, arena.handle(), total, 4, {1, 4, 6, 6}); }, "offset = 4");
    expectRefused([&] { Tensor::wrap(ctx, arena.handle(), total, yAt, {4, 8, 6, 6}); }, "does not fit");
    expectRefused([&] { Tensor::wrap(ctx, VK_NULL_HANDLE, total, 0, {1}); }, "buffer = VK_NULL_HANDLE");
    // Views: the first image of y as a tensor of its own; an output overlapping the input.
    Tensor y0 = y.view(0, {1, 8, 6, 6});
    const std::vector<float> whole = y.download();
    EXPECT_EQ(y0.download(), std::vector<float>(whole.begin(), whole.begin() + 288));
    Tensor overlapping = Tensor::wrap(ctx, arena.handle(), total, 0, {2, 8, 6, 6});
    expectRefused([&] { l.conv.run(x, overlapping); }, "must not overlap the input");
}

// Two Conv2ds sharing the caller's workspace (an NHWC input: the fp32 kernels' conversion pass
// needs one; on devices with cooperative matrices the fast path's packing too), one after the
// other in a Sequence; the errors of a missing, small or second workspace.
TEST(Workspace, TwoConvolutionsShareTheCallersWorkspace) {
    const Context& ctx = context();
    const TensorFormat nhwc{DataType::F32, Layout::NHWC};
    ConvOptions options;
    options.ownWorkspace = false;
    for (Precision precision : {Precision::Fp32, Precision::Fast}) {
        options.precision = precision;
        ConvProblem p1 = convProblem(2, 8, 16, 7, 3), p2 = convProblem(2, 16, 8, 7, 3);
        p1.inputFormat = p1.outputFormat = p2.inputFormat = p2.outputFormat = nhwc;
        const std::vector<float> w1 = randomValues(541, size_t(p1.weightElements())), b1 = randomValues(542, 16);
        const std::vector<float> w2 = randomValues(543, size_t(p2.weightElements())), b2 = randomValues(544, 8);
        Conv2d c1(ctx, p1, w1, b1, options), c2(ctx, p2, w2, b2, options);
        ASSERT_GT(c1.workspaceBytes(), 0u) << c1.describe();
        Tensor x(ctx, {2, 8, 7, 7}, nhwc), a(ctx, {2, 16, 7, 7}, nhwc), y(ctx, {2, 8, 7, 7}, nhwc);
        x.upload(randomValues(545, x.elements()));
        expectRefused([&] { c1.run(x, a); }, "useWorkspace");
        const uint64_t bytes = std::max(c1.workspaceBytes(), c2.workspaceBytes());
        Tensor small(ctx, {int64_t(c1.workspaceBytes() / 4 - 1)});
        expectRefused([&] { c1.useWorkspace(small); }, "workspace bytes");
        Tensor shared(ctx, {int64_t((bytes + 3) / 4)});
        c1.useWorkspace(shared);
        c2.useWorkspace(shared);
        expectRefused([&] { c1.useWorkspace(shared); }, "has one already");
        Sequence seq(ctx);
        seq.record(c1, x, a).record(c2, a, y);
        seq.eval();
        const double bound = errorBound(c1.config().path);
        for (auto [conv, in, out, w, b, p] : {std::tuple{&c1, &x, &a, &w1, &b1, p1}, std::tuple{&c2, &a, &y, &w2, &b2, p2}}) {
            const std::vector<float> xin = in->downloadNchw(), got = out->downloadNchw();
            const std::vector<double> ref = referenceConv2d(p, xin.data(), w->data(), b->data());
            EXPECT_LE(relativeError(got.data(), ref), bound) << conv->describe();
        }
    }
}

// Several threads on one Context, each with Conv2ds and Sequences of its own, submitting at once;
// every result checked. The layers' shapes repeat across threads, so that the pipelines come
// from the Context's cache and the test spends its time submitting.
TEST(Threads, SequencesFromSeveralThreadsOnOneContext) {
    const Context& ctx = context();
    constexpr int kThreads = 4, kRounds = 8;
    std::vector<double> worst(kThreads, 0.0);
    std::vector<std::string> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            try {
                Layer l1(ctx, convProblem(2, 4, 8, 6, 3), 600 + t), l2(ctx, convProblem(2, 8, 4, 6, 1), 700 + t);
                Tensor x(ctx, {2, 4, 6, 6}), a(ctx, {2, 8, 6, 6}), y(ctx, {2, 4, 6, 6});
                Sequence seq(ctx);
                seq.record(l1.conv, x, a).record(l2.conv, a, y);
                for (int i = 0; i < kRounds; ++i) {
                    x.upload(randomValues(800 + t * kRounds + i, x.elements()));
                    seq.eval();
                    worst[size_t(t)] = std::max({worst[size_t(t)], l1.error(x, a), l2.error(a, y)});
                    l1.conv.run(x, a);  // the same Conv2d outside the Sequence, between its submissions
                    worst[size_t(t)] = std::max(worst[size_t(t)], l1.error(x, a));
                }
            } catch (const std::exception& e) {
                failures[size_t(t)] = e.what();
            }
        });
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(failures[size_t(t)], "") << "thread " << t;
        EXPECT_LE(worst[size_t(t)], 1e-5) << "thread " << t;
    }
}

}  // namespace
}  // namespace vkconv::test
