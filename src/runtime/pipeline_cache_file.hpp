// The file behind a Context's VkPipelineCache. vkconv wraps the driver's data in its own small
// header (magic, format version, driver version, payload size and FNV-1a hash), so that a
// truncated or damaged file is recognised before the driver sees it; the driver's own header
// (VkPipelineCacheHeaderVersionOne: vendor, device, pipelineCacheUUID) is checked as well.
#pragma once

#include <string>

#include "vkconv/device_info.hpp"

namespace vkconv::detail {

// "pipelines-10de-2335-<uuid hex>.bin"
std::string pipelineCacheFileName(const DeviceInfo& hardware);

// The driver's data from `path`, or "" if the file is absent or not valid for `hardware`;
// `note` says which ("loaded 123456 bytes", "no file yet", "... ignored").
std::string loadPipelineCacheData(const std::string& path, const DeviceInfo& hardware, std::string& note);

// Wraps `driverData` and writes it atomically. Throws vkconv::Error(Io).
void savePipelineCacheData(const std::string& path, const DeviceInfo& hardware, const std::string& driverData);

}  // namespace vkconv::detail
