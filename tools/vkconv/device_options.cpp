// Device flags: registration, Context creation, and the validation verdict.
#include "device_options.hpp"

#include "vkconv/error.hpp"

namespace vkconv::cli {

void addDeviceFlags(CLI::App& command, DeviceFlags& f) {
    command.add_option("--device", f.device, "device index, as `vkconv devices` lists them")
        ->type_name("N")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                // -1 is the "not given" default; a typed negative index is refused.
                return !text.empty() && text[0] == '-'
                           ? "'" + text + "' is not a device index (0, 1, ... as `vkconv devices` lists)"
                           : "";
            },
            ""));
    command.add_option("--profile", f.profile,
                       "narrow the device to a shipped profile (rtx4090, rdna3, intel-arc, mobile, "
                       "moltenvk, vulkan-minimum)")
        ->type_name("NAME");
    command.add_flag("--validation", f.validation,
                     "enable the Khronos validation layer; any message is a failure");
}

Context makeContext(const DeviceFlags& f, ContextOptions options) {
    options.deviceIndex = f.device;
    options.validation = f.validation;
    if (!f.profile.empty()) options.profile = DeviceProfile::byName(f.profile);
    return Context(options);
}

void requireNoValidationMessages(const DeviceFlags& f, const Context& context) {
    if (!f.validation) return;
    const size_t count = context.validationMessageCount();
    if (count == 0) return;
    throw Error(Error::Kind::Vulkan, "the validation layer reported " + std::to_string(count) +
                                         " message(s); the last: " + context.lastValidationMessage());
}

std::string describeDevice(const DeviceInfo& d) {
    return d.name + " [device " + std::to_string(d.index) + ", " + d.deviceType + ", " +
           d.driverName + (d.driverInfo.empty() ? "" : " " + d.driverInfo) + "]";
}

}  // namespace vkconv::cli
