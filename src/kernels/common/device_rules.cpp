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

// A shipped table is part of the build: a malformed one is a bug, reported by name.
Table parseTable(const EmbeddedRules& e) {
    const std::string where = std::string("device rules ") + e.file;
    const json j = parseJson(e.json, where, kDeviceJsonLimits, Error::Kind::Internal);
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
        t.rules.calibrationUnits = j.at("fill").at("calibration_units").get<double>();
        t.rules.workgroupSlots = j.at("fill").at("workgroup_slots").get<double>();
        for (const json& row : j.value("channels_last_tiles", json::array())) {
            const auto tile = row.at("tile").get<std::vector<uint32_t>>();
            const auto warps = row.at("warps").get<std::vector<uint32_t>>();
            if (tile.size() != 3 || warps.size() != 2) throw Error(Error::Kind::Internal, where + ": tile [bm, bn, bk], warps [m, n]");
            t.rules.channelsLastTiles.push_back({tile[0], tile[1], tile[2], warps[0], warps[1],
                                                 row.at("factor").get<double>(),
                                                 whenFromName(row.at("when").get<std::string>(), where)});
        }
        return t;
    } catch (const json::exception& ex) {
        throw Error(Error::Kind::Internal, where + ": " + ex.what());
    }
}

const std::vector<Table>& tables() {
    static const std::vector<Table> all = [] {  // immutable after first use
        std::vector<Table> out;
        for (size_t i = 0; i < kEmbeddedDeviceRulesCount; ++i) out.push_back(parseTable(kEmbeddedDeviceRules[i]));
        return out;
    }();
    return all;
}

// The fallback: what the fill model needs, from the device alone. About four workgroups a compute
// unit run at once (a workgroup of a few hundred threads per scheduler), and 128 compute units
// assumed where the driver reports none.
const DeviceRules& analytical() {
    static const DeviceRules rules = [] {
        DeviceRules r;
        r.name = "analytical";
        r.matchedBy = "no shipped table describes this device";
        r.calibrationUnits = 128;
        r.workgroupSlots = 512;
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
