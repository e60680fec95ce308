// vkconv_tests' main: runs every suite, then destroys the shared Contexts while the Vulkan
// loader and driver are still fully alive (not during static destruction).
#include <gtest/gtest.h>

#include <cstdlib>

#include "test_devices.hpp"

int main(int argc, char** argv) {
    // The validation layer reports each message at most 10 times per instance by default; the
    // validation cases share one instance and count messages per case, so a repeated message
    // would pass every case after the tenth. Unless the caller chose a limit, make it unlimited.
    setenv("VK_LAYER_DUPLICATE_MESSAGE_LIMIT", "2147483647", /*overwrite=*/0);
    ::testing::InitGoogleTest(&argc, argv);
    const int result = RUN_ALL_TESTS();
    vkconv::test::releaseSharedContexts();
    return result;
}
