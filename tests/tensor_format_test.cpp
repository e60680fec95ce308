// Tensors of every type and layout (include/vkconv/tensor_format.hpp) on every kernel family: the
// input fp32 or fp16, NCHW or NHWC, and the output (with the residual) likewise, each family forced
// through its best configuration, with an epilogue rotating over none, a residual (separate and in
// place) and scales. Checked against the double-precision reference on the values the tensors hold
// (fp16 inputs rounded before the reference sees them), NaN-filled outputs with their guard, to the
// path's bounds (fp16 outputs: fp16's, errorBound(path, output)).
// Coverage: the fp32 families (cheap on lavapipe) meet all 16 input x output formats; each
// cooperative-matrix family meets 4, which give it every input format and every output format, the
// pairs rotating from family to family.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "conv_check.hpp"
#include "expect_refused.hpp"
#include "family_cases.hpp"
#include "kernels/channels_last/channels_last_params.hpp"  // src/
#include "select/config_select.hpp"  // src/: the configuration Fast chooses
#include "test_devices.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"
#include "vkconv/reference.hpp"
#include "vkconv/tensor.hpp"

namespace vkconv::test {
namespace {

constexpr TensorFormat kFormats[] = {{DataType::F32, Layout::NCHW},
                                     {DataType::F32, Layout::NHWC},
                                     {DataType::F16, Layout::NCHW},
                                     {DataType::F16, Layout::NHWC}};

enum class EpilogueMode { None, Residual, InPlace, Scaled };

struct FormatCase {
    int device;
    size_t family;
    TensorFormat input, output;
    EpilogueMode epilogue;
    uint64_t seed;
};

std::vector<FormatCase> allCases() {
    std::vector<FormatCase> out;
    for (int d : testDeviceIndices())
        for (size_t f = 0; f < std::size(kFamilies); ++f) {
            const bool fp32 = kFamilies[f].path == Path::Fp32;
            for (size_t i = 0; i < 4; ++i)
                for (size_t o = 0; o < 4; ++o) {
                    if (!fp32 && o != (i + f) % 4) continue;
                    out.push_back({d, f, kFormats[i], kFormats[o], EpilogueMode((i + o + f) % 4), 9500 + f * 16 + i * 4 + o});
                }
        }
    return out;
}

std::string formatTag(const TensorFormat& f) {
    return std::string(toString(f.type)) + toString(f.layout);
}

std::string caseName(const FormatCase& c) {
    static const char* modes[] = {"", "_residual", "_inplace", "_scaled"};
    return (c.device < 0 ? std::string("nodevice") : "dev" + std::to_string(c.device)) + "_" +
           kFamilies[c.family].tag + "_in_" + formatTag(c.input) + "_out_" + formatTag(c.output) +
           modes[int(c.epilogue)];
}

void PrintTo(const FormatCase& c, std::ostream* os) { *os << caseName(c); }

class TensorFormats : public ::testing::TestWithParam<FormatCase> {};

TEST_P(TensorFormats, MatchReference) {
    const FormatCase& c = GetParam();
    ASSERT_GE(c.device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(c.device).context;
    const Family& family = kFamilies[c.family];
    ConvProblem p = familyProblem(family);
    p.inputFormat = c.input;
    p.outputFormat = c.output;
    switch (c.epilogue) {
        case EpilogueMode::None: break;
        case EpilogueMode::Residual: p.epilogue.activation = Activation::Relu, p.epilogue.residual = true; break;
        case EpilogueMode::InPlace: p.epilogue.activation = Activation::Relu6, p.epilogue.residual = true; break;
        case EpilogueMode::Scaled:
            p.epilogue.activation = Activation::Silu, p.epilogue.alpha = 0.5f, p.epilogue.residual = true;
            p.epilogue.beta = -1.0f;
            break;
    }
    std::string why;
    const std::optional<KernelConfig> config = familyConfig(family, ctx.device(), p, why);
    if (!config) {
        if (family.path == Path::CoopMatF16 && requireCoopMat()) FAIL() << why;
        GTEST_SKIP() << why;
    }
    ConvOptions options;
    options.config = config;
    const CheckResult result = checkConvWith(ctx, {caseName(c), p, c.seed}, options,
                                             std::string("forced ") + family.tag, c.epilogue == EpilogueMode::InPlace);
    EXPECT_EQ(result.config, config->str()) << result.report;
    // Where the family's loader does not read the input's format, a conversion pass runs first,
    // and describe() says so; nowhere else (the channels-last and grouped direct kernels read
    // every fp32 and fp16 format as it is).
    const bool converts = !c.input.isDefault() && std::string(family.kernel) != "channels-last-nhwc" &&
                          std::string(family.kernel) != "grouped-direct";
    EXPECT_EQ(result.describe.find("converted to f32/nchw first") != std::string::npos, converts) << result.report;
    VKCONV_EXPECT_CHECK_PASSED(result);
}

INSTANTIATE_TEST_SUITE_P(Families, TensorFormats, ::testing::ValuesIn(allCases()),
                         [](const auto& info) { return caseName(info.param); });

// The channels-last kernel reads an fp16 NHWC input in place (no packing pass) where its channels
// fill whole 16-byte words and no 1x1 stride subsamples it, else packs it; both right. Problems:
// C a multiple of BK; C a multiple of 8 but not of BK (the last slice's words past C read zero);
// C not a multiple of 8 (packed); stride 2 with padding (in place, the columns not in phases);
// a strided 1x1 (packed: subsampled); chunked under the narrow profile (each chunk's offset).
struct InPlaceCase {
    const char* name;
    int64_t c, k, kernel, stride, pad;
    bool inPlace;
};

TEST(TensorFormatInPlace, ChannelsLastReadsFp16NhwcAsItIs) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device).context;
    VKCONV_NEED_COOPMAT(ctx.device(), "no channels-last kernel");
    const InPlaceCase cases[] = {{"c32_3x3", 32, 24, 3, 1, 1, true},   {"c24_3x3", 24, 16, 3, 1, 1, true},
                                 {"c12_3x3", 12, 16, 3, 1, 1, false},  {"c16_3x3_s2", 16, 16, 3, 2, 1, true},
                                 {"c16_1x1_s2", 16, 32, 1, 2, 0, false}};
    for (const InPlaceCase& k : cases) {
        ConvProblem p;
        p.batch = 3, p.inChannels = k.c, p.height = 9, p.width = 10, p.outChannels = k.k;
        p.kernelH = p.kernelW = k.kernel, p.strideH = p.strideW = k.stride, p.padH = p.padW = k.pad;
        p.inputFormat = p.outputFormat = {DataType::F16, Layout::NHWC};
        std::optional<KernelConfig> config = bestCandidate(Path::CoopMatF16, ctx.device(), p, [&](const KernelConfig& c) {
            // BK 16 where C = 24 so that its last slice is half past C.
            return c.is<ChannelsLastNhwcKernel>() && c.splits() == 1 && (k.c != 24 || c.bk == 16);
        });
        ASSERT_TRUE(config) << k.name;
        ConvOptions options;
        options.config = config;
        const CheckResult r = checkConvWith(ctx, {k.name, p, 9700 + uint64_t(k.c)}, options, "channels-last");
        EXPECT_EQ(r.describe.find("read in place") != std::string::npos, k.inPlace) << r.report;
        VKCONV_EXPECT_CHECK_PASSED(r);
    }
}

// The same, chunked: each chunk's input range starts at an aligned offset of the caller's tensor.
TEST(TensorFormatInPlace, ChunkedInputsReadFromTheirOffsets) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device, false, narrowProfile()).context;
    VKCONV_NEED_COOPMAT(ctx.device(), "no channels-last kernel");
    ConvProblem p;
    p.batch = 7, p.inChannels = 40, p.height = p.width = 40, p.outChannels = 16;
    p.kernelH = p.kernelW = 3, p.strideH = p.strideW = 2, p.padH = p.padW = 1;
    p.inputFormat = p.outputFormat = {DataType::F16, Layout::NHWC};
    p.epilogue.residual = true;
    std::optional<KernelConfig> config = bestCandidate(Path::CoopMatF16, ctx.device(), p, [](const KernelConfig& c) {
        return c.is<ChannelsLastNhwcKernel>() && c.splits() == 1;
    });
    if (!config) GTEST_SKIP() << "no channels-last configuration under the narrow profile";
    ConvOptions options;
    options.config = config;
    const CheckResult r = checkConvWith(ctx, {"inplace_chunked", p, 9790}, options, "channels-last, narrow profile");
    EXPECT_NE(r.describe.find("read in place"), std::string::npos) << r.report;
    EXPECT_EQ(r.describe.find(" 1 chunk(s)"), std::string::npos) << r.report;
    VKCONV_EXPECT_CHECK_PASSED(r);
}

// fp16 inputs of an odd element count: the last element is the first half of a word past the
// bound range's end, which the passes that read fp16 inputs must not read as a word.
TEST(TensorFormatOddSizes, LastHalfOfAnOddFp16InputIsRead) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device).context;
    ConvProblem p;
    p.batch = 1, p.inChannels = 3, p.height = p.width = 5, p.outChannels = 8, p.kernelH = p.kernelW = 3;
    p.padH = p.padW = 1;
    for (Layout layout : {Layout::NCHW, Layout::NHWC})
        for (Precision precision : {Precision::Fp32, Precision::Fast}) {
            p.inputFormat = {DataType::F16, layout};
            ConvOptions options;
            options.precision = precision;
            const CheckResult r = checkConvWith(ctx, {"odd_f16_input", p, 9800}, options, toString(precision));
            VKCONV_EXPECT_CHECK_PASSED(r);
        }
}

// bf16 tensors (input, output, residual) run through fp32 arithmetic, whatever the precision asked
// for, and describe() says so; bf16's range holds values fp16 cannot (here up to 10^6), which
// come out right; the bound is bf16's output rounding (8e-3).
TEST(TensorFormatBf16, Bf16TensorsRunThroughFp32Arithmetic) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device).context;
    ConvProblem p;
    p.batch = 2, p.inChannels = 8, p.height = p.width = 7, p.outChannels = 16, p.kernelH = p.kernelW = 3;
    p.padH = p.padW = 1;
    p.epilogue.residual = true, p.epilogue.activation = Activation::Relu;
    const TensorFormat cases[][2] = {{{DataType::BF16, Layout::NCHW}, {DataType::BF16, Layout::NCHW}},
                                     {{DataType::BF16, Layout::NHWC}, {DataType::F32, Layout::NHWC}},
                                     {{DataType::F32, Layout::NCHW}, {DataType::BF16, Layout::NHWC}}};
    for (const auto& [in, out] : cases)
        for (Precision precision : {Precision::Fast, Precision::Precise}) {
            p.inputFormat = in, p.outputFormat = out;
            ConvOptions options;
            options.precision = precision;
            const CheckResult r = checkConvWith(ctx, {"bf16", p, 9820}, options, toString(precision));
            EXPECT_THAT(r.describe, ::testing::HasSubstr("bf16 tensors run through fp32 arithmetic")) << r.report;
            EXPECT_EQ(r.path, Path::Fp32) << r.report;
            VKCONV_EXPECT_CHECK_PASSED(r);
        }
    // Beyond fp16's range: 10^6 inputs.
    p.inputFormat = p.outputFormat = {DataType::BF16, Layout::NCHW};
    p.epilogue = Epilogue{};
    ConvOptions fast;
    const std::vector<float> w = randomValues(9821, size_t(p.weightElements())), b(16, 0.0f);
    Conv2d conv(ctx, p, w, b, fast);
    std::vector<float> x = randomValues(9822, size_t(p.inputElements()));
    for (float& v : x) v = heldAs(v * 1.0e6f, DataType::BF16);
    Tensor in(ctx, {2, 8, 7, 7}, p.inputFormat), y(ctx, {2, 16, 7, 7}, p.outputFormat);
    in.upload(x);
    conv.run(in, y);
    const std::vector<float> got = y.download();
    EXPECT_LE(relativeError(got.data(), referenceConv2d(p, x.data(), w.data(), b.data())), 8e-3);
    expectRefused([&] { dataTypeFromString("bf8"); }, "expected f32, f16 or bf16");
}

// The Fast path picks a family that reads the input as it is (the channels-last NHWC kernel reads
// every format) over one that would convert it first, even where that one costs less: on a 1x1,
// where the NCHW loader leads for fp32 NCHW inputs.
TEST(TensorFormatSelection, FastPrefersALoaderThatReadsTheInput) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const DeviceInfo& d = sharedContext(device).context->device();
    VKCONV_NEED_COOPMAT(d, "the fast path is fp32 there");
    ConvProblem p;
    p.batch = 4, p.inChannels = 64, p.height = p.width = 14, p.outChannels = 64;
    for (const TensorFormat& input : kFormats) {
        p.inputFormat = input;
        const KernelConfig chosen = detail::selectConfig(Path::CoopMatF16, d, p).config;
        if (input.isDefault()) continue;  // any family reads fp32 NCHW
        EXPECT_STREQ(chosen.kernel(), "channels-last-nhwc") << p.str() << ": " << chosen.str();
    }
}

// Weights given KRSC in fp16 give what the same values KCRS in fp32 give (values exact in fp16).
TEST(TensorFormatWeights, KrscHalfWeightsMatchKcrsFloat) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device).context;
    ConvProblem p;
    p.batch = 1, p.inChannels = 3, p.height = p.width = 5, p.outChannels = 2, p.kernelH = 3, p.kernelW = 2;
    p.padH = p.padW = 1;
    const int64_t K = 2, C = 3, R = 3, S = 2;
    std::vector<float> kcrs(size_t(K * C * R * S));
    for (size_t i = 0; i < kcrs.size(); ++i) kcrs[i] = float(int(i % 7) - 3) / 8.0f;
    std::vector<uint16_t> krsc(kcrs.size());
    for (int64_t k = 0; k < K; ++k)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t t = 0; t < R * S; ++t) krsc[size_t((k * R * S + t) * C + c)] = halfFromFloat(kcrs[size_t((k * C + c) * R * S + t)]);
    const std::vector<float> bias{0.25f, -0.5f};
    ConvOptions fp32;
    fp32.precision = Precision::Fp32;
    Conv2d a(ctx, p, kcrs, bias, fp32);
    Conv2d b(ctx, p, WeightData{krsc.data(), DataType::F16, WeightLayout::KRSC}, bias.data(), fp32);
    Tensor in(ctx, {1, 3, 5, 5}), outA(ctx, {1, 2, 5, 6}), outB(ctx, {1, 2, 5, 6});
    in.upload(randomValues(77, 75));
    a.run(in, outA);
    b.run(in, outB);
    EXPECT_EQ(outA.download(), outB.download());
}

// Errors name the field and the value.
TEST(TensorFormatErrors, NameTheFieldAndValue) {
    const int device = testDeviceIndices().front();
    ASSERT_GE(device, 0) << listDevicesError();
    const Context& ctx = *sharedContext(device).context;
    expectRefused([&] { Tensor(ctx, {4, 4, 4}, {DataType::F32, Layout::NHWC}); }, "format.layout = nhwc");
    expectRefused([&] { Tensor(ctx, {4}, {DataType(7), Layout::NCHW}); }, "format.type = 7");
    expectRefused([&] { dataTypeFromString("bf8"); }, "dtype = bf8");
    expectRefused([&] { layoutFromString("chwn"); }, "layout = chwn");
    Tensor f32(ctx, {1, 2, 3, 4});
    expectRefused([&] {
        std::vector<uint16_t> h(24);
        f32.uploadHalf(h.data(), h.size());
    }, "uploadHalf: format.type = f32");
    std::vector<float> data(24);
    expectRefused([&] { relayout(data.data(), 23, {1, 2, 3, 4}, Layout::NCHW, Layout::NHWC); }, "relayout count = 23");

    ConvProblem p;
    p.batch = 1, p.inChannels = 2, p.height = 3, p.width = 4, p.outChannels = 2;
    p.inputFormat = {DataType::F32, Layout::NHWC};
    p.epilogue.residual = true;
    ConvOptions fp32;
    fp32.precision = Precision::Fp32;
    Conv2d conv(ctx, p, std::vector<float>(4, 1.0f), std::vector<float>(2, 0.0f), fp32);
    Tensor nhwc(ctx, {1, 2, 3, 4}, {DataType::F32, Layout::NHWC}), out(ctx, {1, 2, 3, 4});
    expectRefused([&] { conv.run(f32, out, out); }, "input format = f32/nchw: the problem's is f32/nhwc");
    Tensor halfOut(ctx, {1, 2, 3, 4}, {DataType::F16, Layout::NCHW});
    expectRefused([&] { conv.run(nhwc, out, halfOut); }, "residual format = f16/nchw");
    expectRefused([&] { conv.run(nhwc, halfOut, halfOut); }, "output format = f16/nchw");

    expectRefused([&] { Conv2d(ctx, p, WeightData{nullptr, DataType::F32, WeightLayout::KCRS}, nullptr, fp32); },
            "weight.data = null");
}

}  // namespace
}  // namespace vkconv::test
