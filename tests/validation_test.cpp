// The validation-layer run: a representative subset of the correctness problems, both paths, on
// a Context with VK_LAYER_KHRONOS_validation (synchronization validation included). Any
// warning or error the layer reports fails the case. Without the layer the cases fail in CI
// (env CI set) and are skipped, with the reason, elsewhere.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/context_impl.hpp"  // src/: the VkDevice, for the positive control below
#include "conv_check.hpp"
#include "test_devices.hpp"
#include "test_problems.hpp"

namespace vkconv::test {
namespace {

// Without the layer: a failure in CI, a skip (with the reason) elsewhere.
#define VKCONV_REQUIRE_VALIDATION_LAYER()                                                        \
    do {                                                                                         \
        if (!validationLayerInstalled()) {                                                       \
            const char* why = "VK_LAYER_KHRONOS_validation is not installed (Debian: "           \
                              "vulkan-validationlayers; scripts/setup.sh installs it)";          \
            if (inCi()) FAIL() << why << "; CI must run the validation tests";                  \
            GTEST_SKIP() << why;                                                                 \
        }                                                                                        \
    } while (0)

// The positive control: invalid usage on a validation Context's device must be counted, or a
// broken messenger would let every case below pass without checking anything.
class ValidationLayer : public ::testing::TestWithParam<int> {};

TEST_P(ValidationLayer, CountsInvalidUsage) {
    ASSERT_GE(GetParam(), 0) << listDevicesError();
    VKCONV_REQUIRE_VALIDATION_LAYER();
    ContextOptions options;
    options.deviceIndex = GetParam();
    options.validation = true;
    Context context(options);
    ASSERT_EQ(context.validationMessageCount(), 0u) << context.lastValidationMessage();
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = 256;
    info.usage = 0;  // invalid: VUID-VkBufferCreateInfo-usage-requiredbitmask
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer buffer = VK_NULL_HANDLE;
    const VkDevice device = context.impl()->device;
    vkCreateBuffer(device, &info, nullptr, &buffer);
    if (buffer != VK_NULL_HANDLE) vkDestroyBuffer(device, buffer, nullptr);
    EXPECT_GE(context.validationMessageCount(), 1u);
    EXPECT_THAT(context.lastValidationMessage(), ::testing::HasSubstr("usage"));
}

INSTANTIATE_TEST_SUITE_P(Devices, ValidationLayer, ::testing::ValuesIn(testDeviceIndices()),
                         [](const auto& info) {
                             return info.param < 0 ? std::string("nodevice")
                                                   : "dev" + std::to_string(info.param);
                         });

class ConvValidation : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvValidation, NoValidationMessages) {
    const ConvCase& c = GetParam();
    ASSERT_GE(c.device, 0) << listDevicesError();
    VKCONV_REQUIRE_VALIDATION_LAYER();
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
        result = checkConv(context, c.problem, c.variant);
    } catch (const std::exception& e) {
        FAIL() << "problem " << c.problem.name << ": " << c.problem.problem.str()
               << "\n  variant " << variantName(c.variant) << "\n  threw: " << e.what()
               << "\n  last validation message: " << context.lastValidationMessage();
    }
    // Checked before the skip: building a pipeline alone must not upset the layer either.
    const size_t messages = context.validationMessageCount() - before;
    EXPECT_EQ(messages, 0u) << result.report << "\n  last validation message: "
                            << context.lastValidationMessage();
    if (!result.ran) VKCONV_SKIP_UNAVAILABLE(result);
    VKCONV_EXPECT_CHECK_PASSED(result);
}

INSTANTIATE_TEST_SUITE_P(Problems, ConvValidation, ::testing::ValuesIn(allCases(validationProblems())),
                         [](const auto& info) { return caseName(info.param); });

}  // namespace
}  // namespace vkconv::test
