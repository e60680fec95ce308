// DeviceInfo to JSON and back (deviceInfoToJson / deviceInfoFromJson): what kernel-lab
// --device-file plans from must be the device that was described, and a bad description an error
// that names the field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "vkconv/error.hpp"
#include "tuning_fakes.hpp"

namespace vkconv {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

DeviceInfo describedFake() {
    DeviceInfo d = fakeCoopMatDevice(/*mesaLike=*/false);
    d.index = 1, d.vendorName = "NVIDIA", d.driverName = "NVIDIA", d.driverInfo = "580.1";
    d.apiVersion = (1u << 22) | (4u << 12) | 312u;
    d.profile = "rtx4090";
    d.maxUniformBufferRange = 65536, d.minStorageBufferOffsetAlignment = 16;
    d.maxMemoryAllocationSize = 4ull << 30, d.deviceLocalBytes = 140ull << 30;
    d.computeUnits = 132, d.timestampPeriodNs = 1.5f, d.timestampValidBits = 64;
    d.shaderBFloat16 = d.vulkanMemoryModel = true;
    d.coopMatShapes.push_back({16, 16, 16, ScalarType::BF16, ScalarType::BF16, ScalarType::F32, ScalarType::F32});
    d.coopMat2Nv = d.coopMat2Flexible = d.coopMat2Workgroup = true;
    d.coopMat2Shapes.push_back({16, 16, 16, ScalarType::F16, ScalarType::F16, ScalarType::F32, ScalarType::F32, true, 256});
    d.coopMat2MaxWorkgroupSize = 256, d.coopMat2MaxDimension = 1024, d.coopMat2ReservedSharedMemory = 8192;
    return d;
}

TEST(DeviceJson, ReadsBackWhatItWrote) {
    const DeviceInfo d = describedFake();
    const std::string text = deviceInfoToJson(d);
    const DeviceInfo back = deviceInfoFromJson(text);
    EXPECT_EQ(deviceInfoToJson(back), text);
    // Field by field, so that a field both directions left out cannot pass unseen.
    EXPECT_EQ(back.index, 1u);
    EXPECT_EQ(back.name, d.name);
    EXPECT_EQ(back.vendorId, d.vendorId);
    EXPECT_EQ(back.deviceId, d.deviceId);
    EXPECT_EQ(back.deviceType, "discrete GPU");
    EXPECT_EQ(back.driverVersion, d.driverVersion);
    EXPECT_EQ(back.apiVersion, d.apiVersion);
    EXPECT_EQ(back.pipelineCacheUUID, d.pipelineCacheUUID);
    EXPECT_EQ(back.profile, "rtx4090");
    EXPECT_EQ(back.subgroupSize, 32u);
    EXPECT_TRUE(back.subgroupSizeControl && back.computeFullSubgroups);
    EXPECT_EQ(back.maxSharedMemoryBytes, 48u * 1024);
    EXPECT_EQ(back.maxStorageBufferRange, d.maxStorageBufferRange);
    EXPECT_EQ(back.minStorageBufferOffsetAlignment, 16u);
    EXPECT_EQ(back.maxMemoryAllocationSize, d.maxMemoryAllocationSize);
    EXPECT_EQ(back.deviceLocalBytes, d.deviceLocalBytes);
    EXPECT_EQ(back.maxWorkGroupCount, d.maxWorkGroupCount);
    EXPECT_EQ(back.maxWorkGroupInvocations, 1024u);
    EXPECT_EQ(back.computeUnits, 132u);
    EXPECT_EQ(back.timestampPeriodNs, 1.5f);
    EXPECT_TRUE(back.shaderFloat16 && back.storageBuffer16Bit && back.shaderBFloat16 && back.vulkanMemoryModel);
    EXPECT_TRUE(back.coopMatKhr && back.coopMat2Nv && back.coopMat2Flexible && back.coopMat2Workgroup);
    ASSERT_EQ(back.coopMatShapes.size(), 3u);
    EXPECT_EQ(back.coopMatShapes[1].str(), "16x8x16 f16*f16+f32->f32");
    EXPECT_EQ(back.coopMatShapes[2].str(), "16x16x16 bf16*bf16+f32->f32");
    ASSERT_EQ(back.coopMat2Shapes.size(), 1u);
    EXPECT_EQ(back.coopMat2Shapes[0].str(), "16x16x16 f16*f16+f32->f32 workgroup 256");
    EXPECT_EQ(back.coopMat2ReservedSharedMemory, 8192u);
}

// Replaces (or with a null value removes) one field of the fake's description and reads it back.
std::string readError(const std::string& pointer, const json& value) {
    json doc = json::parse(deviceInfoToJson(describedFake()));
    if (value.is_null())
        doc[json::json_pointer(pointer).parent_pointer()].erase(json::json_pointer(pointer).back());
    else
        doc[json::json_pointer(pointer)] = value;
    try {
        deviceInfoFromJson(doc.dump());
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::InvalidArgument);
        return e.what();
    }
    return "no error";
}

TEST(DeviceJson, ABadDescriptionNamesTheField) {
    EXPECT_THAT(readError("/compute_units", nullptr), HasSubstr("device.compute_units = missing"));
    EXPECT_THAT(readError("/compute_units", "many"), HasSubstr("device.compute_units = \"many\""));
    EXPECT_THAT(readError("/compute_units", -1), HasSubstr("device.compute_units = -1"));
    EXPECT_THAT(readError("/cooperative_matrix", 1), HasSubstr("device.cooperative_matrix = 1: expected true or false"));
    EXPECT_THAT(readError("/max_workgroup_count", json::array({1, 2})), HasSubstr("device.max_workgroup_count"));
    EXPECT_THAT(readError("/api_version", "1.x"), HasSubstr("device.api_version = \"1.x\""));
    EXPECT_THAT(readError("/pipeline_cache_uuid", "abc"), HasSubstr("device.pipeline_cache_uuid"));
    EXPECT_THAT(readError("/cooperative_matrix_shapes/1/a", "f64"),
                HasSubstr("device.cooperative_matrix_shapes[1].a = \"f64\""));
    EXPECT_THAT(readError("/nv_cooperative_matrix2_shapes/0/workgroup_scope", nullptr),
                HasSubstr("device.nv_cooperative_matrix2_shapes[0].workgroup_scope = missing"));
    EXPECT_THAT(readError("/cooperative_matrix_shapes", "none"), HasSubstr("device.cooperative_matrix_shapes"));
    EXPECT_THROW(deviceInfoFromJson("{not json"), Error);
    EXPECT_THROW(deviceInfoFromJson("[1, 2]"), Error);
}

// `vkconv devices --json`'s whole output reads by device index; one device object only at index 0.
TEST(DeviceJson, ReadsADeviceOfTheDevicesList) {
    const json one = json::parse(deviceInfoToJson(describedFake()));
    json two = one;
    two["name"] = "Second GPU";
    const std::string list = json{{"profile", nullptr}, {"devices", {one, two}}}.dump();
    EXPECT_EQ(deviceInfoFromJson(list).name, "Fake GPU");
    EXPECT_EQ(deviceInfoFromJson(list, 1).name, "Second GPU");
    try {
        deviceInfoFromJson(list, 2);
        ADD_FAILURE() << "index 2 of 2 devices read";
    } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("devices[2] = missing: the description holds 2 device(s)"));
    }
    EXPECT_THROW(deviceInfoFromJson(one.dump(), 1), Error);
}

// The H200's description (bench/devices/nvidia-h200.json) reads as the machine reported it.
TEST(DeviceJson, DescribedH200) {
    const DeviceInfo h200 = describedH200();
    EXPECT_EQ(h200.name, "NVIDIA H200");
    EXPECT_EQ(h200.computeUnits, 132u);
    EXPECT_EQ(h200.subgroupSize, 32u);
    EXPECT_EQ(h200.maxSharedMemoryBytes, 48u * 1024);
    EXPECT_FALSE(h200.isCpu());
    bool f16f32 = false;
    for (const CoopMatShape& s : h200.coopMatShapes) f16f32 |= s.str() == "16x16x16 f16*f16+f32->f32";
    EXPECT_TRUE(f16f32);
}

}  // namespace
}  // namespace vkconv
