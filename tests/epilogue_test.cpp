// The fused epilogue, y = act(alpha * conv(x) + bias + beta * z) (include/vkconv/epilogue.hpp), on
// every kernel family: each family forced through its best configuration for a problem it serves,
// with every activation, and across the cases the residual separate, in place (the output tensor
// as z) or absent, alpha and beta at 1 and elsewhere; split-K applies it once, in its reduce pass.
// Checked against the double-precision reference (Epilogue::apply) on fresh random inputs into a
// NaN-filled output with its guard (checkConvWith), to the path's bounds. Pairwise: every family
// meets every activation; the residual and scale modes rotate over them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "conv_check.hpp"
#include "expect_refused.hpp"
#include "family_cases.hpp"
#include "kernels/channels_last/channels_last_params.hpp"  // src/
#include "test_devices.hpp"
#include "test_problems.hpp"
#include "vkconv/batch_norm.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"
#include "vkconv/reference.hpp"

namespace vkconv::test {
namespace {

constexpr Activation kActivations[] = {Activation::Identity, Activation::Relu,      Activation::Relu6,
                                       Activation::Clamp,    Activation::LeakyRelu, Activation::Sigmoid,
                                       Activation::Silu,     Activation::GeluErf,   Activation::GeluTanh,
                                       Activation::HardSwish};

enum class Residual { None, Separate, InPlace };

struct EpilogueCase {
    int device;
    size_t family;
    Activation activation;
    Residual residual;
    float alpha, beta;
};

std::vector<EpilogueCase> allCases() {
    std::vector<EpilogueCase> out;
    for (int d : testDeviceIndices())
        for (size_t f = 0; f < std::size(kFamilies); ++f)
            for (size_t a = 0; a < std::size(kActivations); ++a) {
                // Rotating modes: every family and every activation meets each of them.
                const size_t mode = (f + a) % 4;
                const Residual residual = mode == 0 ? Residual::None : mode == 2 ? Residual::InPlace : Residual::Separate;
                const float alpha = mode == 3 ? 0.75f : 1.0f, beta = mode == 1 ? 0.5f : mode == 3 ? -1.25f : 1.0f;
                out.push_back({d, f, kActivations[a], residual, alpha, beta});
            }
    return out;
}

std::string caseName(const EpilogueCase& c) {
    const char* residual = c.residual == Residual::None ? "" : c.residual == Residual::InPlace ? "_inplace" : "_residual";
    return (c.device < 0 ? std::string("nodevice") : "dev" + std::to_string(c.device)) + "_" +
           kFamilies[c.family].tag + "_" + toString(c.activation) + residual + (c.alpha != 1.0f ? "_alpha" : "");
}

void PrintTo(const EpilogueCase& c, std::ostream* os) { *os << caseName(c); }

class FusedEpilogue : public ::testing::TestWithParam<EpilogueCase> {};

TEST_P(FusedEpilogue, MatchesReference) {
    const EpilogueCase& c = GetParam();
    ASSERT_GE(c.device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(c.device).context;
    const Family& family = kFamilies[c.family];
    ConvProblem p = familyProblem(family);
    p.epilogue.activation = c.activation;
    p.epilogue.alpha = c.alpha;
    p.epilogue.beta = c.beta;
    p.epilogue.residual = c.residual != Residual::None;
    p.epilogue.lower = -0.5f, p.epilogue.upper = 0.75f;  // clamp's
    p.epilogue.slope = 0.2f;                             // leaky relu's
    std::string why;
    const std::optional<KernelConfig> config = familyConfig(family, ctx.device(), p, why);
    if (!config) {
        if (family.path == Path::CoopMatF16 && requireCoopMat()) FAIL() << why;
        GTEST_SKIP() << why;
    }
    ConvOptions options;
    options.config = config;
    const CheckResult result = checkConvWith(ctx, {caseName(c), p, 9100 + c.family * 16 + uint64_t(c.activation)},
                                             options, std::string("forced ") + family.tag, c.residual == Residual::InPlace);
    EXPECT_EQ(result.config, config->str()) << result.report;
    EXPECT_THAT(result.report, ::testing::HasSubstr(p.epilogue.str())) << "the problem's name carries its epilogue";
    VKCONV_EXPECT_CHECK_PASSED(result);
}

INSTANTIATE_TEST_SUITE_P(Families, FusedEpilogue, ::testing::ValuesIn(allCases()),
                         [](const auto& info) { return caseName(info.param); });

// A 3x3 stride-2 problem whose batch of 7 narrowProfile's 1 MiB buffers split into chunks, with a
// residual.
ConvProblem chunkedResidualProblem() {
    ConvProblem p;
    p.batch = 7, p.inChannels = 40, p.height = p.width = 40, p.outChannels = 16;
    p.kernelH = p.kernelW = 3, p.strideH = p.strideW = 2, p.padH = p.padW = 1;
    p.epilogue.residual = true;
    return p;
}

// A batch split into chunks: the residual is bound chunk by chunk like the output (separate and
// in place).
TEST(Epilogue, ChunkedBatchesReadTheirOwnResidual) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device, false, narrowProfile()).context;
    ConvProblem p = chunkedResidualProblem();
    p.epilogue.beta = 0.5f;
    ConvOptions options;
    options.precision = Precision::Fp32;
    for (bool inPlace : {false, true}) {
        const CheckResult r = checkConvWith(ctx, {"chunked_epilogue", p, 9900}, options, "fp32, narrow profile", inPlace);
        EXPECT_THAT(r.describe, ::testing::Not(::testing::HasSubstr(" 1 chunk(s)"))) << r.report;
        VKCONV_EXPECT_CHECK_PASSED(r);
    }
}

// The same through the channels-last kernel with split-K, where the device has cooperative matrices.
TEST(Epilogue, ChunkedSplitKAppliesItPerChunk) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device, false, narrowProfile()).context;
    ConvProblem p = chunkedResidualProblem();
    p.epilogue.activation = Activation::Silu;
    p.epilogue.alpha = 0.5f;
    ConvOptions options;
    std::optional<KernelConfig> split = bestCandidate(Path::CoopMatF16, ctx.device(), p, [](const KernelConfig& k) {
        // BK 32: C = 40 padded to 64 makes 2 slices a tap, 18 in all, which 2 splits divide (the
        // narrow profile allows 2 workgroups along Z).
        return k.is<ChannelsLastNhwcKernel>() && k.splits() == 1 && k.bk == 32;
    });
    if (!split) {
        const std::string why = "no channels-last configuration on '" + ctx.device().name + "' (cooperative matrices?)";
        if (requireCoopMat()) FAIL() << why;
        GTEST_SKIP() << why;
    }
    detail::channelsLast(*split).splitK = 2;
    ASSERT_EQ(canImplement(*split, ctx.device(), p), "") << split->str();
    options.config = split;
    const CheckResult r = checkConvWith(ctx, {"chunked_epilogue_splitk", p, 9901}, options, "split-K, narrow profile");
    EXPECT_THAT(r.describe, ::testing::Not(::testing::HasSubstr(" 1 chunk(s)"))) << r.report;
    VKCONV_EXPECT_CHECK_PASSED(r);
}

// The epilogue's own rules, without a device.
TEST(Epilogue, NamesValuesAndErrors) {
    for (Activation a : kActivations) EXPECT_EQ(activationFromString(toString(a)), a);
    EXPECT_THROW(activationFromString("swish"), Error);
    Epilogue e;
    EXPECT_TRUE(e.isDefault());
    EXPECT_EQ(e.str(), "");
    e.activation = Activation::Clamp, e.lower = 1.0f, e.upper = -1.0f;
    try {
        e.validate();
        ADD_FAILURE() << "lower > upper was accepted";
    } catch (const Error& err) {
        EXPECT_THAT(err.what(), ::testing::HasSubstr("epilogue.lower"));
    }
    e = Epilogue{};
    e.alpha = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(e.validate(), Error);
    e = Epilogue{};
    e.activation = Activation::Relu, e.residual = true, e.beta = 0.5f;
    EXPECT_EQ(e.str(), "relu residual beta=0.5");
    EXPECT_DOUBLE_EQ(e.apply(-3.0, 1.0, 2.0), 0.0);  // relu(-3 + 1 + 1)
    EXPECT_DOUBLE_EQ(e.apply(3.0, 1.0, 2.0), 5.0);
    ConvProblem p;
    p.epilogue = e;
    EXPECT_THAT(p.str(), ::testing::EndsWith("bias=yes relu residual beta=0.5"));
}

// A residual is required where the epilogue has one and refused where it has none; it has the
// output's shape and is never the input.
TEST(Epilogue, ResidualTensorsAreChecked) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device).context;
    ConvProblem p;
    p.batch = 1, p.inChannels = 4, p.height = p.width = 6, p.outChannels = 4, p.kernelH = p.kernelW = 1;
    p.epilogue.residual = true;
    ConvOptions options;
    options.precision = Precision::Fp32;
    Conv2d conv(ctx, p, std::vector<float>(16, 0.5f), std::vector<float>(4, 0.0f), options);
    Tensor in(ctx, {1, 4, 6, 6}), out(ctx, {1, 4, 6, 6}), wrong(ctx, {1, 4, 6, 5});
    auto expectRefused = [&](auto run, const std::string& what) {
        try {
            run();
            ADD_FAILURE() << "accepted: " << what;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), Error::Kind::InvalidArgument) << e.what();
            EXPECT_THAT(e.what(), ::testing::HasSubstr(what));
        }
    };
    expectRefused([&] { conv.run(in, out); }, "residual");
    expectRefused([&] { conv.run(in, out, wrong); }, "residual shape");
    expectRefused([&] { conv.run(in, out, in); }, "must not be the input");
    ConvProblem plain = p;
    plain.epilogue.residual = false;
    Conv2d noResidual(ctx, plain, std::vector<float>(16, 0.5f), std::vector<float>(4, 0.0f), options);
    expectRefused([&] { noResidual.run(in, out, out); }, "has no residual");
}

}  // namespace
}  // namespace vkconv::test

namespace vkconv::test {
namespace {

// foldBatchNorm against the formula, and its errors (PyTorch's own fuse_conv_bn_eval is compared
// in python/tests/test_epilogue.py where torch is installed).
TEST(FoldBatchNorm, MatchesTheFormulaAndNamesBadArguments) {
    const std::vector<float> w{1, 2, 3, 4}, b{0.5f, -1}, gamma{2, 0.5f}, beta{0.25f, 1}, mean{0.5f, 1}, var{3, 0.25f};
    const FoldedConv f = foldBatchNorm(w, b, gamma, beta, mean, var, 1.0);
    const double s0 = 2 / std::sqrt(4.0), s1 = 0.5 / std::sqrt(1.25);
    EXPECT_FLOAT_EQ(f.weight[0], float(1 * s0));
    EXPECT_FLOAT_EQ(f.weight[3], float(4 * s1));
    EXPECT_FLOAT_EQ(f.bias[0], float((0.5 - 0.5) * s0 + 0.25));
    EXPECT_FLOAT_EQ(f.bias[1], float((-1 - 1) * s1 + 1));
    EXPECT_FLOAT_EQ(foldBatchNorm(w, {}, gamma, beta, mean, var, 1.0).bias[1], float(-1 * s1 + 1));
    expectRefused([&] { foldBatchNorm(w, b, gamma, beta, mean, {3}, 1e-5); }, "var size");
    expectRefused([&] { foldBatchNorm({1, 2, 3}, b, gamma, beta, mean, var, 1e-5); }, "weight size");
    expectRefused([&] { foldBatchNorm(w, b, gamma, beta, mean, {-1, 0.25f}, 0.5); }, "var[0]");
    expectRefused([&] { foldBatchNorm(w, b, {std::nanf(""), 1}, beta, mean, var, 1e-5); }, "gamma[0]");
    expectRefused([&] { foldBatchNorm(w, b, gamma, beta, mean, var, -1); }, "eps");
}

}  // namespace
}  // namespace vkconv::test
