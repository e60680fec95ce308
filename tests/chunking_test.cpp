// Chunking and grid splits on real devices: under narrowProfile() (1 MiB storage buffers, at
// most 4 x 65535 x 2 workgroups) small problems need several chunks with unaligned offsets and
// split dispatches, and must still match the reference. A problem whose single image does not
// fit the range must be refused with Unsupported, never answered wrongly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "conv_check.hpp"
#include "test_devices.hpp"
#include "test_problems.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"

namespace vkconv::test {
namespace {

using ::testing::HasSubstr;

class ConvChunking : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvChunking, MatchesReferenceUnderNarrowLimits) {
    const ConvCase& c = GetParam();
    ASSERT_GE(c.device, 0) << listDevicesError();
    CheckResult result;
    try {
        result = checkConv(*sharedContext(c.device, false, narrowProfile()).context, c.problem,
                           c.variant);
    } catch (const std::exception& e) {
        FAIL() << "problem " << c.problem.name << ": " << c.problem.problem.str() << "\n  seed "
               << c.problem.seed << ", variant " << variantName(c.variant)
               << ", profile " << narrowProfile().name << "\n  threw: " << e.what();
    }
    if (!result.ran) VKCONV_SKIP_UNAVAILABLE(result);
    // The point of the case is several chunks and split grids; make sure the plan has them.
    EXPECT_THAT(result.report, ::testing::Not(HasSubstr(" 1 chunk(s)"))) << result.report;
    VKCONV_EXPECT_CHECK_PASSED(result);
}

INSTANTIATE_TEST_SUITE_P(Problems, ConvChunking,
                         ::testing::ValuesIn(allCases(chunkingProblems(), &narrowProfile())),
                         [](const auto& info) { return caseName(info.param); });

// An image larger than the (narrowed) maxStorageBufferRange: refused, by name of the limit.
class ConvTooLargeImage : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvTooLargeImage, ThrowsUnsupportedNamingTheLimit) {
    const ConvCase& c = GetParam();
    ASSERT_GE(c.device, 0) << listDevicesError();
    const Context& context = *sharedContext(c.device, false, narrowProfile()).context;
    const ConvProblem& p = c.problem.problem;
    const std::vector<float> weight(size_t(p.weightElements()), 0.5f);
    const std::vector<float> bias(p.bias ? size_t(p.outChannels) : 0, 0.25f);
    ConvOptions options;
    options.precision = c.variant == Variant::Fp32 ? Precision::Fp32 : Precision::Fast;
    try {
        Conv2d conv(context, p, weight, bias, options);
        FAIL() << "expected vkconv::Error(Unsupported) for " << p.str() << "; got a plan: "
               << conv.describe();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::Unsupported) << e.what();
        EXPECT_THAT(e.what(), HasSubstr("maxStorageBufferRange"));
    }
}

std::vector<NamedProblem> tooLargeImages() {
    std::vector<NamedProblem> out;
    ConvProblem in;  // input image 3 x 300 x 300 floats = 1,080,000 bytes > 1 MiB
    in.batch = 2, in.inChannels = 3, in.height = in.width = 300, in.outChannels = 1;
    out.push_back({"input_image_over_1MiB", in, 1});
    ConvProblem outp;  // output image 4 x 300 x 300 floats > 1 MiB, input 360,000 bytes
    outp.batch = 1, outp.inChannels = 1, outp.height = outp.width = 300, outp.outChannels = 4;
    out.push_back({"output_image_over_1MiB", outp, 2});
    return out;
}

INSTANTIATE_TEST_SUITE_P(Problems, ConvTooLargeImage, ::testing::ValuesIn(allCases(tooLargeImages())),
                         [](const auto& info) { return caseName(info.param); });

}  // namespace
}  // namespace vkconv::test
