// Made-up devices and problems for the tuning tests (no GPU needed).
#pragma once

#include <vector>

#include "described_devices.hpp"
#include "vkconv/conv_problem.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv {

inline DeviceInfo fakeDevice(uint32_t driverVersion = 0x01020304, uint8_t uuidByte = 0xab) {
    DeviceInfo d;
    d.name = "Fake GPU";
    d.vendorId = 0x10de, d.deviceId = 0x2335, d.driverVersion = driverVersion;
    d.pipelineCacheUUID.fill(uuidByte);
    d.deviceType = "discrete GPU";
    d.subgroupSize = d.minSubgroupSize = d.maxSubgroupSize = 32;
    d.subgroupSizeControl = d.computeFullSubgroups = true;
    d.maxSharedMemoryBytes = 48 * 1024;
    d.maxWorkGroupInvocations = 1024;
    d.maxWorkGroupCount = {65535, 65535, 65535};
    d.maxStorageBufferRange = 1u << 30;
    return d;
}

// A device with cooperative matrices: f16 16x16x16 and 16x8x16 (NVIDIA-like) or 8x8x8 (Mesa 26).
inline DeviceInfo fakeCoopMatDevice(bool mesaLike) {
    DeviceInfo d = fakeDevice();
    d.shaderFloat16 = d.storageBuffer16Bit = d.coopMatKhr = true;
    if (mesaLike) d.subgroupSize = d.minSubgroupSize = d.maxSubgroupSize = 8;
    auto shape = [](uint32_t m, uint32_t n, uint32_t k) {
        return CoopMatShape{m, n, k, ScalarType::F16, ScalarType::F16, ScalarType::F32, ScalarType::F32};
    };
    d.coopMatShapes = mesaLike ? std::vector<CoopMatShape>{shape(8, 8, 8)}
                               : std::vector<CoopMatShape>{shape(16, 16, 16), shape(16, 8, 16)};
    return d;
}

// The H200 as `vkconv devices --json` described it there (bench/devices/nvidia-h200.json): its
// own shapes (16x8x8 and f16 accumulators besides the fake's two), 132 compute units.
inline DeviceInfo describedH200() {
    return deviceInfoFromJson(kDescribedH200);
}

// A small fp32 GEMM configuration every device runs: BM x BN x 8, TM x TN a thread.
inline KernelConfig fp32Config(uint32_t bm = 64, uint32_t bn = 32, uint32_t tm = 4, uint32_t tn = 2) {
    KernelConfig c;
    c.path = Path::Fp32;
    c.bm = bm, c.bn = bn, c.bk = 8;
    c.params = Fp32GemmKernel{tm, tn};
    return c;
}

inline ConvProblem smallProblem() {
    ConvProblem p;
    p.batch = 2, p.inChannels = 16, p.height = 20, p.width = 20, p.outChannels = 32;
    p.kernelH = p.kernelW = 3, p.padH = p.padW = 1;
    return p;
}

}  // namespace vkconv
