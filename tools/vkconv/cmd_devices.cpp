// `vkconv devices`: what each Vulkan device offers vkconv, as a table or JSON; with --profile,
// the capabilities vkconv would use under that profile; with --report, the paths available under
// every profile (devices_report.hpp).
#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "devices_report.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/device_profile.hpp"
#include "vkconv/error.hpp"

namespace vkconv::cli {

namespace {

struct DevicesFlags {
    bool json = false;
    std::string profile;
    bool report = false, run = false, validation = false;
    int device = -1;
};

std::string hex(uint32_t v) {
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}

std::string yesNo(bool b) { return b ? "yes" : "no"; }

struct ProfiledDevice {
    DeviceInfo info;
    std::vector<std::string> notes;  // what the profile could not narrow
};

void printTable(const std::vector<ProfiledDevice>& devices, const std::string& profile) {
    for (const auto& [d, notes] : devices) {
        std::cout << "Device " << d.index << ": " << d.name << "\n";
        auto row = [](const char* key, const std::string& value) {
            std::cout << "  " << std::left << std::setw(28) << key << value << "\n";
        };
        row("vendor", d.vendorName + " (" + hex(d.vendorId) + "), device id " + hex(d.deviceId));
        row("device type", d.deviceType);
        row("driver", d.driverName + (d.driverInfo.empty() ? "" : " " + d.driverInfo));
        row("Vulkan API", apiVersionString(d.apiVersion));
        row("subgroup size", std::to_string(d.subgroupSize) + " (range " +
                                 std::to_string(d.minSubgroupSize) + ".." +
                                 std::to_string(d.maxSubgroupSize) + ", size control " +
                                 yesNo(d.subgroupSizeControl) + ", full subgroups " +
                                 yesNo(d.computeFullSubgroups) + ")");
        row("shared memory / workgroup", std::to_string(d.maxSharedMemoryBytes) + " bytes");
        row("maxStorageBufferRange", std::to_string(d.maxStorageBufferRange) + " bytes");
        row("maxUniformBufferRange", std::to_string(d.maxUniformBufferRange) + " bytes");
        row("max workgroup invocations", std::to_string(d.maxWorkGroupInvocations));
        row("compute units", d.computeUnits ? std::to_string(d.computeUnits) : std::string("not reported"));
        row("fp16 / 16-bit storage", yesNo(d.shaderFloat16) + " / " + yesNo(d.storageBuffer16Bit));
        row("timestamps", d.timestampPeriodNs > 0 ? std::to_string(d.timestampValidBits) + " bits"
                                                  : std::string("no"));
        row("VK_KHR_cooperative_matrix", yesNo(d.coopMatKhr));
        if (d.coopMatShapes.empty()) {
            row("  shapes", "none");
        } else {
            for (size_t i = 0; i < d.coopMatShapes.size(); ++i)
                row(i == 0 ? "  shapes (MxNxK)" : "", d.coopMatShapes[i].str());
        }
        row("VK_NV_cooperative_matrix2", yesNo(d.coopMat2Nv));
        if (d.coopMat2Flexible) {
            if (d.coopMat2Workgroup)
                row("  workgroup scope", "max " + std::to_string(d.coopMat2MaxWorkgroupSize) +
                                         " invocations, max dimension " +
                                         std::to_string(d.coopMat2MaxDimension) + ", " +
                                         std::to_string(d.coopMat2ReservedSharedMemory) +
                                         " bytes of shared memory reserved");
            else
                row("  workgroup scope", "no");
            for (size_t i = 0; i < d.coopMat2Shapes.size(); ++i)
                row(i == 0 ? "  flexible (granularity)" : "", d.coopMat2Shapes[i].str());
        }
        if (!profile.empty()) {
            row("profile", profile + " (capabilities above are narrowed by it)");
            for (const auto& n : notes) row("  note", n);
        }
        std::cout << "\n";
    }
}

// The library's description of the device (deviceInfoToJson, which kernel-lab --device-file reads
// back), with the profile's notes.
nlohmann::json toJson(const ProfiledDevice& pd) {
    nlohmann::json out = nlohmann::json::parse(deviceInfoToJson(pd.info));
    out["profile_notes"] = pd.notes;
    return out;
}

int runDevices(const DevicesFlags& flags) {
    if (flags.report) {
        if (flags.json) throw Error(Error::Kind::InvalidArgument, "--report prints text only; leave out --json");
        return printDevicesReport({flags.run, flags.profile, flags.device, flags.validation});
    }
    if (flags.run || flags.validation || flags.device >= 0)
        throw Error(Error::Kind::InvalidArgument, std::string(flags.run ? "--run" : flags.validation ? "--validation" : "--device") +
                                                      " needs --report");
    // Look the profile up first: an unknown name is an error even with no device present.
    const DeviceProfile* profile = flags.profile.empty() ? nullptr : &DeviceProfile::byName(flags.profile);
    std::vector<ProfiledDevice> devices;
    for (const DeviceInfo& d : listDevices()) {
        ProfiledDevice pd;
        pd.info = profile ? applyProfile(d, *profile, &pd.notes) : d;
        devices.push_back(std::move(pd));
    }
    if (flags.json) {
        nlohmann::json out = {{"profile", flags.profile.empty() ? nlohmann::json() : nlohmann::json(flags.profile)},
                              {"devices", nlohmann::json::array()}};
        for (const auto& d : devices) out["devices"].push_back(toJson(d));
        std::cout << out.dump(2) << "\n";
    } else if (devices.empty()) {
        std::cout << "No Vulkan devices found.\n";
    } else {
        printTable(devices, flags.profile);
    }
    return kExitOk;
}

}  // namespace

void registerDevicesCommand(CLI::App& app, CommandAction& action) {
    auto flags = std::make_shared<DevicesFlags>();
    CLI::App* cmd = app.add_subcommand("devices", "list Vulkan devices and what they offer vkconv");
    cmd->add_flag("--json", flags->json, "machine-readable output");
    cmd->add_option("--profile", flags->profile,
                    "show the capabilities as narrowed by a shipped profile (rtx4090, rdna3, "
                    "intel-arc, mobile, moltenvk, vulkan-minimum)")
        ->type_name("NAME");
    cmd->add_flag("--report", flags->report,
                  "per device and profile (none and every shipped one, or --profile's): the effective "
                  "limits and shapes, which paths are available and alexnet1's configuration on each");
    cmd->add_flag("--run", flags->run,
                  "with --report: run a small problem set on every available path and count the passes");
    cmd->add_flag("--validation", flags->validation,
                  "with --report --run: under the Khronos validation layer; any message fails a problem");
    cmd->add_option("--device", flags->device, "with --report: only this device")->type_name("N");
    cmd->callback([flags, &action] { action = [flags] { return runDevices(*flags); }; });
}

}  // namespace vkconv::cli
