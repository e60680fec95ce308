// How a driver statistic reads in Conv2d::driverStatistics() (kernel-lab --stats): NVIDIA's
// "Local Memory Size" is 2^36 plus a thread's local memory, which the raw number hides.
#include <gtest/gtest.h>

#include "runtime/pipeline.hpp"

namespace vkconv::test {
namespace {

TEST(PipelineStatistics, NvidiaLocalMemoryNamesTheBytesAThread) {
    EXPECT_EQ(detail::statisticValueText("Local Memory Size", 68719477056ull),
              "68719477056 (320 B local a thread)");
    EXPECT_EQ(detail::statisticValueText("Local Memory Size", 68719476736ull), "68719476736 (0 B local a thread)");
}

TEST(PipelineStatistics, OtherValuesStayAsTheDriverGaveThem) {
    EXPECT_EQ(detail::statisticValueText("Local Memory Size", 320), "320");
    EXPECT_EQ(detail::statisticValueText("Register Count", 68719477056ull), "68719477056");
    EXPECT_EQ(detail::statisticValueText("Register Count", 46), "46");
}

}  // namespace
}  // namespace vkconv::test
