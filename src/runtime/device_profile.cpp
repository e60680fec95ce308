// The shipped device profiles and how a profile narrows a device.
#include "vkconv/device_profile.hpp"

#include <algorithm>

#include "vkconv/error.hpp"

namespace vkconv {

namespace {

CoopMatShape f16Shape(uint32_t m, uint32_t n, uint32_t k, ScalarType acc) {
    CoopMatShape s;
    s.m = m, s.n = n, s.k = k;
    s.a = s.b = ScalarType::F16;
    s.c = s.result = acc;
    return s;
}

std::vector<CoopMatShape> f16Shapes(std::initializer_list<std::array<uint32_t, 3>> mnk) {
    std::vector<CoopMatShape> out;
    for (auto [m, n, k] : mnk) {
        out.push_back(f16Shape(m, n, k, ScalarType::F32));
        out.push_back(f16Shape(m, n, k, ScalarType::F16));
    }
    return out;
}

std::vector<DeviceProfile> makeBuiltins() {
    std::vector<DeviceProfile> v;
    DeviceProfile p;

    p = {};
    p.name = "rtx4090";
    p.description = "NVIDIA RTX 4090 (Ada): 48 KB shared memory, subgroup 32, fp16 16x16x16/16x8x16/16x8x8";
    p.minSubgroupSize = p.maxSubgroupSize = 32;
    p.maxSharedMemoryBytes = 49152;
    p.maxWorkGroupInvocations = 1024;
    p.coopMatShapes = f16Shapes({{16, 16, 16}, {16, 8, 16}, {16, 8, 8}});
    v.push_back(p);

    p = {};
    p.name = "rdna3";
    p.description = "AMD RDNA3: 64 KB shared memory, subgroup 32/64, fp16 16x16x16";
    p.minSubgroupSize = 32;
    p.maxSubgroupSize = 64;
    p.maxSharedMemoryBytes = 65536;
    p.maxWorkGroupInvocations = 1024;
    p.coopMatShapes = f16Shapes({{16, 16, 16}});
    p.coopMat2Nv = false;
    v.push_back(p);

    p = {};
    p.name = "intel-arc";
    p.description = "Intel Arc (Xe-HPG): 64 KB shared memory, subgroup 8-32, fp16 8x8x16/8x16x16";
    p.minSubgroupSize = 8;
    p.maxSubgroupSize = 32;
    p.maxSharedMemoryBytes = 65536;
    p.maxWorkGroupInvocations = 1024;
    p.coopMatShapes = f16Shapes({{8, 8, 16}, {8, 16, 16}});
    p.coopMat2Nv = false;
    v.push_back(p);

    p = {};
    p.name = "mobile";
    p.description = "A mobile GPU (Mali/Adreno class): no cooperative matrices, 16 KB shared memory, "
                    "subgroup 16, 128 MiB buffers, 256 invocations";
    p.minSubgroupSize = p.maxSubgroupSize = 16;
    p.maxSharedMemoryBytes = 16384;
    p.maxStorageBufferRange = 128ull << 20;
    p.maxWorkGroupInvocations = 256;
    p.coopMatKhr = false;
    p.coopMat2Nv = false;
    v.push_back(p);

    p = {};
    p.name = "moltenvk";
    p.description = "Apple GPUs through MoltenVK: no cooperative matrices, 32 KB shared memory, subgroup 32";
    p.minSubgroupSize = p.maxSubgroupSize = 32;
    p.maxSharedMemoryBytes = 32768;
    p.maxWorkGroupInvocations = 1024;
    p.coopMatKhr = false;
    p.coopMat2Nv = false;
    v.push_back(p);

    p = {};
    p.name = "vulkan-minimum";
    p.description = "The Vulkan 1.3 spec minimums: 16 KB shared memory, 2^27-byte storage buffers, "
                    "16 KB uniform buffers, 65535 workgroups per dimension, 128 invocations, no fp16, "
                    "no cooperative matrices";
    p.maxSharedMemoryBytes = 16384;
    p.maxStorageBufferRange = 1ull << 27;
    p.maxUniformBufferRange = 16384;
    p.maxWorkGroupCount = std::array<uint32_t, 3>{65535, 65535, 65535};
    p.maxWorkGroupInvocations = 128;
    p.shaderFloat16 = false;
    p.shaderBFloat16 = false;
    p.coopMatKhr = false;
    p.coopMat2Nv = false;
    v.push_back(p);
    return v;
}

bool sameShape(const CoopMatShape& a, const CoopMatShape& b) {
    return a.m == b.m && a.n == b.n && a.k == b.k && a.a == b.a && a.b == b.b && a.c == b.c &&
           a.result == b.result;
}

}  // namespace

const std::vector<DeviceProfile>& DeviceProfile::builtin() {
    static const std::vector<DeviceProfile> profiles = makeBuiltins();  // immutable after init
    return profiles;
}

const DeviceProfile& DeviceProfile::byName(const std::string& name) {
    std::string known;
    for (const auto& p : builtin()) {
        if (p.name == name) return p;
        known += (known.empty() ? "" : ", ") + p.name;
    }
    throw invalidArgument("profile", name, "unknown; shipped profiles: " + known);
}

DeviceInfo applyProfile(const DeviceInfo& d, const DeviceProfile& p, std::vector<std::string>* notes) {
    DeviceInfo e = d;
    // Named in the view, so that what is measured through it (the tuning cache) is kept apart
    // from what the device measures as it is.
    const std::string name = p.name.empty() ? "unnamed" : p.name;
    e.profile = d.profile.empty() ? name : d.profile + "+" + name;
    auto note = [&](const std::string& s) {
        if (notes) notes->push_back(s);
    };
    // Subgroup sizes: intersect the ranges. A device cannot run a size outside its own range.
    const uint32_t lo = std::max(d.minSubgroupSize, p.minSubgroupSize.value_or(0));
    const uint32_t hi = std::min(d.maxSubgroupSize, p.maxSubgroupSize.value_or(~0u));
    if (lo <= hi) {
        e.minSubgroupSize = lo;
        e.maxSubgroupSize = hi;
        if (d.subgroupSize < lo || d.subgroupSize > hi) {
            if (d.subgroupSizeControl) {
                e.subgroupSize = lo;
            } else {
                e.minSubgroupSize = e.maxSubgroupSize = d.subgroupSize;
                note("subgroup size: device cannot choose its size; keeping " + std::to_string(d.subgroupSize));
            }
        }
        if (e.minSubgroupSize == e.maxSubgroupSize) e.subgroupSizeControl &= d.subgroupSize != e.minSubgroupSize;
    } else {
        note("subgroup size: profile range [" + std::to_string(p.minSubgroupSize.value_or(0)) + "," +
             std::to_string(p.maxSubgroupSize.value_or(0)) + "] is outside the device's [" +
             std::to_string(d.minSubgroupSize) + "," + std::to_string(d.maxSubgroupSize) +
             "]; keeping the device's");
    }
    if (p.maxSharedMemoryBytes) e.maxSharedMemoryBytes = std::min(d.maxSharedMemoryBytes, *p.maxSharedMemoryBytes);
    if (p.maxStorageBufferRange) e.maxStorageBufferRange = std::min(d.maxStorageBufferRange, *p.maxStorageBufferRange);
    if (p.maxUniformBufferRange) e.maxUniformBufferRange = std::min(d.maxUniformBufferRange, *p.maxUniformBufferRange);
    if (p.maxWorkGroupCount)
        for (int i = 0; i < 3; ++i) e.maxWorkGroupCount[i] = std::min(d.maxWorkGroupCount[i], (*p.maxWorkGroupCount)[i]);
    if (p.maxWorkGroupInvocations)
        e.maxWorkGroupInvocations = std::min(d.maxWorkGroupInvocations, *p.maxWorkGroupInvocations);
    if (p.shaderFloat16) e.shaderFloat16 = d.shaderFloat16 && *p.shaderFloat16;
    if (p.shaderBFloat16) e.shaderBFloat16 = d.shaderBFloat16 && *p.shaderBFloat16;
    if (p.coopMatKhr) e.coopMatKhr = d.coopMatKhr && *p.coopMatKhr;
    if (p.coopMat2Nv) e.coopMat2Nv = d.coopMat2Nv && *p.coopMat2Nv;
    if (p.coopMatShapes) {
        e.coopMatShapes.clear();
        for (const auto& s : d.coopMatShapes)
            for (const auto& q : *p.coopMatShapes)
                if (sameShape(s, q)) e.coopMatShapes.push_back(s);
        if (e.coopMatShapes.empty() && d.coopMatKhr)
            note("cooperative-matrix shapes: none of the profile's shapes is on this device");
    }
    if (!e.coopMatKhr) e.coopMatShapes.clear();
    if (!e.coopMatKhr || !e.coopMat2Nv) {
        e.coopMat2Flexible = e.coopMat2Workgroup = false;
        e.coopMat2Shapes.clear();
    }
    if (!p.name.empty()) e.name = d.name + " [profile " + p.name + "]";
    return e;
}

}  // namespace vkconv
