// KernelConfig to and from JSON (config_json.hpp).
#include "select/config_json.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

#include "runtime/json_limits.hpp"
#include "vkconv/error.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv {

namespace detail {

using nlohmann::json;

namespace {

// The names the format gives the A loaders and the fp32 kernels.
constexpr std::pair<ALoader, const char*> kLoaderNames[] = {
    {ALoader::Gather, "gather"}, {ALoader::Packed, "packed"}, {ALoader::Nhwc, "nhwc"}, {ALoader::Nchw, "nchw"}};
constexpr std::pair<Fp32Kernel, const char*> kFp32KernelNames[] = {
    {Fp32Kernel::Gemm, "gemm"}, {Fp32Kernel::GroupedDirect, "grouped-direct"}};
constexpr const char* kExpectedLoaders = "expected gather, packed, nhwc or nchw";

template <typename Enum, size_t N>
const char* nameOf(const std::pair<Enum, const char*> (&names)[N], Enum value) {
    for (const auto& [v, name] : names)
        if (v == value) return name;
    return "?";
}

}  // namespace

json configObject(const KernelConfig& c) {
    return json{{"path", toString(c.path)}, {"bm", c.bm},         {"bn", c.bn},
                {"bk", c.bk},               {"tm", c.tm},         {"tn", c.tn},
                {"warpsM", c.warpsM},       {"warpsN", c.warpsN}, {"mmaM", c.mmaM},
                {"mmaN", c.mmaN},           {"mmaK", c.mmaK},     {"stages", c.stages},
                {"aLoader", nameOf(kLoaderNames, c.aLoader)},                 {"bGlobal", c.bGlobal},
                {"sLanes", c.sLanes},
                {"tapsInner", c.tapsInner},
                {"fragmentPrefetch", c.fragmentPrefetch},
                {"tilesPerWorkgroup", c.tilesPerWorkgroup},
                {"splitK", c.splitK},
                {"subgroupSize", c.subgroupSize},
                {"fp32Kernel", nameOf(kFp32KernelNames, c.fp32Kernel)},
                {"directThreadsW", c.directThreadsW}, {"directThreadsH", c.directThreadsH},
                {"directVecW", c.directVecW}, {"directRows", c.directRows},
                {"directChannels", c.directChannels}, {"directGroups", c.directGroups},
                {"directGroupSteps", c.directGroupSteps}, {"directFromMemory", c.directFromMemory}};
}

KernelConfig configFromObject(const json& j) {
    if (!j.is_object()) throw invalidArgument("config", jsonExcerpt(j), "expected an object");
    auto u32 = [&](const char* field) {
        if (!j.contains(field) || !j.at(field).is_number_unsigned() || j.at(field).get<uint64_t>() > 0xffffffffull)
            throw invalidArgument(std::string("config.") + field,
                                  j.contains(field) ? jsonExcerpt(j.at(field)) : "missing",
                                  "expected an unsigned 32-bit integer");
        return j.at(field).get<uint32_t>();
    };
    auto text = [&](const char* field) {
        if (!j.contains(field) || !j.at(field).is_string())
            throw invalidArgument(std::string("config.") + field,
                                  j.contains(field) ? jsonExcerpt(j.at(field)) : "missing", "expected a string");
        return j.at(field).get<std::string>();
    };
    auto flag = [&](const char* field) {
        if (!j.contains(field) || !j.at(field).is_boolean())
            throw invalidArgument(std::string("config.") + field,
                                  j.contains(field) ? jsonExcerpt(j.at(field)) : "missing", "expected true or false");
        return j.at(field).get<bool>();
    };
    KernelConfig c;
    c.path = pathFromString(text("path"));
    c.bm = u32("bm"), c.bn = u32("bn"), c.bk = u32("bk");
    c.tm = u32("tm"), c.tn = u32("tn");
    c.warpsM = u32("warpsM"), c.warpsN = u32("warpsN");
    c.mmaM = u32("mmaM"), c.mmaN = u32("mmaN"), c.mmaK = u32("mmaK");
    c.stages = u32("stages");
    const std::string loader = text("aLoader");
    // "patch" named a shared-memory patch loader that vkconv no longer has (docs/performance.md,
    // "Tried and dropped"): refused like any unknown loader, with the reason.
    if (loader == "patch")
        throw invalidArgument("config.aLoader", loader,
                              std::string("the patch loader was removed (slower than gather, wrong on NVIDIA); ") +
                                  kExpectedLoaders);
    const auto known = std::find_if(std::begin(kLoaderNames), std::end(kLoaderNames),
                                    [&](const auto& named) { return loader == named.second; });
    if (known == std::end(kLoaderNames)) throw invalidArgument("config.aLoader", loader, kExpectedLoaders);
    c.aLoader = known->first;
    c.bGlobal = flag("bGlobal");
    c.subgroupSize = u32("subgroupSize");
    // Entries written while the patch loader existed also hold its "tileH" and "tileW", and those
    // written while B in registers was a field of its own "bRegisters" (now the packed loader's
    // kernel): ignored.
    // Fields added after the format's first entries: absent means what configurations were
    // before the field existed (its default).
    if (j.contains("sLanes")) c.sLanes = u32("sLanes");
    if (j.contains("tilesPerWorkgroup")) c.tilesPerWorkgroup = u32("tilesPerWorkgroup");
    // Entries written while configurations carried the diagnostics' parts-left-out mask hold
    // "debugSkip": 0 is every configuration; anything else measured a kernel with parts left out.
    if (j.contains("debugSkip") && u32("debugSkip") != 0)
        throw invalidArgument("config.debugSkip", jsonExcerpt(j.at("debugSkip")),
                              "a diagnostic configuration (parts of the kernel left out), not one to run");
    if (j.contains("tapsInner")) c.tapsInner = flag("tapsInner");
    if (j.contains("fragmentPrefetch")) c.fragmentPrefetch = flag("fragmentPrefetch");
    if (j.contains("splitK")) c.splitK = u32("splitK");
    if (j.contains("fp32Kernel")) {
        const std::string kernel = text("fp32Kernel");
        const auto named = std::find_if(std::begin(kFp32KernelNames), std::end(kFp32KernelNames),
                                        [&](const auto& n) { return kernel == n.second; });
        if (named == std::end(kFp32KernelNames))
            throw invalidArgument("config.fp32Kernel", kernel, "expected gemm or grouped-direct");
        c.fp32Kernel = named->first;
        c.directThreadsW = u32("directThreadsW"), c.directThreadsH = u32("directThreadsH");
        c.directVecW = u32("directVecW"), c.directRows = u32("directRows");
        c.directChannels = u32("directChannels");
        if (j.contains("directGroups")) c.directGroups = u32("directGroups");
        if (j.contains("directGroupSteps")) c.directGroupSteps = u32("directGroupSteps");
        if (j.contains("directFromMemory")) c.directFromMemory = flag("directFromMemory");
    }
    return c;
}

}  // namespace detail

std::string configToJson(const KernelConfig& config) { return detail::configObject(config).dump(); }

KernelConfig configFromJson(const std::string& text) {
    // Bounded (size, depth) like every JSON vkconv reads; a bad text is named by its start only.
    const nlohmann::json j = detail::parseJson(text, "config = " + detail::jsonExcerpt(nlohmann::json(text), 80),
                                               detail::kConfigJsonLimits, Error::Kind::InvalidArgument);
    return detail::configFromObject(j);
}

}  // namespace vkconv
