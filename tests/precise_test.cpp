// Precision::Precise (src/conv/precise.hpp): fp32 accuracy from the fp16 matrix units. On a device
// with cooperative matrices, against the double reference at fp32's bound (1e-5), on inputs of
// mixed magnitude (each input channel uniform in [-1, 1] times 10^u, u uniform in [-3, 3]; the
// weights likewise per output channel), in NCHW and NHWC, an fp16 input (two passes), and the
// epilogue with a residual and an activation. Where it cannot run, the fallback and why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "test_devices.hpp"
#include "test_problems.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/reference.hpp"

namespace vkconv::test {
namespace {

// Uniform [-1, 1] values, each run of `block` of them scaled by 10^u, u uniform in [-3, 3].
std::vector<float> mixedMagnitudes(uint64_t seed, size_t count, size_t block) {
    std::vector<float> v = randomValues(seed, count);
    std::mt19937_64 rng(seed ^ 0x5ca1e);
    std::uniform_real_distribution<double> u(-3.0, 3.0);
    for (size_t b = 0; b < count; b += block) {
        const float scale = float(std::pow(10.0, u(rng)));
        for (size_t i = b; i < std::min(count, b + block); ++i) v[i] *= scale;
    }
    return v;
}

struct PreciseCase {
    const char* name;
    ConvProblem problem;
};

double runPrecise(const Context& ctx, const ConvProblem& p, uint64_t seed, std::string& describe) {
    const uint64_t plane = uint64_t(p.height * p.width);
    // NCHW values: each (image, channel) plane one magnitude; the weights per output channel.
    const std::vector<float> x = heldAs(mixedMagnitudes(seed, size_t(p.inputElements()), plane), p.inputFormat.type);
    const std::vector<float> w = mixedMagnitudes(seed + 1, size_t(p.weightElements()), size_t(p.weightElements() / p.outChannels));
    const std::vector<float> b = randomValues(seed + 2, size_t(p.outChannels));
    const std::vector<float> z = p.epilogue.residual ? randomValues(seed + 3, size_t(p.outputElements())) : std::vector<float>{};
    ConvOptions o;
    o.precision = Precision::Precise;
    Conv2d conv(ctx, p, w, b, o);
    describe = conv.describe();
    const auto os = p.outputShape();
    Tensor in(ctx, {p.batch, p.inChannels, p.height, p.width}, p.inputFormat), out(ctx, {os.begin(), os.end()}, p.outputFormat);
    in.uploadNchw(x);
    out.fill(std::nanf(""));
    if (p.epilogue.residual) {
        Tensor zt(ctx, {os.begin(), os.end()}, p.outputFormat);
        zt.uploadNchw(z);
        conv.run(in, out, zt);
    } else {
        conv.run(in, out);
    }
    const std::vector<float> got = out.downloadNchw();
    return relativeError(got.data(), referenceConv2d(p, x.data(), w.data(), b.data(), 0, -1, p.epilogue.residual ? z.data() : nullptr));
}

TEST(Precise, HoldsFp32sBoundOnTheMatrixUnits) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device).context;
    VKCONV_NEED_COOPMAT(ctx.device(), "precise falls back to fp32 there (Precise.FallsBackWhereItCannotRun)");
    std::vector<PreciseCase> cases;
    auto add = [&](const char* name, int64_t n, int64_t c, int64_t hw, int64_t k, int64_t r, int64_t stride) {
        ConvProblem p;
        p.batch = n, p.inChannels = c, p.height = p.width = hw, p.outChannels = k, p.kernelH = p.kernelW = r;
        p.strideH = p.strideW = stride, p.padH = p.padW = r / 2;
        cases.push_back({name, p});
        return &cases.back().problem;
    };
    add("3x3_c16_k24", 2, 16, 9, 24, 3, 1);
    add("1x1_c64_k32", 2, 64, 7, 32, 1, 1);
    add("3x3_s2_c24_k16", 2, 24, 11, 16, 3, 2);
    ConvProblem* nhwc = add("3x3_nhwc", 2, 16, 8, 16, 3, 1);
    nhwc->inputFormat = nhwc->outputFormat = {DataType::F32, Layout::NHWC};
    ConvProblem* half = add("3x3_f16_input", 2, 16, 8, 16, 3, 1);
    half->inputFormat = {DataType::F16, Layout::NHWC};
    ConvProblem* epi = add("3x3_relu_residual", 2, 16, 8, 16, 3, 1);
    epi->epilogue.activation = Activation::Relu, epi->epilogue.residual = true, epi->epilogue.alpha = 0.5f;
    for (size_t i = 0; i < cases.size(); ++i) {
        std::string describe;
        const double error = runPrecise(ctx, cases[i].problem, 9900 + i * 7, describe);
        std::cout << "[ precise ] " << cases[i].name << ": relative error " << error << "\n";
        EXPECT_THAT(describe, ::testing::HasSubstr("precise: ")) << cases[i].name;
        EXPECT_LE(error, 1e-5) << cases[i].name << ": " << describe;
    }
}

// An input beyond fp16's range is never a silently wrong result: the outputs whose windows hold it
// are NaN, the others right.
TEST(Precise, InputsBeyondFp16sRangeGiveNaN) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device).context;
    VKCONV_NEED_COOPMAT(ctx.device(), "precise falls back to fp32 there");
    ConvProblem p;
    p.batch = 1, p.inChannels = 16, p.height = p.width = 8, p.outChannels = 16, p.kernelH = p.kernelW = 1;
    std::vector<float> x = randomValues(9960, size_t(p.inputElements()));
    x[0] = 1.0e5f;  // channel 0, pixel 0
    const std::vector<float> w = randomValues(9961, size_t(p.weightElements())), b(16, 0.0f);
    ConvOptions o;
    o.precision = Precision::Precise;
    Conv2d conv(ctx, p, w, b, o);
    Tensor in(ctx, {1, 16, 8, 8}), out(ctx, {1, 16, 8, 8});
    in.upload(x);
    conv.run(in, out);
    const std::vector<float> y = out.download();
    const std::vector<double> ref = referenceConv2d(p, x.data(), w.data(), b.data());
    for (int64_t k = 0; k < 16; ++k)
        for (int64_t pix = 0; pix < 64; ++pix) {
            const size_t i = size_t(k * 64 + pix);
            if (pix == 0)
                EXPECT_TRUE(std::isnan(y[i])) << "output " << i << " reads the input beyond fp16's range: " << y[i];
            else
                EXPECT_NEAR(y[i], ref[i], 1e-4 * (1 + std::fabs(ref[i]))) << "output " << i;
        }
}

// Where precise cannot run it falls back and says so: an fp16 output (fast: its rounding bounds
// the error anyway), groups (fp32), a device without cooperative matrices (fp32).
TEST(Precise, FallsBackWhereItCannotRun) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device).context;
    ConvProblem grouped;
    grouped.batch = 1, grouped.inChannels = 8, grouped.height = grouped.width = 6, grouped.outChannels = 8;
    grouped.kernelH = grouped.kernelW = 3, grouped.padH = grouped.padW = 1, grouped.groups = 8;
    std::string describe;
    EXPECT_LE(runPrecise(ctx, grouped, 9950, describe), 1e-5);
    EXPECT_THAT(describe, ::testing::HasSubstr("precise requested, but precise runs on the channels-last kernel"));
    ConvProblem halfOut = grouped;
    halfOut.groups = 1, halfOut.outputFormat = {DataType::F16, Layout::NCHW};
    runPrecise(ctx, halfOut, 9951, describe);
    EXPECT_THAT(describe, ::testing::HasSubstr("an fp16 output is rounded to fp16"));
    if (!ctx.device().coopMatKhr) {
        ConvProblem dense = grouped;
        dense.groups = 1;
        EXPECT_LE(runPrecise(ctx, dense, 9952, describe), 1e-5);
        EXPECT_THAT(describe, ::testing::HasSubstr("no VK_KHR_cooperative_matrix"));
    }
}

}  // namespace
}  // namespace vkconv::test
