#include "test_devices.hpp"

#include <vulkan/vulkan.h>

#include <array>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace vkconv::test {

namespace {

struct DeviceList {
    std::vector<DeviceInfo> devices;
    std::string error;
};

const DeviceList& deviceList() {
    static const DeviceList list = [] {
        DeviceList l;
        try {
            l.devices = listDevices();
            if (l.devices.empty()) l.error = "listDevices() found no Vulkan device";
        } catch (const std::exception& e) {
            l.error = std::string("listDevices() failed: ") + e.what();
        }
        return l;
    }();
    return list;
}

struct CacheEntry {
    std::unique_ptr<Context> context;
    std::exception_ptr error;
    size_t creationMessages = 0;
    std::string creationMessage;
};

std::mutex cacheMutex;
std::map<std::string, CacheEntry>& cache() {
    static auto* entries = new std::map<std::string, CacheEntry>();  // cleared by release
    return *entries;
}

bool envFlag(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::strcmp(v, "0") != 0 && std::strcmp(v, "false") != 0;
}

}  // namespace

const std::vector<DeviceInfo>& testDevices() { return deviceList().devices; }
const std::string& listDevicesError() { return deviceList().error; }

std::vector<int> testDeviceIndices() {
    std::vector<int> out;
    for (size_t i = 0; i < testDevices().size(); ++i) out.push_back(static_cast<int>(i));
    if (out.empty()) out.push_back(-1);
    return out;
}

const DeviceProfile& narrowProfile() {
    static const DeviceProfile profile = [] {
        DeviceProfile p;
        p.name = "narrow-1MiB";
        p.description = "1 MiB storage buffers, 4 x 65535 x 2 workgroups, 64-byte uniform buffers: forces "
                        "chunks and grid splits, and weights from storage buffers only";
        p.maxStorageBufferRange = 1ull << 20;
        p.maxUniformBufferRange = 64;
        p.maxWorkGroupCount = std::array<uint32_t, 3>{4, 65535, 2};
        return p;
    }();
    return profile;
}

SharedContext sharedContext(int index, bool validation, const std::optional<DeviceProfile>& profile) {
    if (index < 0) throw std::runtime_error(listDevicesError());
    const std::string key = std::to_string(index) + (validation ? "/validation" : "") + "/" +
                            (profile ? profile->name : std::string());
    std::lock_guard<std::mutex> lock(cacheMutex);
    auto [it, fresh] = cache().try_emplace(key);
    CacheEntry& entry = it->second;
    if (fresh) {
        try {
            ContextOptions options;
            options.deviceIndex = index;
            options.validation = validation;
            options.profile = profile;
            entry.context = std::make_unique<Context>(options);
            entry.creationMessages = entry.context->validationMessageCount();
            entry.creationMessage = entry.context->lastValidationMessage();
        } catch (...) {
            entry.error = std::current_exception();
        }
    }
    if (entry.error) std::rethrow_exception(entry.error);
    return {entry.context.get(), entry.creationMessages, entry.creationMessage};
}

void releaseSharedContexts() {
    std::lock_guard<std::mutex> lock(cacheMutex);
    cache().clear();
}

bool inCi() { return envFlag("CI"); }
bool requireCoopMat() { return envFlag("VKCONV_REQUIRE_COOPMAT"); }

bool validationLayerInstalled() {
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, nullptr) != VK_SUCCESS) return false;
    std::vector<VkLayerProperties> layers(n);
    if (vkEnumerateInstanceLayerProperties(&n, layers.data()) != VK_SUCCESS) return false;
    for (const auto& l : layers)
        if (std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0) return true;
    return false;
}

}  // namespace vkconv::test
