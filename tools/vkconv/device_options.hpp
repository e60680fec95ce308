// The command-line flags that choose and set up the Vulkan device (--device, --profile,
// --validation), shared by every subcommand that runs work on a device.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "vkconv/context.hpp"

namespace vkconv::cli {

struct DeviceFlags {
    int device = -1;  // when --device is absent: the library's choice (first GPU)
    std::string profile;
    bool validation = false;
};

// Adds --device --profile --validation to `command`, bound to `flags`.
void addDeviceFlags(CLI::App& command, DeviceFlags& flags);

// The Context the flags ask for, on top of `base` (e.g. its cache options). Throws vkconv::Error
// (unknown profile, no such device, ...).
Context makeContext(const DeviceFlags& flags, ContextOptions base = {});

// With --validation: throws vkconv::Error if the validation layer reported anything.
void requireNoValidationMessages(const DeviceFlags& flags, const Context& context);

// "llvmpipe (LLVM 15.0.6, 256 bits) [device 0, CPU]" for the top of a report.
std::string describeDevice(const DeviceInfo& device);

}  // namespace vkconv::cli
