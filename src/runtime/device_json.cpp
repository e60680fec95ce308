// DeviceInfo to and from JSON (device_info.hpp): the description `vkconv devices --json` prints,
// read back so that the configuration choice can be examined for a device that is not present.
#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/json_limits.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/error.hpp"

namespace vkconv {

namespace {

using nlohmann::json;

constexpr ScalarType kScalarTypes[] = {ScalarType::F16, ScalarType::F32, ScalarType::BF16, ScalarType::U8,
                                       ScalarType::S8,  ScalarType::U32, ScalarType::S32,  ScalarType::Other};

// One reader for every field: the JSON value at `key` into `field`, or an error naming the key.
class Reader {
public:
    Reader(const json& object, std::string where) : object_(object), where_(std::move(where)) {}

    const json& at(const char* key) const {
        if (!object_.contains(key)) throw invalidArgument(where_ + key, "missing", "every field of the description is needed");
        return object_.at(key);
    }
    [[noreturn]] void fail(const char* key, const char* expected) const {
        throw invalidArgument(where_ + key, detail::jsonExcerpt(at(key)), std::string("expected ") + expected);
    }
    void operator()(const char* key, bool& field) const {
        if (!at(key).is_boolean()) fail(key, "true or false");
        field = at(key).get<bool>();
    }
    void operator()(const char* key, uint32_t& field) const {
        if (!at(key).is_number_unsigned() || at(key).get<uint64_t>() > 0xffffffffull)
            fail(key, "an unsigned 32-bit integer");
        field = at(key).get<uint32_t>();
    }
    void operator()(const char* key, uint64_t& field) const {
        if (!at(key).is_number_unsigned()) fail(key, "an unsigned integer");
        field = at(key).get<uint64_t>();
    }
    void operator()(const char* key, float& field) const {
        if (!at(key).is_number()) fail(key, "a number");
        field = at(key).get<float>();
    }
    void operator()(const char* key, std::string& field) const {
        if (!at(key).is_string()) fail(key, "a string");
        field = at(key).get<std::string>();
    }
    void operator()(const char* key, std::array<uint32_t, 3>& field) const {
        const json& v = at(key);
        if (!v.is_array() || v.size() != 3) fail(key, "three unsigned 32-bit integers");
        for (size_t i = 0; i < 3; ++i) {
            if (!v[i].is_number_unsigned() || v[i].get<uint64_t>() > 0xffffffffull)
                fail(key, "three unsigned 32-bit integers");
            field[i] = v[i].get<uint32_t>();
        }
    }
    void operator()(const char* key, ScalarType& field) const {
        if (at(key).is_string())
            for (ScalarType t : kScalarTypes)
                if (at(key).get<std::string>() == toString(t)) {
                    field = t;
                    return;
                }
        fail(key, "f16, f32, bf16, u8, s8, u32, s32 or other");
    }

private:
    const json& object_;
    std::string where_;  // "device." or "device.cooperative_matrix_shapes[1]."
};

// What the description holds besides the lists of shapes, in one place for both directions.
template <class Device, class Visit>
void visitFields(Device& d, Visit&& f) {
    f("index", d.index);
    f("name", d.name);
    f("vendor", d.vendorName);
    f("vendor_id", d.vendorId);
    f("device_id", d.deviceId);
    f("device_type", d.deviceType);
    f("driver", d.driverName);
    f("driver_info", d.driverInfo);
    f("driver_version", d.driverVersion);
    f("profile", d.profile);
    f("subgroup_size", d.subgroupSize);
    f("min_subgroup_size", d.minSubgroupSize);
    f("max_subgroup_size", d.maxSubgroupSize);
    f("subgroup_size_control", d.subgroupSizeControl);
    f("compute_full_subgroups", d.computeFullSubgroups);
    f("max_shared_memory_bytes", d.maxSharedMemoryBytes);
    f("max_storage_buffer_range", d.maxStorageBufferRange);
    f("max_uniform_buffer_range", d.maxUniformBufferRange);
    f("min_storage_buffer_offset_alignment", d.minStorageBufferOffsetAlignment);
    f("max_memory_allocation_size", d.maxMemoryAllocationSize);
    f("device_local_bytes", d.deviceLocalBytes);
    f("max_workgroup_invocations", d.maxWorkGroupInvocations);
    f("max_workgroup_count", d.maxWorkGroupCount);
    f("compute_units", d.computeUnits);
    f("timestamp_valid_bits", d.timestampValidBits);
    f("timestamp_period_ns", d.timestampPeriodNs);
    f("shader_float16", d.shaderFloat16);
    f("storage_buffer_16bit", d.storageBuffer16Bit);
    f("shader_bfloat16", d.shaderBFloat16);
    f("vulkan_memory_model", d.vulkanMemoryModel);
    f("cooperative_matrix", d.coopMatKhr);
    f("nv_cooperative_matrix2", d.coopMat2Nv);
    f("nv_cooperative_matrix2_flexible", d.coopMat2Flexible);
    f("nv_cooperative_matrix2_workgroup", d.coopMat2Workgroup);
    f("nv_cooperative_matrix2_max_workgroup_size", d.coopMat2MaxWorkgroupSize);
    f("nv_cooperative_matrix2_max_dimension", d.coopMat2MaxDimension);
    f("nv_cooperative_matrix2_reserved_shared_memory", d.coopMat2ReservedSharedMemory);
}

// The fields of one cooperative-matrix shape (KHR, or VK_NV_cooperative_matrix2's flexible one).
template <class Shape, class Visit>
void visitShape(Shape& s, Visit&& f) {
    if constexpr (std::is_same_v<std::remove_const_t<Shape>, CoopMatShape>) {
        f("m", s.m);
        f("n", s.n);
        f("k", s.k);
    } else {
        f("m_granularity", s.mGranularity);
        f("n_granularity", s.nGranularity);
        f("k_granularity", s.kGranularity);
        f("workgroup_scope", s.workgroupScope);
        f("workgroup_invocations", s.workgroupInvocations);
    }
    f("a", s.a);
    f("b", s.b);
    f("c", s.c);
    f("result", s.result);
}

// A field as its JSON value: scalar types by name, the workgroup count as an array.
template <class Field>
json toJsonValue(const Field& field) {
    if constexpr (std::is_same_v<Field, ScalarType>)
        return toString(field);
    else if constexpr (std::is_same_v<Field, std::array<uint32_t, 3>>)
        return json::array({field[0], field[1], field[2]});
    else
        return field;
}

template <class Shape>
json shapeList(const std::vector<Shape>& shapes) {
    json list = json::array();
    for (const Shape& s : shapes) {
        json o = {{"str", s.str()}};
        visitShape(s, [&](const char* key, const auto& field) { o[key] = toJsonValue(field); });
        list.push_back(o);
    }
    return list;
}

template <class Shape>
std::vector<Shape> readShapeList(const Reader& read, const char* key) {
    const json& list = read.at(key);
    if (!list.is_array()) read.fail(key, "an array");
    std::vector<Shape> shapes;
    for (size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_object()) read.fail(key, "an array of objects");
        Shape s;
        visitShape(s, Reader(list[i], "device." + std::string(key) + "[" + std::to_string(i) + "]."));
        shapes.push_back(s);
    }
    return shapes;
}

std::string uuidHex(const std::array<uint8_t, 16>& uuid) {
    std::string s;
    char byte[3];
    for (uint8_t b : uuid) {
        std::snprintf(byte, sizeof byte, "%02x", b);
        s += byte;
    }
    return s;
}

}  // namespace

std::string deviceInfoToJson(const DeviceInfo& d) {
    json out = json::object();
    visitFields(d, [&](const char* key, const auto& field) { out[key] = toJsonValue(field); });
    out["api_version"] = apiVersionString(d.apiVersion);
    out["pipeline_cache_uuid"] = uuidHex(d.pipelineCacheUUID);
    out["cooperative_matrix_shapes"] = shapeList(d.coopMatShapes);
    out["nv_cooperative_matrix2_shapes"] = shapeList(d.coopMat2Shapes);
    out["is_cpu"] = d.isCpu();
    return out.dump(2);
}

DeviceInfo deviceInfoFromJson(const std::string& text, size_t index) {
    json j = detail::parseJson(text, "device description", detail::kDeviceJsonLimits, Error::Kind::InvalidArgument);
    // `vkconv devices --json`'s whole output: {"profile": ..., "devices": [...]}.
    if (j.is_object() && j.contains("devices")) {
        const json& devices = j.at("devices");
        if (!devices.is_array() || index >= devices.size())
            throw invalidArgument("devices[" + std::to_string(index) + "]", "missing",
                                  "the description holds " + std::to_string(devices.is_array() ? devices.size() : 0) +
                                      " device(s)");
        j = json(devices.at(index));
    } else if (index != 0) {
        throw invalidArgument("devices[" + std::to_string(index) + "]", "missing", "the description is of one device");
    }
    if (!j.is_object()) throw invalidArgument("device", detail::jsonExcerpt(j), "expected an object");
    DeviceInfo d;
    const Reader read(j, "device.");
    visitFields(d, read);

    std::string api;
    read("api_version", api);
    unsigned major = 0, minor = 0, patch = 0;
    char end = 0;
    if (std::sscanf(api.c_str(), "%u.%u.%u%c", &major, &minor, &patch, &end) != 3 || minor > 0x3ff || patch > 0xfff)
        read.fail("api_version", "MAJOR.MINOR.PATCH");
    d.apiVersion = (major << 22) | (minor << 12) | patch;

    std::string uuid;
    read("pipeline_cache_uuid", uuid);
    if (uuid.size() != 32 || uuid.find_first_not_of("0123456789abcdef") != std::string::npos)
        read.fail("pipeline_cache_uuid", "32 lower-case hex digits");
    for (size_t i = 0; i < 16; ++i) d.pipelineCacheUUID[i] = uint8_t(std::stoul(uuid.substr(2 * i, 2), nullptr, 16));

    d.coopMatShapes = readShapeList<CoopMatShape>(read, "cooperative_matrix_shapes");
    d.coopMat2Shapes = readShapeList<FlexibleCoopMatShape>(read, "nv_cooperative_matrix2_shapes");
    return d;
}

}  // namespace vkconv
