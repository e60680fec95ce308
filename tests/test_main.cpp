// vkconv_tests' main: runs every suite, then destroys the shared Contexts while the Vulkan
// loader and driver are still fully alive (not during static destruction).
#include <gtest/gtest.h>

#include "test_devices.hpp"

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    const int result = RUN_ALL_TESTS();
    vkconv::test::releaseSharedContexts();
    return result;
}
