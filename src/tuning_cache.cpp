// The tuning cache: <cache dir>/tuning.json. Format (version 1):
//   {"format": "vkconv tuning cache", "version": 1,
//    "devices": {"<deviceKey>": {"name": "...", "driver": "...",
//                                "entries": {"<problemKey>": {"config": {...every field...},
//                                            "name": "<KernelConfig::str()>", "ms": 1.065,
//                                            "date": "2026-11-21T10:00:00Z", "decision": "..."}}}}}
// Every entry is checked when the file is read; anything malformed makes the whole file corrupt
// (reported, never trusted, replaced on the next save).
#include <cstdio>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cache_files.hpp"
#include "tuning_cache.hpp"
#include "utc_time.hpp"
#include "vkconv/error.hpp"

namespace vkconv {

using nlohmann::json;

namespace {

constexpr const char* kFormat = "vkconv tuning cache";
constexpr int kVersion = 1;
constexpr const char* kFileName = "tuning.json";

const char* toString(ALoader a) {
    return a == ALoader::Patch ? "patch" : a == ALoader::Packed ? "packed" : a == ALoader::Nhwc ? "nhwc" : "gather";
}

json configObject(const KernelConfig& c) {
    return json{{"path", toString(c.path)}, {"bm", c.bm},         {"bn", c.bn},
                {"bk", c.bk},               {"tm", c.tm},         {"tn", c.tn},
                {"warpsM", c.warpsM},       {"warpsN", c.warpsN}, {"mmaM", c.mmaM},
                {"mmaN", c.mmaN},           {"mmaK", c.mmaK},     {"stages", c.stages},
                {"aLoader", toString(c.aLoader)},                 {"bGlobal", c.bGlobal},
                {"sLanes", c.sLanes},       {"debugSkip", c.debugSkip},
                {"bRegisters", c.bRegisters}, {"tilesPerWorkgroup", c.tilesPerWorkgroup},
                {"tileH", c.tileH},         {"tileW", c.tileW},   {"subgroupSize", c.subgroupSize},
                {"fp32Kernel", c.groupedDirect() ? "grouped-direct" : "gemm"},
                {"directThreadsW", c.directThreadsW}, {"directThreadsH", c.directThreadsH},
                {"directVecW", c.directVecW}, {"directRows", c.directRows},
                {"directChannels", c.directChannels}};
}

KernelConfig configFromObject(const json& j) {
    if (!j.is_object()) throw invalidArgument("config", j.dump(), "expected an object");
    auto u32 = [&](const char* field) {
        if (!j.contains(field) || !j.at(field).is_number_unsigned() || j.at(field).get<uint64_t>() > 0xffffffffull)
            throw invalidArgument(std::string("config.") + field,
                                  j.contains(field) ? j.at(field).dump() : "missing",
                                  "expected an unsigned 32-bit integer");
        return j.at(field).get<uint32_t>();
    };
    auto text = [&](const char* field) {
        if (!j.contains(field) || !j.at(field).is_string())
            throw invalidArgument(std::string("config.") + field,
                                  j.contains(field) ? j.at(field).dump() : "missing", "expected a string");
        return j.at(field).get<std::string>();
    };
    KernelConfig c;
    c.path = pathFromString(text("path"));
    c.bm = u32("bm"), c.bn = u32("bn"), c.bk = u32("bk");
    c.tm = u32("tm"), c.tn = u32("tn");
    c.warpsM = u32("warpsM"), c.warpsN = u32("warpsN");
    c.mmaM = u32("mmaM"), c.mmaN = u32("mmaN"), c.mmaK = u32("mmaK");
    c.stages = u32("stages");
    const std::string loader = text("aLoader");
    if (loader != "gather" && loader != "patch" && loader != "packed" && loader != "nhwc")
        throw invalidArgument("config.aLoader", loader, "expected gather, patch, packed or nhwc");
    c.aLoader = loader == "patch"    ? ALoader::Patch
                : loader == "packed" ? ALoader::Packed
                : loader == "nhwc"   ? ALoader::Nhwc
                                     : ALoader::Gather;
    if (!j.contains("bGlobal") || !j.at("bGlobal").is_boolean())
        throw invalidArgument("config.bGlobal", j.contains("bGlobal") ? j.at("bGlobal").dump() : "missing",
                              "expected true or false");
    c.bGlobal = j.at("bGlobal").get<bool>();
    c.tileH = u32("tileH"), c.tileW = u32("tileW");
    c.subgroupSize = u32("subgroupSize");
    // Fields added after the format's first entries: absent means what configurations were
    // before the field existed (its default).
    if (j.contains("sLanes")) c.sLanes = u32("sLanes");
    if (j.contains("tilesPerWorkgroup")) c.tilesPerWorkgroup = u32("tilesPerWorkgroup");
    if (j.contains("bRegisters")) {
        if (!j.at("bRegisters").is_boolean())
            throw invalidArgument("config.bRegisters", j.at("bRegisters").dump(), "expected true or false");
        c.bRegisters = j.at("bRegisters").get<bool>();
    }
    if (j.contains("debugSkip")) c.debugSkip = u32("debugSkip");
    if (j.contains("fp32Kernel")) {
        const std::string kernel = text("fp32Kernel");
        if (kernel != "gemm" && kernel != "grouped-direct")
            throw invalidArgument("config.fp32Kernel", kernel, "expected gemm or grouped-direct");
        c.fp32Kernel = kernel == "grouped-direct" ? Fp32Kernel::GroupedDirect : Fp32Kernel::Gemm;
        c.directThreadsW = u32("directThreadsW"), c.directThreadsH = u32("directThreadsH");
        c.directVecW = u32("directVecW"), c.directRows = u32("directRows");
        c.directChannels = u32("directChannels");
    }
    return c;
}

TuningEntry entryFromObject(const json& j) {
    if (!j.is_object()) throw invalidArgument("entry", j.dump(), "expected an object");
    TuningEntry e;
    e.config = configFromObject(j.value("config", json()));
    if (!j.contains("ms") || !j.at("ms").is_number() || !(j.at("ms").get<double>() >= 0))
        throw invalidArgument("entry.ms", j.contains("ms") ? j.at("ms").dump() : "missing",
                              "expected a time in milliseconds");
    e.ms = j.at("ms").get<double>();
    if (!j.contains("date") || !j.at("date").is_string())
        throw invalidArgument("entry.date", j.contains("date") ? j.at("date").dump() : "missing",
                              "expected a string");
    e.date = j.at("date").get<std::string>();
    e.decision = j.value("decision", std::string());
    return e;
}

json entryObject(const TuningEntry& e) {
    return json{{"config", configObject(e.config)}, {"name", e.config.str()}, {"ms", e.ms},
                {"date", e.date},                   {"decision", e.decision}};
}

json emptyDocument() { return json{{"format", kFormat}, {"version", kVersion}, {"devices", json::object()}}; }

// Throws vkconv::Error with what is wrong if `doc` is not a valid cache document.
void checkDocument(const json& doc) {
    if (!doc.is_object() || doc.value("format", "") != kFormat)
        throw Error(Error::Kind::InvalidArgument, "not a vkconv tuning cache (no \"format\": \"" +
                                                      std::string(kFormat) + "\")");
    if (!doc.contains("version") || doc.at("version") != kVersion)
        throw Error(Error::Kind::InvalidArgument,
                    "format version " + (doc.contains("version") ? doc.at("version").dump() : "missing") +
                        ", expected " + std::to_string(kVersion));
    if (!doc.contains("devices") || !doc.at("devices").is_object())
        throw Error(Error::Kind::InvalidArgument, "no \"devices\" object");
    for (const auto& [device, body] : doc.at("devices").items()) {
        if (!body.is_object() || !body.contains("entries") || !body.at("entries").is_object())
            throw Error(Error::Kind::InvalidArgument, "device " + device + " has no \"entries\" object");
        for (const auto& [problem, entry] : body.at("entries").items()) {
            try {
                entryFromObject(entry);
            } catch (const Error& e) {
                throw Error(Error::Kind::InvalidArgument, "entry '" + problem + "': " + e.what());
            }
        }
    }
}

}  // namespace

struct TuningCache::State {
    std::string dir;
    json document = emptyDocument();
    // Entries put since the file was read: (device key, problem key) -> (entry, device object).
    std::vector<std::tuple<std::string, std::string, json, json>> puts;
    std::vector<std::string> notes;
    WarningHandler warn;

    // The file's document, or nullopt (with `problem` set) if it is corrupt; empty if absent.
    std::optional<json> read(std::string& problem) const {
        std::string text;
        if (!detail::readWholeFile(dir + "/" + kFileName, text)) return emptyDocument();
        try {
            json doc = json::parse(text);
            checkDocument(doc);
            return doc;
        } catch (const json::exception& e) {
            problem = std::string("not valid JSON (") + e.what() + ")";
        } catch (const Error& e) {
            problem = e.what();
        }
        return std::nullopt;
    }
};

std::string resolveCacheDir(const std::string& explicitDir) { return detail::cacheDirFor(explicitDir); }

std::string deviceKey(const DeviceInfo& d) {
    char ids[64];
    std::snprintf(ids, sizeof ids, "%04x:%04x:driver=0x%08x:uuid=", d.vendorId, d.deviceId, d.driverVersion);
    return ids + detail::hexBytes(d.pipelineCacheUUID.data(), d.pipelineCacheUUID.size());
}

std::string problemKey(const ConvProblem& problem, Path path) {
    return std::string(toString(path)) + " " + problem.str();
}

std::string configToJson(const KernelConfig& config) { return configObject(config).dump(); }

KernelConfig configFromJson(const std::string& text) {
    try {
        return configFromObject(json::parse(text));
    } catch (const json::exception& e) {
        throw invalidArgument("config", text, std::string("not valid JSON: ") + e.what());
    }
}

TuningCache::TuningCache(const std::string& dir, WarningHandler onWarning)
    : state_(std::make_unique<State>()) {
    State& s = *state_;
    s.dir = resolveCacheDir(dir);
    s.warn = onWarning ? std::move(onWarning)
                       : [](const std::string& m) { std::cerr << "vkconv: warning: " << m << std::endl; };
    if (s.dir.empty()) {
        s.notes.push_back("no cache folder (set VKCONV_CACHE_DIR, XDG_CACHE_HOME or HOME)");
        return;
    }
    std::string problem;
    if (auto doc = s.read(problem)) {
        s.document = std::move(*doc);
        return;
    }
    const std::string note = "tuning cache " + file() + " is corrupt (" + problem +
                             "); ignored, and replaced on the next save";
    s.notes.push_back(note);
    s.warn(note);
}

TuningCache::~TuningCache() = default;
TuningCache::TuningCache(TuningCache&&) noexcept = default;
TuningCache& TuningCache::operator=(TuningCache&&) noexcept = default;

const std::string& TuningCache::dir() const { return state_->dir; }
std::string TuningCache::file() const { return state_->dir.empty() ? "" : state_->dir + "/" + kFileName; }
const std::vector<std::string>& TuningCache::notes() const { return state_->notes; }

size_t TuningCache::size() const {
    size_t n = 0;
    for (const auto& [key, device] : state_->document.at("devices").items()) n += device.at("entries").size();
    return n;
}

std::optional<TuningEntry> TuningCache::find(const DeviceInfo& device, const ConvProblem& problem,
                                             Path path, std::string* whyNot) const {
    const json& devices = state_->document.at("devices");
    const auto d = devices.find(deviceKey(device));
    if (d == devices.end()) return std::nullopt;
    const json& entries = d->at("entries");
    const auto e = entries.find(problemKey(problem, path));
    if (e == entries.end()) return std::nullopt;
    TuningEntry entry = entryFromObject(*e);  // checked when read: cannot throw
    if (entry.config.path != path) {
        if (whyNot) *whyNot = "tuning cache entry " + entry.config.str() + " is for another path; ignored";
        return std::nullopt;
    }
    if (entry.config.debugSkip) {
        if (whyNot) *whyNot = "tuning cache entry " + entry.config.str() + " is a diagnostic configuration; ignored";
        return std::nullopt;
    }
    if (std::string why = canImplement(entry.config, device, problem); !why.empty()) {
        if (whyNot) *whyNot = "tuning cache entry " + entry.config.str() + " cannot run here (" + why + "); ignored";
        return std::nullopt;
    }
    return entry;
}

void TuningCache::put(const DeviceInfo& device, const ConvProblem& problem, const TuningEntry& entry) {
    TuningEntry e = entry;
    if (e.date.empty()) e.date = detail::utcTimestamp();
    const std::string dk = deviceKey(device), pk = problemKey(problem, entry.config.path);
    json deviceInfo{{"name", device.name}, {"driver", device.driverName + " " + device.driverInfo}};
    State& s = *state_;
    s.puts.emplace_back(dk, pk, entryObject(e), deviceInfo);
    json& d = s.document["devices"][dk];
    d.update(deviceInfo);
    d["entries"][pk] = entryObject(e);
}

void TuningCache::save() {
    State& s = *state_;
    if (s.dir.empty())
        throw Error(Error::Kind::Io, "no cache folder to save the tuning cache in (set VKCONV_CACHE_DIR, "
                                     "XDG_CACHE_HOME or HOME, or pass a folder)");
    // Merge: start from what is on disk now (another process may have saved since we read), then
    // apply our puts. A corrupt file on disk is replaced.
    std::string problem;
    json doc = s.read(problem).value_or(emptyDocument());
    for (const auto& [dk, pk, entry, deviceInfo] : s.puts) {
        json& d = doc["devices"][dk];
        d.update(deviceInfo);
        d["entries"][pk] = entry;
    }
    detail::writeFileAtomically(file(), doc.dump(2) + "\n");
    s.document = std::move(doc);
    s.puts.clear();
}

namespace detail {

TuningLookup lookupTuning(const std::string& dir, const DeviceInfo& device, const ConvProblem& problem,
                          Path path) {
    // Report a corrupt file once per process and file, not at every Conv2d.
    static std::mutex mutex;
    static std::set<std::string> reported;
    TuningLookup out;
    std::vector<std::string> warnings;
    TuningCache cache(dir, [&](const std::string& m) { warnings.push_back(m); });
    for (const std::string& w : warnings) {
        std::lock_guard<std::mutex> lock(mutex);
        if (reported.insert(cache.file()).second) std::cerr << "vkconv: warning: " << w << std::endl;
    }
    if (!warnings.empty()) out.note = warnings.front();
    std::string whyNot;
    out.entry = cache.find(device, problem, path, &whyNot);
    if (!out.entry && !whyNot.empty()) out.note = whyNot;
    return out;
}

std::string describeTuningEntry(const TuningEntry& e) {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.4g", e.ms);
    std::string s = std::string("measured ") + ms + " ms";
    if (e.date.size() >= 10) s += " on " + e.date.substr(0, 10);
    return s;
}

}  // namespace detail
}  // namespace vkconv
