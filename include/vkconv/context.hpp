// A Context is one Vulkan device (and queue) that vkconv works on. It either creates the
// instance and device itself, or wraps handles the caller already has, without owning them.
#pragma once

#include <vulkan/vulkan.h>

#include <memory>
#include <optional>
#include <string>

#include "vkconv/device_info.hpp"
#include "vkconv/device_profile.hpp"

namespace vkconv {

namespace detail {
struct ContextImpl;
}

struct ContextOptions {
    int deviceIndex = -1;     // -1: the first GPU (discrete before integrated), else the first device
    bool validation = false;  // enable VK_LAYER_KHRONOS_validation; messages become errors
    std::optional<DeviceProfile> profile;  // narrow what the device offers (see device_profile.hpp)
    // Folder of the tuning cache and the pipeline cache; "": env VKCONV_CACHE_DIR, else
    // $XDG_CACHE_HOME/vkconv, else $HOME/.cache/vkconv (see tuning.hpp, pipeline_cache.hpp).
    std::string cacheDir;
    // Load and save the VkPipelineCache in cacheDir (env VKCONV_NO_PIPELINE_CACHE=1 turns it off).
    bool persistentPipelineCache = true;
    // Ask the driver for each pipeline's statistics (registers, spills, ...) through
    // VK_KHR_pipeline_executable_properties, for Conv2d::driverStatistics(). Kernel work only.
    bool pipelineStatistics = false;
};

class Context {
public:
    explicit Context(const ContextOptions& options = {});

    // Use the caller's Vulkan objects. They must outlive the Context and everything made from it.
    // The device must have been created with the features vkconv's paths need (each path that
    // lacks one is simply not offered): Vulkan 1.3 core, plus shaderFloat16 / 16-bit storage /
    // cooperativeMatrix for the fast path.
    static Context wrap(VkInstance instance, VkPhysicalDevice physicalDevice, VkDevice device,
                        VkQueue queue, uint32_t queueFamilyIndex,
                        const std::optional<DeviceProfile>& profile = std::nullopt);

    // Effective capabilities: the device's, narrowed by the profile if one was given.
    const DeviceInfo& device() const;

    // Validation messages seen so far (empty unless validation is on). Tests assert it is empty.
    size_t validationMessageCount() const;
    std::string lastValidationMessage() const;

    // For vkconv's own sources.
    const std::shared_ptr<detail::ContextImpl>& impl() const { return impl_; }

private:
    explicit Context(std::shared_ptr<detail::ContextImpl> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<detail::ContextImpl> impl_;
};

}  // namespace vkconv
