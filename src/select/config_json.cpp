// KernelConfig to and from JSON (config_json.hpp). The object holds the fields every
// configuration has, "kernel" (its kernel's name) and that kernel's fields, nothing else:
//   {"path": "coopmat-f16", "bm": 64, "bn": 128, "bk": 32, "subgroupSize": 32,
//    "kernel": "channels-last-nhwc", "warpsM": 2, "warpsN": 4, "mmaM": 16, "mmaN": 16, "mmaK": 16,
//    "stages": 2, "tapsInner": false, "fragmentPrefetch": true, "splitK": 1}
// Objects written before kernels had parameters of their own (one flat set of every field, with
// "aLoader" and "fp32Kernel") are refused with that reason, never read as something else.
#include "select/config_json.hpp"

#include <set>
#include <string>
#include <variant>

#include "runtime/json_limits.hpp"
#include "vkconv/error.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv {

namespace detail {

using nlohmann::json;

namespace {

// Writes and reads one kernel's fields; the same function for both, so the two cannot drift.
// Read fields are remembered, so that a field no kernel part took is refused by name.
class Fields {
public:
    explicit Fields(json* out) : out_(out) {}                 // writing
    explicit Fields(const json* in) : in_(in) {}              // reading
    void u32(const char* name, uint32_t& value) {
        if (out_) return void((*out_)[name] = value);
        const json& v = at(name);
        if (!v.is_number_unsigned() || v.get<uint64_t>() > 0xffffffffull)
            throw invalidArgument(std::string("config.") + name, jsonExcerpt(v), "expected an unsigned 32-bit integer");
        value = v.get<uint32_t>();
    }
    void flag(const char* name, bool& value) {
        if (out_) return void((*out_)[name] = value);
        const json& v = at(name);
        if (!v.is_boolean()) throw invalidArgument(std::string("config.") + name, jsonExcerpt(v), "expected true or false");
        value = v.get<bool>();
    }
    const std::set<std::string>& read() const { return read_; }

private:
    const json& at(const char* name) {
        if (!in_->contains(name)) throw invalidArgument(std::string("config.") + name, "missing", "expected for this kernel");
        read_.insert(name);
        return in_->at(name);
    }
    json* out_ = nullptr;
    const json* in_ = nullptr;
    std::set<std::string> read_;
};

void fields(Fields& f, Fp32GemmKernel& k) {
    f.u32("tm", k.tm);
    f.u32("tn", k.tn);
}

void fields(Fields& f, GroupedDirectKernel& k) {
    f.u32("threadsW", k.threadsW);
    f.u32("threadsH", k.threadsH);
    f.u32("vecW", k.vecW);
    f.u32("rows", k.rows);
    f.u32("channels", k.channels);
    f.u32("groups", k.groups);
    f.u32("groupSteps", k.groupSteps);
    f.flag("fromMemory", k.fromMemory);
}

void coopMatFields(Fields& f, CoopMatTiling& k) {
    f.u32("warpsM", k.warpsM);
    f.u32("warpsN", k.warpsN);
    f.u32("mmaM", k.mmaM);
    f.u32("mmaN", k.mmaN);
    f.u32("mmaK", k.mmaK);
    f.u32("stages", k.stages);
}

void fields(Fields& f, CoopMatGatherKernel& k) {
    coopMatFields(f, k);
    f.u32("sLanes", k.sLanes);
    f.flag("bGlobal", k.bGlobal);
}

void fields(Fields& f, CoopMatPackedKernel& k) {
    coopMatFields(f, k);
    f.u32("tilesPerWorkgroup", k.tilesPerWorkgroup);
}

void fields(Fields& f, ChannelsLastTiling& k) {
    coopMatFields(f, k);
    f.flag("tapsInner", k.tapsInner);
    f.flag("fragmentPrefetch", k.fragmentPrefetch);
    f.u32("splitK", k.splitK);
}

// Every kernel's parameters, default-constructed, to look one up by name.
template <size_t... I>
KernelParams paramsNamed(const std::string& name, std::index_sequence<I...>) {
    KernelParams out;
    const bool found = ((name == std::variant_alternative_t<I, KernelParams>::kName
                             ? (out = std::variant_alternative_t<I, KernelParams>{}, true)
                             : false) ||
                        ...);
    if (!found) {
        std::string known;
        ((known += (I ? ", " : "") + std::string(std::variant_alternative_t<I, KernelParams>::kName)), ...);
        throw invalidArgument("config.kernel", name, "expected one of " + known);
    }
    return out;
}

}  // namespace

bool isFlatConfig(const json& j) {
    return j.is_object() && !j.contains("kernel") && (j.contains("aLoader") || j.contains("fp32Kernel"));
}

json configObject(const KernelConfig& c) {
    json j{{"path", toString(c.path)}, {"bm", c.bm},     {"bn", c.bn},
           {"bk", c.bk},               {"subgroupSize", c.subgroupSize}, {"kernel", c.kernel()}};
    KernelParams params = c.params;
    Fields f(&j);
    std::visit([&](auto& k) { fields(f, k); }, params);
    return j;
}

KernelConfig configFromObject(const json& j) {
    if (!j.is_object()) throw invalidArgument("config", jsonExcerpt(j), "expected an object");
    if (isFlatConfig(j))
        throw invalidArgument("config.kernel", "missing",
                              "written by an older vkconv, before each kernel had parameters of its own (sweep again)");
    auto text = [&](const char* field) {
        if (!j.contains(field) || !j.at(field).is_string())
            throw invalidArgument(std::string("config.") + field,
                                  j.contains(field) ? jsonExcerpt(j.at(field)) : "missing", "expected a string");
        return j.at(field).get<std::string>();
    };
    KernelConfig c;
    c.path = pathFromString(text("path"));
    c.params = paramsNamed(text("kernel"), std::make_index_sequence<std::variant_size_v<KernelParams>>{});
    Fields f(&j);
    f.u32("bm", c.bm);
    f.u32("bn", c.bn);
    f.u32("bk", c.bk);
    f.u32("subgroupSize", c.subgroupSize);
    std::visit([&](auto& k) { fields(f, k); }, c.params);
    for (const auto& [name, value] : j.items())
        if (name != "path" && name != "kernel" && !f.read().count(name))
            throw invalidArgument("config." + name, jsonExcerpt(value),
                                  std::string("is not a field of the ") + c.kernel() + " kernel");
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
