// The device rules as data: the shipped tables parse, describe the devices they name, and a
// device no table describes (or one seen through a profile) gets the analytical fallback.
#include <gtest/gtest.h>

#include "described_devices.hpp"
#include "kernels/common/device_fill.hpp"
#include "kernels/common/device_rules.hpp"
#include "tuning_fakes.hpp"
#include "vkconv/device_profile.hpp"
#include "vkconv/error.hpp"

namespace vkconv {
namespace {

TEST(DeviceRules, ShippedTablesParse) {
    const auto& tables = detail::shippedDeviceRules();
    ASSERT_FALSE(tables.empty());
    for (const auto& t : tables) {
        SCOPED_TRACE(t.name);
        EXPECT_GT(t.calibrationUnits, 0);
        EXPECT_GT(t.workgroupSlots, 0);
        EXPECT_FALSE(t.matchedBy.empty());
        for (const auto& row : t.channelsLastTiles) EXPECT_GT(row.factor, 0);
    }
}

TEST(DeviceRules, TheDescribedH200GetsItsTable) {
    const DeviceInfo h200 = deviceInfoFromJson(kDescribedH200);
    const detail::DeviceRules& rules = detail::deviceRules(h200);
    EXPECT_EQ(rules.name, "nvidia-hopper");
    EXPECT_EQ(rules.channelsLastTiles.size(), 23u);
    // The fill model as the cost models were fitted: 512 workgroups on 132 compute units.
    EXPECT_DOUBLE_EQ(detail::workgroupSlots(h200), 512.0 * h200.computeUnits / 132.0);
}

TEST(DeviceRules, OtherDevicesAndProfilesGetTheFallback) {
    DeviceInfo other = fakeCoopMatDevice(false);
    other.vendorId = 0x1002, other.name = "AMD Radeon RX 7900 XTX", other.computeUnits = 96;
    EXPECT_EQ(detail::deviceRules(other).name, "analytical");
    EXPECT_TRUE(detail::deviceRules(other).channelsLastTiles.empty());
    EXPECT_DOUBLE_EQ(detail::workgroupSlots(other), 4.0 * 96);
    const DeviceInfo h200 = deviceInfoFromJson(kDescribedH200);
    for (const char* profile : {"rtx4090", "rdna3", "intel-arc"}) {
        SCOPED_TRACE(profile);
        EXPECT_EQ(detail::deviceRules(applyProfile(h200, DeviceProfile::byName(profile))).name, "analytical");
    }
}

// Every rule the cost models read is in the tables: a table that leaves a section out takes the
// defaults' (src/kernels/rules/defaults.json), and a factor no table holds is a bug, not a 1.0.
TEST(DeviceRules, TablesTakeTheDefaultsSectionsTheyLeaveOut) {
    DeviceInfo other = fakeCoopMatDevice(false);
    other.vendorId = 0x1002, other.name = "AMD Radeon RX 7900 XTX";
    const detail::DeviceRules& fallback = detail::deviceRules(other);
    const detail::DeviceRules& hopper = detail::deviceRules(deviceInfoFromJson(kDescribedH200));
    for (const detail::DeviceRules* r : {&fallback, &hopper}) {
        SCOPED_TRACE(r->name);
        EXPECT_EQ(r->nchwTiles.narrow.bn, 128u);
        EXPECT_GT(r->nchwTiles.wide.perUnit, 0);
        EXPECT_LT(r->deepPointwiseSplits.midGridFrom, r->deepPointwiseSplits.midGridTo);
        EXPECT_LT(r->deepPointwiseSplits.twoSplitsFrom, r->deepPointwiseSplits.twoSplitsTo);
        EXPECT_GT(r->splitKCost.kOverhead, 0);
        EXPECT_GT(r->groupedDirectFactor("strips"), 0);
        EXPECT_THROW((void)r->groupedDirectFactor("no such factor"), Error);
    }
    EXPECT_EQ(fallback.groupedDirect, hopper.groupedDirect);
    EXPECT_DOUBLE_EQ(fallback.splitKCost.perSplit, hopper.splitKCost.perSplit);
}

}  // namespace
}  // namespace vkconv
