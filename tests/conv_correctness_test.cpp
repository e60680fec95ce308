// The correctness suite: every problem of test_problems.cpp on every Vulkan device, with
// Precision::Fp32 and Precision::Fast (the cooperative-matrix path where the device has one) and
// each loader forced, compared with the double-precision reference within errorBound(path).
#include <gtest/gtest.h>

#include "conv_check.hpp"
#include "test_devices.hpp"
#include "test_problems.hpp"

namespace vkconv::test {
namespace {

class ConvCorrectness : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvCorrectness, MatchesReference) {
    const ConvCase& c = GetParam();
    ASSERT_GE(c.device, 0) << listDevicesError();
    CheckResult result;
    try {
        result = checkConv(*sharedContext(c.device).context, c.problem, c.variant);
    } catch (const std::exception& e) {
        FAIL() << "problem " << c.problem.name << ": " << c.problem.problem.str() << "\n  seed "
               << c.problem.seed << ", variant " << variantName(c.variant)
               << "\n  threw: " << e.what();
    }
    if (!result.ran) VKCONV_SKIP_UNAVAILABLE(result);
    VKCONV_EXPECT_CHECK_PASSED(result);
}

INSTANTIATE_TEST_SUITE_P(Problems, ConvCorrectness,
                         ::testing::ValuesIn(allCases(correctnessProblems())),
                         [](const auto& info) { return caseName(info.param); });

}  // namespace
}  // namespace vkconv::test
