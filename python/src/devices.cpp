// vkconv.devices(), DeviceInfo, Context, profiles(), default_context().
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <nanobind/stl/map.h>

#include <map>
#include <mutex>

#include "bindings.hpp"
#include "py_context.hpp"
#include "vkconv/device_profile.hpp"
#include "vkconv/error.hpp"
#include "vkconv/pipeline_cache.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv::python {

namespace {

std::vector<std::string> shapeStrings(const DeviceInfo& d) {
    std::vector<std::string> out;
    for (const auto& s : d.coopMatShapes) out.push_back(s.str());
    return out;
}

PyContext makeContext(std::optional<int> device, std::optional<std::string> profile, bool validation,
                      std::optional<std::string> cacheDir) {
    ContextOptions o;
    if (device) {
        if (*device < 0) throw invalidArgument("device", *device, "expected a device index >= 0 (vkconv.devices()[i].index) or None");
        o.deviceIndex = *device;
    }
    if (profile && !profile->empty()) o.profile = DeviceProfile::byName(*profile);
    o.validation = validation;
    o.cacheDir = cacheDir.value_or("");
    nb::gil_scoped_release release;  // instance and device creation: milliseconds to seconds
    return PyContext{Context(o), o.cacheDir, profile.value_or("")};
}

}  // namespace

nb::object defaultContext() {
    nb::module_ m = nb::module_::import_("vkconv");
    nb::object existing = nb::getattr(m, "_default_context", nb::none());
    if (!existing.is_none()) return existing;
    // Making a context releases the GIL, so the GIL alone cannot make "look, then make" one step:
    // the first callers serialise on this mutex. It is taken without the GIL (a thread waiting for
    // it while holding the GIL would block the maker from taking the GIL back).
    static std::mutex making;
    std::unique_lock<std::mutex> lock(making, std::defer_lock);
    {
        nb::gil_scoped_release release;
        lock.lock();
    }
    existing = nb::getattr(m, "_default_context", nb::none());
    if (!existing.is_none()) return existing;
    nb::object made = nb::cast(makeContext(std::nullopt, std::nullopt, false, std::nullopt));
    m.attr("_default_context") = made;
    return made;
}

void bindDevices(nb::module_& m) {
    nb::class_<DeviceInfo>(m, "DeviceInfo",
                           "What a Vulkan device offers vkconv (after a Context's profile, if any).")
        .def_ro("index", &DeviceInfo::index, "position in the loader's device order: Context(device=index)")
        .def_ro("name", &DeviceInfo::name)
        .def_ro("vendor_id", &DeviceInfo::vendorId)
        .def_ro("device_id", &DeviceInfo::deviceId)
        .def_ro("vendor_name", &DeviceInfo::vendorName)
        .def_ro("device_type", &DeviceInfo::deviceType, "'discrete GPU', 'integrated GPU', 'CPU', ...")
        .def_ro("driver_name", &DeviceInfo::driverName)
        .def_ro("driver_info", &DeviceInfo::driverInfo)
        .def_ro("driver_version", &DeviceInfo::driverVersion)
        .def_prop_ro("api_version", [](const DeviceInfo& d) { return apiVersionString(d.apiVersion); })
        .def_ro("subgroup_size", &DeviceInfo::subgroupSize)
        .def_ro("min_subgroup_size", &DeviceInfo::minSubgroupSize)
        .def_ro("max_subgroup_size", &DeviceInfo::maxSubgroupSize)
        .def_ro("max_shared_memory_bytes", &DeviceInfo::maxSharedMemoryBytes)
        .def_ro("max_storage_buffer_range", &DeviceInfo::maxStorageBufferRange)
        .def_ro("max_uniform_buffer_range", &DeviceInfo::maxUniformBufferRange)
        .def_ro("max_memory_allocation_size", &DeviceInfo::maxMemoryAllocationSize)
        .def_ro("device_local_bytes", &DeviceInfo::deviceLocalBytes)
        .def_ro("max_work_group_count", &DeviceInfo::maxWorkGroupCount)
        .def_ro("max_work_group_invocations", &DeviceInfo::maxWorkGroupInvocations)
        .def_ro("compute_units", &DeviceInfo::computeUnits,
                "SMs (NVIDIA) or compute units (AMD) as the driver reports them; 0: not reported")
        .def_ro("timestamp_period_ns", &DeviceInfo::timestampPeriodNs, "0: no compute-queue timestamps")
        .def_ro("shader_float16", &DeviceInfo::shaderFloat16)
        .def_ro("cooperative_matrix", &DeviceInfo::coopMatKhr, "VK_KHR_cooperative_matrix usable")
        .def_prop_ro("cooperative_matrix_shapes", &shapeStrings,
                     "subgroup-scope shapes, e.g. '16x16x16 f16*f16+f32->f32'")
        .def_prop_ro("is_cpu", &DeviceInfo::isCpu)
        .def("__repr__", [](const DeviceInfo& d) {
            return "<vkconv.DeviceInfo " + std::to_string(d.index) + ": '" + d.name + "' (" + d.deviceType + ", " +
                   d.driverName + " " + d.driverInfo + ", cooperative matrix: " + (d.coopMatKhr ? "yes" : "no") + ")>";
        });

    m.def(
        "devices",
        [] {
            nb::gil_scoped_release release;
            return listDevices();
        },
        "Every Vulkan device the loader sees, with its capabilities (no profile applied).\n\n"
        "Raises vkconv.Error when no Vulkan loader or driver is usable.");

    m.def(
        "profiles",
        [] {
            std::map<std::string, std::string> out;
            for (const auto& p : DeviceProfile::builtin()) out[p.name] = p.description;
            return out;
        },
        "The device profiles vkconv ships, name -> description. A profile narrows a real device to\n"
        "another's limits (Context(profile=name)); it never widens them.");

    nb::class_<PyContext>(m, "Context",
                          "One Vulkan device and queue that vkconv works on. Conv2d objects made from it keep it\n"
                          "alive. Its pipeline cache is saved in the cache folder when it is destroyed.")
        .def("__init__",
             [](PyContext* self, std::optional<int> device, std::optional<std::string> profile, bool validation,
                std::optional<std::string> cacheDir) {
                 new (self) PyContext(makeContext(device, profile, validation, cacheDir));
             },
             nb::arg("device") = nb::none(), nb::arg("profile") = nb::none(), nb::arg("validation") = false,
             nb::arg("cache_dir") = nb::none(),
             "device: an index from devices() (None: the first GPU, discrete before integrated, else\n"
             "the first device). profile: a name from profiles(), to narrow the device to another's limits.\n"
             "validation: run under VK_LAYER_KHRONOS_validation (messages are counted, see\n"
             "validation_message_count). cache_dir: the folder of the tuning and pipeline caches (None:\n"
             "env VKCONV_CACHE_DIR, else $XDG_CACHE_HOME/vkconv, else ~/.cache/vkconv).")
        .def_prop_ro("device", [](const PyContext& c) { return c.context.device(); },
                     "The device's effective capabilities (narrowed by the profile, if any).")
        .def_prop_ro("profile", [](const PyContext& c) -> std::optional<std::string> {
            return c.profile.empty() ? std::nullopt : std::optional<std::string>(c.profile);
        })
        .def_prop_ro("cache_dir", [](const PyContext& c) { return resolveCacheDir(c.cacheDir); },
                     "The folder of the tuning cache (tuning.json) and the pipeline cache; '' if none.")
        .def_prop_ro("validation_message_count", [](const PyContext& c) { return c.context.validationMessageCount(); })
        .def_prop_ro("last_validation_message", [](const PyContext& c) { return c.context.lastValidationMessage(); })
        .def("save_pipeline_cache",
             [](const PyContext& c) {
                 nb::gil_scoped_release release;
                 return savePipelineCache(c.context);
             },
             "Saves the pipeline cache now; returns the file ('' when persistence is off).")
        .def("__repr__", [](const PyContext& c) {
            return "<vkconv.Context device " + std::to_string(c.context.device().index) + " '" + c.context.device().name +
                   "'" + (c.profile.empty() ? "" : ", profile " + c.profile) + ">";
        });

    m.def("default_context", &defaultContext, nb::sig("def default_context() -> Context"),
          "The Context conv2d() uses when given none: the first GPU, no profile, made on first use and\n"
          "kept for the life of the module.");
}

}  // namespace vkconv::python
