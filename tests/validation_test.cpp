// The validation-layer run: a representative subset of the correctness problems, both paths, on
// a Context with VK_LAYER_KHRONOS_validation (synchronization validation included). Any
// warning or error the layer reports fails the case. Without the layer the cases fail in CI
// (env CI set) and are skipped, with the reason, elsewhere.
#include <gtest/gtest.h>

#include "conv_check.hpp"
#include "test_devices.hpp"
#include "test_problems.hpp"

namespace vkconv::test {
namespace {

class ConvValidation : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvValidation, NoValidationMessages) {
    const ConvCase& c = GetParam();
    ASSERT_GE(c.device, 0) << listDevicesError();
    if (!validationLayerInstalled()) {
        const char* why = "VK_LAYER_KHRONOS_validation is not installed (Debian: "
                          "vulkan-validationlayers; scripts/setup.sh installs it)";
        if (inCi()) FAIL() << why << "; CI must run the validation tests";
        GTEST_SKIP() << why;
    }
    SharedContext shared{};
    try {
        shared = sharedContext(c.device, /*validation=*/true);
    } catch (const std::exception& e) {
        FAIL() << "creating a Context with validation on device " << c.device << " threw: " << e.what();
    }
    ASSERT_EQ(shared.creationMessages, 0u)
        << "validation messages while creating the Context; last: " << shared.creationMessage;

    const Context& context = *shared.context;
    const size_t before = context.validationMessageCount();
    CheckResult result;
    try {
        result = checkConv(context, c.problem, c.precision);
    } catch (const std::exception& e) {
        FAIL() << "problem " << c.problem.name << ": " << c.problem.problem.str()
               << "\n  precision " << precisionName(c.precision) << "\n  threw: " << e.what()
               << "\n  last validation message: " << context.lastValidationMessage();
    }
    // Checked before the skip: building a pipeline alone must not upset the layer either.
    const size_t messages = context.validationMessageCount() - before;
    EXPECT_EQ(messages, 0u) << result.report << "\n  last validation message: "
                            << context.lastValidationMessage();
    if (!result.ran) VKCONV_SKIP_UNAVAILABLE(result);
    EXPECT_LE(result.error, result.bound) << result.report;
}

INSTANTIATE_TEST_SUITE_P(Problems, ConvValidation, ::testing::ValuesIn(allCases(validationProblems())),
                         [](const auto& info) { return caseName(info.param); });

}  // namespace
}  // namespace vkconv::test
