// The Vulkan devices the tests run on, and one shared Context per (device, options): creating a
// VkDevice is slow (lavapipe compiles its own start-up code), so every test reuses it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vkconv/context.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/device_profile.hpp"

namespace vkconv::test {

// Every device listDevices() reports, queried once. Empty (with listDevicesError() set) when no
// Vulkan loader or driver works; the suites then register one case that fails with that error.
const std::vector<DeviceInfo>& testDevices();
const std::string& listDevicesError();

// Device indices to parametrize over: 0..n-1, or {-1} when listing failed (the tests that get
// -1 fail with listDevicesError(), so a broken driver is never a silent pass).
std::vector<int> testDeviceIndices();

// The profile the chunking tests run under: a 1 MiB maxStorageBufferRange and a grid limited to
// 4 x 65535 x 2 workgroups, so small problems need several chunks and split dispatches.
const DeviceProfile& narrowProfile();

// A shared Context for device `index` with the given options (profile keyed by its name).
// Throws what Context's constructor threw, every time it is asked again.
struct SharedContext {
    Context* context;
    size_t creationMessages;      // validation messages seen while creating it
    std::string creationMessage;  // the last of them
};
SharedContext sharedContext(int index, bool validation = false,
                            const std::optional<DeviceProfile>& profile = std::nullopt);

// Destroys every shared Context (called once all tests are done, before static destruction).
void releaseSharedContexts();

// True when env CI is set (to anything but "" or "0"/"false"): missing tools fail, not skip.
bool inCi();

// True when env VKCONV_REQUIRE_COOPMAT=1: the fast path must run on cooperative matrices, so a
// device without them is a failure rather than a skip (scripts/test.sh sets it on Mesa 26).
bool requireCoopMat();

// In a test body: a device without cooperative matrices fails the test where
// VKCONV_REQUIRE_COOPMAT=1 says it must have them, else skips it, saying `what` needs them.
#define VKCONV_NEED_COOPMAT(device, what)                                                           \
    do {                                                                                            \
        if (!(device).coopMatKhr) {                                                                 \
            const std::string why_ = "no VK_KHR_cooperative_matrix on '" + (device).name + "': " + (what); \
            if (::vkconv::test::requireCoopMat()) FAIL() << why_;                                   \
            GTEST_SKIP() << why_;                                                                   \
        }                                                                                           \
    } while (0)

// Whether VK_LAYER_KHRONOS_validation is visible to the loader.
bool validationLayerInstalled();

}  // namespace vkconv::test
