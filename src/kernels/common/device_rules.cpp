#include "kernels/common/device_rules.hpp"

#include <algorithm>
#include <cstdio>

#include "runtime/json_limits.hpp"
#include "vkconv/error.hpp"

namespace vkconv::detail {

// The tables' text, embedded by CMake (generated/device_rules_data.cpp): name and JSON.
struct EmbeddedRules {
    const char* file;
    const char* json;
};
extern const EmbeddedRules kEmbeddedDeviceRules[];
extern const size_t kEmbeddedDeviceRulesCount;

namespace {

using nlohmann::json;

ChannelsLastTile::When whenFromName(const std::string& name, const std::string& where) {
    using W = ChannelsLastTile::When;
    static const std::pair<const char*, W> names[] = {
        {"any", W::Any},
        {"shallow", W::Shallow},
        {"deep-stride1", W::DeepStride1},
        {"stride1-taps", W::Stride1Taps},
        {"strided-or-pointwise", W::StridedOrPointwise},
        {"narrow-stride1-taps", W::NarrowStride1Taps},
        {"wide-mid-grid", W::WideMidGrid}};
    for (const auto& [n, w] : names)
        if (name == n) return w;
    throw Error(Error::Kind::Internal, where + ": unknown condition \"" + name + "\"");
}

// A device of the vendor whose device ID is listed, or whose name contains one of the strings.
struct Match {
    uint32_t vendorId = 0;
    std::vector<uint32_t> deviceIds;
    std::vector<std::string> nameContains;
};

struct Table {
    DeviceRules rules;
    Match match;
};

constexpr const char* kDefaultsFile = "defaults.json";

const EmbeddedRules& embedded(const char* file) {
    for (size_t i = 0; i < kEmbeddedDeviceRulesCount; ++i)
        if (std::string(kEmbeddedDeviceRules[i].file) == file) return kEmbeddedDeviceRules[i];
    throw Error(Error::Kind::Internal, std::string("device rules: no ") + file + " in the build");
}

json parseEmbedded(const EmbeddedRules& e) {
    return parseJson(e.json, std::string("device rules ") + e.file, kDeviceJsonLimits, Error::Kind::Internal);
}

NchwTileChoice tileChoice(const json& j, const std::string& where) {
    const auto tile = j.at("tile").get<std::vector<uint32_t>>();
    const auto warps = j.at("warps").get<std::vector<uint32_t>>();
    if (tile.size() != 3 || warps.size() != 2) throw Error(Error::Kind::Internal, where + ": tile [bm, bn, bk], warps [m, n]");
    return {tile[0], tile[1], tile[2], warps[0], warps[1], j.at("per_unit").get<double>()};
}

std::pair<double, double> range(const json& j) {
    const auto r = j.get<std::vector<double>>();
    if (r.size() != 2) throw json::other_error::create(501, "a range is [from, to]", &j);
    return {r[0], r[1]};
}

// The sections every table has once merged over the defaults.
void parseSections(const json& j, DeviceRules& r, const std::string& where) {
    r.calibrationUnits = j.at("fill").at("calibration_units").get<double>();
    r.workgroupSlots = j.at("fill").at("workgroup_slots").get<double>();
    for (const json& row : j.value("channels_last_tiles", json::array())) {
        const auto tile = row.at("tile").get<std::vector<uint32_t>>();
        const auto warps = row.at("warps").get<std::vector<uint32_t>>();
        if (tile.size() != 3 || warps.size() != 2) throw Error(Error::Kind::Internal, where + ": tile [bm, bn, bk], warps [m, n]");
        r.channelsLastTiles.push_back({tile[0], tile[1], tile[2], warps[0], warps[1], row.at("factor").get<double>(),
                                       whenFromName(row.at("when").get<std::string>(), where)});
    }
    const json& nchw = j.at("nchw_tiles");
    r.nchwTiles = {tileChoice(nchw.at("narrow"), where),
                   tileChoice(nchw.at("narrow_strided"), where),
                   tileChoice(nchw.at("wide"), where),
                   tileChoice(nchw.at("small"), where),
                   tileChoice(nchw.at("small_deep"), where),
                   nchw.at("strided_max_channels").get<double>(),
                   nchw.at("wide_output_min_channels").get<double>(),
                   nchw.at("wide_output_ratio").get<double>(),
                   nchw.at("small_deep_min_channels").get<double>()};
    const json& deep = j.at("deep_pointwise_splits");
    const auto [midFrom, midTo] = range(deep.at("mid_grid"));
    const auto [twoFrom, twoTo] = range(deep.at("two_splits"));
    r.deepPointwiseSplits = {deep.at("min_k").get<double>(), midFrom, midTo, deep.at("nchw_split_from").get<double>(),
                             twoFrom, twoTo};
    r.splitKCost = {j.at("split_k_cost").at("per_split").get<double>(), j.at("split_k_cost").at("k_overhead").get<double>()};
    for (const auto& [name, value] : j.at("grouped_direct").items())
        if (value.is_number()) r.groupedDirect[name] = value.get<double>();
}

// A shipped table is part of the build: a malformed one is a bug, reported by name. Each section
// it has ("fill", "nchw_tiles", ...) replaces the defaults' section whole.
Table parseTable(const EmbeddedRules& e) {
    const std::string where = std::string("device rules ") + e.file;
    const json own = parseEmbedded(e);
    json j = parseEmbedded(embedded(kDefaultsFile));
    for (const auto& [section, value] : own.items()) j[section] = value;
    try {
        Table t;
        t.rules.name = j.at("name").get<std::string>();
        t.match.vendorId = j.at("match").at("vendor_id").get<uint32_t>();
        t.match.nameContains = j.at("match").at("device_name_contains").get<std::vector<std::string>>();
        t.match.deviceIds = j.at("match").value("device_ids", std::vector<uint32_t>{});
        char vendor[16];
        std::snprintf(vendor, sizeof vendor, "0x%04x", t.match.vendorId);
        t.rules.matchedBy = std::string("vendor ") + vendor + ",";
        for (uint32_t id : t.match.deviceIds) {
            char hex[16];
            std::snprintf(hex, sizeof hex, " 0x%04x", id);
            t.rules.matchedBy += hex;
        }
        t.rules.matchedBy += " or a name containing";
        for (size_t i = 0; i < t.match.nameContains.size(); ++i)
            t.rules.matchedBy += (i ? " or " : " ") + t.match.nameContains[i];
        parseSections(j, t.rules, where);
        return t;
    } catch (const json::exception& ex) {
        throw Error(Error::Kind::Internal, where + ": " + ex.what());
    }
}

const std::vector<Table>& tables() {
    static const std::vector<Table> all = [] {  // immutable after first use
        std::vector<Table> out;
        for (size_t i = 0; i < kEmbeddedDeviceRulesCount; ++i)
            if (std::string(kEmbeddedDeviceRules[i].file) != kDefaultsFile) out.push_back(parseTable(kEmbeddedDeviceRules[i]));
        return out;
    }();
    return all;
}

// The fallback: defaults.json alone (its fill model is analytical: about four workgroups a compute
// unit at once, a workgroup of a few hundred threads per scheduler, and 128 compute units assumed
// where the driver reports none; no channels-last layout table).
const DeviceRules& analytical() {
    static const DeviceRules rules = [] {  // immutable after first use
        const EmbeddedRules& e = embedded(kDefaultsFile);
        const std::string where = std::string("device rules ") + e.file;
        const json j = parseEmbedded(e);
        DeviceRules r;
        try {
            r.name = j.at("name").get<std::string>();
            parseSections(j, r, where);
        } catch (const json::exception& ex) {
            throw Error(Error::Kind::Internal, where + ": " + ex.what());
        }
        r.matchedBy = "no shipped table describes this device";
        return r;
    }();
    return rules;
}

bool matches(const Match& m, const DeviceInfo& d) {
    if (d.vendorId != m.vendorId) return false;
    if (std::find(m.deviceIds.begin(), m.deviceIds.end(), d.deviceId) != m.deviceIds.end()) return true;
    return std::any_of(m.nameContains.begin(), m.nameContains.end(),
                       [&](const std::string& s) { return d.name.find(s) != std::string::npos; });
}

}  // namespace

double DeviceRules::groupedDirectFactor(const std::string& factor) const {
    const auto it = groupedDirect.find(factor);
    if (it == groupedDirect.end())
        throw Error(Error::Kind::Internal, "device rules " + name + ": no grouped_direct factor \"" + factor + "\"");
    return it->second;
}

const DeviceRules& deviceRules(const DeviceInfo& d) {
    if (!d.profile.empty()) return analytical();
    for (const Table& t : tables())
        if (matches(t.match, d)) return t.rules;
    return analytical();
}

const std::vector<DeviceRules>& shippedDeviceRules() {
    static const std::vector<DeviceRules> all = [] {
        std::vector<DeviceRules> out;
        for (const Table& t : tables()) out.push_back(t.rules);
        return out;
    }();
    return all;
}

}  // namespace vkconv::detail
