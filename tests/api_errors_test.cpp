// Every input the library rejects gives vkconv::Error(InvalidArgument) whose message names the
// field and the value ("field = value: why").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "test_devices.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/device_profile.hpp"
#include "vkconv/error.hpp"
#include "vkconv/kernel_config.hpp"
#include "vkconv/tensor.hpp"

namespace vkconv::test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// Runs f; expects Error(InvalidArgument) whose message contains every one of `parts`.
void expectInvalidArgument(const std::function<void()>& f, std::vector<std::string> parts) {
    try {
        f();
        ADD_FAILURE() << "expected vkconv::Error(InvalidArgument) naming '" << parts.front()
                      << "'; nothing was thrown";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::InvalidArgument) << e.what();
        for (const auto& part : parts) EXPECT_THAT(e.what(), HasSubstr(part));
    }
}

ConvProblem small() {
    ConvProblem p;
    p.batch = 2, p.inChannels = 4, p.height = p.width = 6, p.outChannels = 4;
    p.kernelH = p.kernelW = 3, p.padH = p.padW = 1;
    return p;
}

// ------------------------------------------------------------------ ConvProblem::validate
struct BadProblem {
    const char* name;
    std::function<void(ConvProblem&)> change;
    std::vector<std::string> message;  // what the message must contain: field and value
};

void PrintTo(const BadProblem& b, std::ostream* os) { *os << b.name; }

class ConvProblemRejects : public ::testing::TestWithParam<BadProblem> {};

TEST_P(ConvProblemRejects, NamesFieldAndValue) {
    ConvProblem p = small();
    GetParam().change(p);
    expectInvalidArgument([&] { p.validate(); }, GetParam().message);
}

const BadProblem kBadProblems[] = {
    {"batch_zero", [](ConvProblem& p) { p.batch = 0; }, {"batch = 0"}},
    {"batch_negative", [](ConvProblem& p) { p.batch = -3; }, {"batch = -3"}},
    {"channels_zero", [](ConvProblem& p) { p.inChannels = 0; }, {"in_channels = 0"}},
    {"channels_negative", [](ConvProblem& p) { p.inChannels = -1; }, {"in_channels = -1"}},
    {"height_zero", [](ConvProblem& p) { p.height = 0; }, {"height = 0"}},
    {"height_negative", [](ConvProblem& p) { p.height = -7; }, {"height = -7"}},
    {"width_zero", [](ConvProblem& p) { p.width = 0; }, {"width = 0"}},
    {"width_negative", [](ConvProblem& p) { p.width = -2; }, {"width = -2"}},
    {"out_channels_zero", [](ConvProblem& p) { p.outChannels = 0; }, {"out_channels = 0"}},
    {"out_channels_negative", [](ConvProblem& p) { p.outChannels = -4; }, {"out_channels = -4"}},
    {"kernel_h_zero", [](ConvProblem& p) { p.kernelH = 0; }, {"kernel_h = 0"}},
    {"kernel_w_negative", [](ConvProblem& p) { p.kernelW = -1; }, {"kernel_w = -1"}},
    {"stride_h_zero", [](ConvProblem& p) { p.strideH = 0; }, {"stride_h = 0"}},
    {"stride_w_negative", [](ConvProblem& p) { p.strideW = -2; }, {"stride_w = -2"}},
    {"padding_h_negative", [](ConvProblem& p) { p.padH = -1; }, {"padding_h = -1"}},
    {"padding_w_negative", [](ConvProblem& p) { p.padW = -5; }, {"padding_w = -5"}},
    {"dilation_h_zero", [](ConvProblem& p) { p.dilationH = 0; }, {"dilation_h = 0"}},
    {"dilation_w_zero", [](ConvProblem& p) { p.dilationW = 0; }, {"dilation_w = 0"}},
    {"groups_zero", [](ConvProblem& p) { p.groups = 0; }, {"groups = 0"}},
    {"groups_negative", [](ConvProblem& p) { p.groups = -2; }, {"groups = -2"}},
    {"in_channels_not_divisible",
     [](ConvProblem& p) { p.inChannels = 5, p.outChannels = 4, p.groups = 2; },
     {"in_channels = 5", "groups = 2"}},
    {"out_channels_not_divisible",
     [](ConvProblem& p) { p.inChannels = 6, p.outChannels = 9, p.groups = 2; },
     {"out_channels = 9", "groups = 2"}},
    {"dilated_kernel_taller_than_input",
     [](ConvProblem& p) { p.kernelH = 3, p.dilationH = 4, p.padH = 0; },  // 9 > 6
     {"kernel_h = 3", "9", "6"}},
    {"kernel_wider_than_padded_input",
     [](ConvProblem& p) { p.kernelW = 9, p.padW = 1; },  // 9 > 6 + 2
     {"kernel_w = 9", "8"}},
    {"height_too_large", [](ConvProblem& p) { p.height = int64_t(1) << 40; }, {"height = 1099511627776"}},
    // Every field within its 2^24 cap, but C*H*W = 2^64: it wrapped to 0 (SIGFPE in the planner).
    {"input_elements_past_int64",
     [](ConvProblem& p) {
         p.batch = 1, p.inChannels = 1 << 24, p.height = 1 << 24, p.width = 1 << 16, p.outChannels = 1;
         p.kernelH = p.kernelW = 1, p.strideH = p.strideW = 1 << 24, p.padH = p.padW = 0;
     },
     {"batch*in_channels*height*width = 1*16777216*16777216*65536"}},
    {"weight_elements_past_int64",
     [](ConvProblem& p) {
         p.inChannels = p.outChannels = 1 << 24, p.height = p.width = 1, p.batch = 1;
         p.kernelH = 1, p.kernelW = 1 << 24, p.padH = 0, p.padW = 1 << 23;
     },
     {"out_channels*(in_channels/groups)*kernel_h*kernel_w = 16777216*16777216*1*16777216"}},
    {"gemm_k_past_32_bits",
     [](ConvProblem& p) {
         p.inChannels = 1 << 12, p.outChannels = 1, p.height = p.width = 1 << 10;
         p.kernelH = p.kernelW = 1 << 10, p.padH = p.padW = 0;
     },
     {"(in_channels/groups)*kernel_h*kernel_w = 4096*1024*1024"}},
};

INSTANTIATE_TEST_SUITE_P(Fields, ConvProblemRejects, ::testing::ValuesIn(kBadProblems),
                         [](const auto& info) { return std::string(info.param.name); });

// ------------------------------------------------------------ Conv2d, Tensor, Context, ...
class ApiErrors : public ::testing::TestWithParam<int> {
protected:
    const Context& context() { return *sharedContext(GetParam()).context; }
    void SetUp() override { ASSERT_GE(GetParam(), 0) << listDevicesError(); }
};

TEST_P(ApiErrors, Conv2dValidatesTheProblem) {
    ConvProblem p = small();
    p.groups = 3;
    expectInvalidArgument([&] { Conv2d(context(), p, std::vector<float>(36), std::vector<float>(4)); },
                          {"in_channels = 4", "groups = 3"});
}

TEST_P(ApiErrors, WeightOfWrongSize) {
    const ConvProblem p = small();  // 4*4*3*3 = 144 weights
    expectInvalidArgument([&] { Conv2d(context(), p, std::vector<float>(143), std::vector<float>(4)); },
                          {"weight size = 143", "144"});
    expectInvalidArgument([&] { Conv2d(context(), p, std::vector<float>(145), std::vector<float>(4)); },
                          {"weight size = 145", "144"});
}

TEST_P(ApiErrors, NullWeightPointer) {
    const ConvProblem p = small();
    const std::vector<float> bias(4);
    expectInvalidArgument([&] { Conv2d(context(), p, nullptr, bias.data()); }, {"weight = null"});
}

TEST_P(ApiErrors, BiasOfWrongSize) {
    const ConvProblem p = small();
    expectInvalidArgument([&] { Conv2d(context(), p, std::vector<float>(144), std::vector<float>(3)); },
                          {"bias size = 3", "4"});
    expectInvalidArgument([&] { Conv2d(context(), p, std::vector<float>(144), std::vector<float>()); },
                          {"bias size = 0", "4"});
    const std::vector<float> weight(144);
    expectInvalidArgument([&] { Conv2d(context(), p, weight.data(), nullptr); }, {"bias = null"});
}

TEST_P(ApiErrors, BiasGivenWhenBiasIsOff) {
    ConvProblem p = small();
    p.bias = false;
    expectInvalidArgument([&] { Conv2d(context(), p, std::vector<float>(144), std::vector<float>(4)); },
                          {"bias size = 4", "bias off"});
}

TEST_P(ApiErrors, InputAndOutputOfWrongShape) {
    const ConvProblem p = small();  // input [2,4,6,6], output [2,4,6,6]
    Conv2d conv(context(), p, std::vector<float>(144, 0.1f), std::vector<float>(4, 0.f),
                ConvOptions{Precision::Fp32, std::nullopt});
    Tensor good(context(), {2, 4, 6, 6});
    Tensor out(context(), {2, 4, 6, 6});
    Tensor wrongBatch(context(), {3, 4, 6, 6});
    Tensor wrongRank(context(), {2, 4, 36});
    expectInvalidArgument([&] { conv.run(wrongBatch, out); }, {"input shape = [3,4,6,6]", "batch 3 is outside 1..2"});
    expectInvalidArgument([&] { conv.run(wrongRank, out); }, {"input shape = [2,4,36]"});
    expectInvalidArgument([&] { conv.run(good, wrongBatch); }, {"output shape = [3,4,6,6]"});
    Tensor wrongSpatial(context(), {2, 4, 5, 6});
    expectInvalidArgument([&] { conv.run(good, wrongSpatial); }, {"output shape = [2,4,5,6]"});
    EXPECT_NO_THROW(conv.run(good, out));
}

TEST_P(ApiErrors, OutputIsTheInputTensor) {
    const ConvProblem p = small();  // input and output are both [2,4,6,6]
    Conv2d conv(context(), p, std::vector<float>(144, 0.1f), std::vector<float>(4, 0.f),
                ConvOptions{Precision::Fp32, std::nullopt});
    Tensor t(context(), {2, 4, 6, 6});
    expectInvalidArgument([&] { conv.run(t, t); }, {"output", "must not overlap the input"});
    expectInvalidArgument([&] { conv.time(t, t, 0, 1); }, {"output", "in-place"});
}

TEST_P(ApiErrors, TensorsFromAnotherContext) {
    const ConvProblem p = small();
    Conv2d conv(context(), p, std::vector<float>(144, 0.1f), std::vector<float>(4, 0.f),
                ConvOptions{Precision::Fp32, std::nullopt});
    // A second Context on the same device (the narrow-profile one the chunking tests share).
    const Context& other = *sharedContext(GetParam(), false, narrowProfile()).context;
    Tensor in(context(), {2, 4, 6, 6}), out(context(), {2, 4, 6, 6});
    Tensor foreignIn(other, {2, 4, 6, 6}), foreignOut(other, {2, 4, 6, 6});
    expectInvalidArgument([&] { conv.run(foreignIn, out); }, {"input", "another Context"});
    expectInvalidArgument([&] { conv.run(in, foreignOut); }, {"output", "another Context"});
}

TEST_P(ApiErrors, TensorWithZeroOrNegativeDimension) {
    expectInvalidArgument([&] { Tensor(context(), {2, 0, 3}); }, {"shape[1] = 0"});
    expectInvalidArgument([&] { Tensor(context(), {-1}); }, {"shape[0] = -1"});
    expectInvalidArgument([&] { Tensor(context(), {}); }, {"shape = []"});
}

TEST_P(ApiErrors, TensorTooLargeToRepresent) {
    // 2^62 elements x 4 bytes wrapped to a 4-byte buffer.
    expectInvalidArgument([&] { Tensor(context(), {int64_t(1) << 31, int64_t(1) << 31}); },
                          {"shape = 2147483648x2147483648", "2^50"});
    try {
        Tensor(context(), {int64_t(1) << 40});  // representable, beyond any allocation
        ADD_FAILURE() << "expected Unsupported";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::Unsupported) << e.what();
        EXPECT_NE(std::string(e.what()).find("maxMemoryAllocationSize"), std::string::npos) << e.what();
    }
}

TEST_P(ApiErrors, TensorUploadAndDownloadOfWrongCount) {
    Tensor t(context(), {2, 3});
    const std::vector<float> five(5);
    expectInvalidArgument([&] { t.upload(five); }, {"upload count = 5", "6"});
    std::vector<float> seven(7);
    expectInvalidArgument([&] { t.download(seven.data(), seven.size()); }, {"download count = 7"});
}

TEST_P(ApiErrors, TimeWithZeroIterations) {
    const ConvProblem p = small();
    Conv2d conv(context(), p, std::vector<float>(144, 0.1f), std::vector<float>(4, 0.f),
                ConvOptions{Precision::Fp32, std::nullopt});
    Tensor in(context(), {2, 4, 6, 6}), out(context(), {2, 4, 6, 6});
    expectInvalidArgument([&] { conv.time(in, out, 1, 0); }, {"iterations = 0"});
    expectInvalidArgument([&] { conv.time(in, out, -1, 3); }, {"warmup = -1"});
    // warmup + iterations overflowed int and recorded everything into one command buffer.
    expectInvalidArgument([&] { conv.time(in, out, 2147483647, 1); }, {"warmup = 2147483647", "0..10000"});
    expectInvalidArgument([&] { conv.time(in, out, 0, Conv2d::kMaxTimedRuns + 1); }, {"iterations = 10001"});
}

TEST_P(ApiErrors, ForcedConfigThatCannotImplement) {
    const ConvProblem p = small();
    KernelConfig config;
    config.path = Path::Fp32;
    config.bm = 128, config.bn = 128, config.bk = 1024;  // 1 MiB shared
    config.params = Fp32GemmKernel{8, 8};
    const std::string why = canImplement(config, context().device(), p);
    ASSERT_THAT(why, HasSubstr("shared memory"));
    ConvOptions options;
    options.config = config;
    expectInvalidArgument(
        [&] { Conv2d(context(), p, std::vector<float>(144), std::vector<float>(4), options); },
        {"config = " + config.str(), "shared memory"});

    KernelConfig ragged = KernelConfig{};
    ragged.bm = 64, ragged.bn = 64;
    ragged.params = Fp32GemmKernel{3, 4};  // 64 is not a multiple of 3
    options.config = ragged;
    expectInvalidArgument(
        [&] { Conv2d(context(), p, std::vector<float>(144), std::vector<float>(4), options); },
        {"config = " + ragged.str(), "thread tiles"});
}

INSTANTIATE_TEST_SUITE_P(Devices, ApiErrors, ::testing::ValuesIn(testDeviceIndices()),
                         [](const auto& info) {
                             return info.param < 0 ? std::string("nodevice")
                                                   : "dev" + std::to_string(info.param);
                         });

// ------------------------------------------------------------------ without a device
TEST(ApiErrorsNoDevice, BadDeviceIndex) {
    ASSERT_FALSE(testDevices().empty()) << listDevicesError();
    const int bad = static_cast<int>(testDevices().size()) + 7;
    ContextOptions options;
    options.deviceIndex = bad;
    expectInvalidArgument([&] { Context{options}; }, {"device = " + std::to_string(bad), "no such device"});
}

TEST(ApiErrorsNoDevice, UnknownProfileName) {
    expectInvalidArgument([] { DeviceProfile::byName("no-such-gpu"); },
                          {"profile = no-such-gpu", "rtx4090"});
}

TEST(ApiErrorsNoDevice, UnknownPathAndPrecisionNames) {
    expectInvalidArgument([] { pathFromString("fp64"); }, {"path = fp64"});
    expectInvalidArgument([] { precisionFromString("half"); }, {"precision = half"});
}

}  // namespace
}  // namespace vkconv::test
