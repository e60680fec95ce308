// The tuning cache: <cache dir>/tuning.json. Format (version 3):
//   {"format": "vkconv tuning cache", "version": 3,
//    "devices": {"<deviceKey>": {"name": "...", "driver": "...",
//                                "entries": {"<problemKey>": {"config": {...config_json.cpp...},
//                                            "name": "<KernelConfig::str()>", "ms": 1.065,
//                                            "date": "2026-11-21T10:00:00Z", "decision": "...",
//                                            "vkconv": "0.1.0", "spirv": "fnv1a64:..."}}}}}
// The device key includes the profile a measurement was made under. Files of versions 1 and 2
// are read; their entries are ignored, each with a note: version 1's as measured on unknown code
// (no "vkconv"/"spirv"), version 2's because their configurations are one flat set of every
// kernel's fields (config_json.cpp refuses them by name, never reads them as another kernel's).
// Entries are checked when looked up: a malformed one is ignored (with a note) and kept in the
// file. A file that is not a tuning cache at all is ignored, and moved aside (never deleted) by
// the next save. A file of a newer format is ignored and never overwritten.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/cache_files.hpp"
#include "runtime/json_limits.hpp"
#include "select/config_json.hpp"
#include "select/kernel_identity.hpp"
#include "select/tuning_cache.hpp"
#include "runtime/utc_time.hpp"
#include "vkconv/error.hpp"
#include "vkconv/version.hpp"

namespace vkconv {

using nlohmann::json;
using detail::configFromObject;
using detail::configObject;
using detail::isFlatConfig;

namespace {

constexpr const char* kFormat = "vkconv tuning cache";
constexpr int kVersion = 3;
constexpr int kOldestReadableVersion = 1;
constexpr const char* kFileName = "tuning.json";

TuningEntry entryFromObject(const json& j) {
    using detail::jsonExcerpt;
    if (!j.is_object()) throw invalidArgument("entry", jsonExcerpt(j), "expected an object");
    TuningEntry e;
    e.config = configFromObject(j.value("config", json()));
    if (!j.contains("ms") || !j.at("ms").is_number() || !(j.at("ms").get<double>() >= 0))
        throw invalidArgument("entry.ms", j.contains("ms") ? jsonExcerpt(j.at("ms")) : "missing",
                              "expected a time in milliseconds");
    e.ms = j.at("ms").get<double>();
    if (!j.contains("date") || !j.at("date").is_string())
        throw invalidArgument("entry.date", j.contains("date") ? jsonExcerpt(j.at("date")) : "missing",
                              "expected a string");
    e.date = j.at("date").get<std::string>();
    auto optionalText = [&](const char* field) {
        if (!j.contains(field)) return std::string();
        if (!j.at(field).is_string())
            throw invalidArgument(std::string("entry.") + field, jsonExcerpt(j.at(field)), "expected a string");
        return j.at(field).get<std::string>();
    };
    e.decision = optionalText("decision");
    e.vkconvVersion = optionalText("vkconv");
    e.spirvHash = optionalText("spirv");
    return e;
}

json entryObject(const TuningEntry& e) {
    return json{{"config", configObject(e.config)}, {"name", e.config.str()}, {"ms", e.ms},
                {"date", e.date},                   {"decision", e.decision},
                {"vkconv", e.vkconvVersion},        {"spirv", e.spirvHash}};
}

// Whether a device body can hold entries: {"entries": {...}, ...}.
bool wellFormedDevice(const json& body) {
    return body.is_object() && body.contains("entries") && body.at("entries").is_object();
}

json emptyDocument() { return json{{"format", kFormat}, {"version", kVersion}, {"devices", json::object()}}; }

// How a file read went. Unreadable: not a tuning cache of any version (not JSON, no format tag,
// no devices object); Newer: a format this vkconv does not know, written by a newer one.
enum class ReadStatus { Absent, Ok, Unreadable, Newer };

Error noCacheFolder() {
    return Error(Error::Kind::Io, "no cache folder to save the tuning cache in (set VKCONV_CACHE_DIR, "
                                  "XDG_CACHE_HOME or HOME, or pass a folder)");
}

Error newerFormat(const std::string& file, const std::string& problem) {
    return Error(Error::Kind::Io, "tuning cache " + file + " has " + problem +
                                      "; not overwritten (use that vkconv, or another --cache-dir)");
}

// The document's structure only: entries are checked one by one when looked up.
ReadStatus checkDocument(const json& doc, std::string& problem) {
    if (!doc.is_object() || !doc.contains("format") || doc.at("format") != kFormat) {
        problem = "not a vkconv tuning cache (no \"format\": \"" + std::string(kFormat) + "\")";
        return ReadStatus::Unreadable;
    }
    if (!doc.contains("version") || !doc.at("version").is_number_integer()) {
        problem = "format version " + (doc.contains("version") ? detail::jsonExcerpt(doc.at("version")) : "missing");
        return ReadStatus::Unreadable;
    }
    // An unsigned version above INT64_MAX is newer too: read as unsigned, never wrapped.
    const json& v = doc.at("version");
    if (v.is_number_unsigned() ? v.get<uint64_t>() > uint64_t(kVersion) : v.get<int64_t>() > kVersion) {
        problem = "format version " + v.dump() + ", newer than this vkconv's " +
                  std::to_string(kVersion) + " (written by a newer vkconv)";
        return ReadStatus::Newer;
    }
    if (v.get<int64_t>() < kOldestReadableVersion) {
        problem = "format version " + v.dump();
        return ReadStatus::Unreadable;
    }
    if (!doc.contains("devices") || !doc.at("devices").is_object()) {
        problem = "no \"devices\" object";
        return ReadStatus::Unreadable;
    }
    return ReadStatus::Ok;
}

}  // namespace

struct TuningCache::State {
    std::string dir;
    json document = emptyDocument();
    // Entries put since the file was read: (device key, problem key) -> (entry, device object).
    std::vector<std::tuple<std::string, std::string, json, json>> puts;
    std::vector<std::string> notes;
    WarningHandler warn;
    ReadStatus readStatus = ReadStatus::Absent;  // how the constructor's read went
    std::string readProblem;                     // and why, when not Ok

    // The file's document (empty when absent or not Ok; `problem` says why when not Ok). Reads
    // at most kTuningCacheLimits.maxBytes and nothing nested deeper than its depth.
    ReadStatus read(json& doc, std::string& problem) const {
        std::string text;
        doc = emptyDocument();
        const detail::JsonLimits& limits = detail::kTuningCacheLimits;
        switch (detail::readFileAtMost(dir + "/" + kFileName, text, limits.maxBytes)) {
            case detail::FileRead::Absent: return ReadStatus::Absent;
            case detail::FileRead::TooLarge:
                problem = "larger than the " + std::to_string(limits.maxBytes >> 20) + " MiB vkconv reads";
                return ReadStatus::Unreadable;
            case detail::FileRead::Ok: break;
        }
        json parsed;
        try {
            parsed = detail::parseJson(text, "tuning.json", limits);
        } catch (const Error& e) {
            problem = e.what();
            return ReadStatus::Unreadable;
        }
        const ReadStatus status = checkDocument(parsed, problem);
        if (status == ReadStatus::Ok) doc = std::move(parsed);
        return status;
    }
};

std::string resolveCacheDir(const std::string& explicitDir) { return detail::cacheDirFor(explicitDir); }

namespace {

// The device without its profile: the part of the key every view of one device shares.
std::string hardwareKey(const DeviceInfo& d) {
    char ids[64];
    std::snprintf(ids, sizeof ids, "%04x:%04x:driver=0x%08x:uuid=", d.vendorId, d.deviceId, d.driverVersion);
    return ids + detail::hexBytes(d.pipelineCacheUUID.data(), d.pipelineCacheUUID.size());
}

}  // namespace

std::string deviceKey(const DeviceInfo& d) {
    return hardwareKey(d) + (d.profile.empty() ? "" : ":profile=" + d.profile);
}

std::string problemKey(const ConvProblem& problem, Path path) {
    return std::string(toString(path)) + " " + problem.str();
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
    s.readStatus = s.read(s.document, s.readProblem);
    const ReadStatus status = s.readStatus;
    const std::string& problem = s.readProblem;
    if (status == ReadStatus::Absent || status == ReadStatus::Ok) return;
    const std::string note =
        status == ReadStatus::Newer
            ? "tuning cache " + file() + " has " + problem + "; ignored, and never overwritten by this vkconv"
            : "tuning cache " + file() + " is corrupt (" + problem +
                  "); ignored, and moved aside (kept) by the next save";
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
    for (const auto& [key, device] : state_->document.at("devices").items())
        if (wellFormedDevice(device)) n += device.at("entries").size();
    return n;
}

std::optional<TuningEntry> TuningCache::find(const DeviceInfo& device, const ConvProblem& problem,
                                             Path path, std::string* whyNot) const {
    const json& devices = state_->document.at("devices");
    const std::string key = deviceKey(device), pk = problemKey(problem, path);
    auto ignored = [&](const std::string& why) {
        if (whyNot) *whyNot = why;
        return std::nullopt;
    };
    const auto d = devices.find(key);
    if (d == devices.end() || !wellFormedDevice(*d) || !d->at("entries").contains(pk)) {
        if (d != devices.end() && !wellFormedDevice(*d))
            return ignored("tuning cache has a malformed record for this device; ignored");
        // Measured through another view of the same device (a profile, or none): never used
        // here, but said, so that a sweep made under a profile is not silently unused.
        for (const auto& [otherKey, body] : devices.items()) {
            if (otherKey == key || otherKey.rfind(hardwareKey(device), 0) != 0 || !wellFormedDevice(body) ||
                !body.at("entries").contains(pk))
                continue;
            const size_t at = otherKey.find(":profile=");
            const std::string other = at == std::string::npos ? "without a profile" : "under profile '" + otherKey.substr(at + 9) + "'";
            const std::string here = device.profile.empty() ? "without a profile" : "under profile '" + device.profile + "'";
            return ignored("tuning cache's entry for this problem was measured " + other + "; not used by a run " + here);
        }
        return std::nullopt;
    }
    TuningEntry entry;
    try {
        entry = entryFromObject(d->at("entries").at(pk));
    } catch (const Error& e) {
        const json& stored = d->at("entries").at(pk);
        if (stored.is_object() && isFlatConfig(stored.value("config", json())))
            return ignored("tuning cache entry for this problem was written by an older vkconv (tuning cache format 2, "
                           "before each kernel had parameters of its own); ignored (sweep again)");
        return ignored(std::string("tuning cache entry for this problem is malformed (") + e.what() + "); ignored");
    }
    const std::string name = "tuning cache entry " + entry.config.str();
    if (entry.vkconvVersion != version())
        return ignored(name + " was measured with vkconv " +
                       (entry.vkconvVersion.empty() ? std::string("of unknown version") : entry.vkconvVersion) +
                       ", this is " + version() + "; ignored (sweep again)");
    if (entry.config.path != path) return ignored(name + " is for another path; ignored");
    // Checked before anything else reads the configuration's fields: canImplement refuses
    // out-of-range values (a hand-edited entry) by name, without computing anything that wraps.
    if (std::string why = canImplement(entry.config, device, problem); !why.empty())
        return ignored(name + " cannot run here (" + why + "); ignored");
    if (const std::string spirv = detail::kernelSpirvHash(entry.config); entry.spirvHash != spirv)
        return ignored(name + " was measured on other kernel code (SPIR-V " +
                       (entry.spirvHash.empty() ? std::string("unknown") : entry.spirvHash) + ", this build's " +
                       spirv + "); ignored (sweep again)");
    return entry;
}

void TuningCache::put(const DeviceInfo& device, const ConvProblem& problem, const TuningEntry& entry) {
    // What is saved is read back by every later plan: refuse what find() could never use.
    problem.validate();
    if (!std::isfinite(entry.ms) || entry.ms < 0)
        throw invalidArgument("entry.ms", entry.ms, "expected a finite time in milliseconds, >= 0");
    TuningEntry e = entry;
    if (e.date.empty()) e.date = detail::utcTimestamp();
    // What the measurement was made with: this build's version and kernel code.
    e.vkconvVersion = version();
    e.spirvHash = detail::kernelSpirvHash(e.config);
    const std::string dk = deviceKey(device), pk = problemKey(problem, entry.config.path);
    json deviceInfo{{"name", device.name}, {"driver", device.driverName + " " + device.driverInfo}};
    State& s = *state_;
    s.puts.emplace_back(dk, pk, entryObject(e), deviceInfo);
    json& d = s.document["devices"][dk];
    if (!wellFormedDevice(d)) d = json{{"entries", json::object()}};
    d.update(deviceInfo);
    d["entries"][pk] = entryObject(e);
}

void TuningCache::requireWritable() const {
    const State& s = *state_;
    if (s.dir.empty()) throw noCacheFolder();
    detail::requireWritableFolder(s.dir, "tuning cache folder " + s.dir);
    // A newer format is never overwritten (save() refuses it): as the constructor read it.
    if (s.readStatus == ReadStatus::Newer) throw newerFormat(file(), s.readProblem);
    if (const std::string why = detail::unwritableFileReason(file()); !why.empty())
        throw Error(Error::Kind::Io, "tuning cache " + file() + ": " + why);
}

void TuningCache::save() {
    State& s = *state_;
    if (s.dir.empty()) throw noCacheFolder();
    // Read, merge and write under one lock: another process (or thread) saving at the same time
    // waits, then merges our entries in turn. Start from what is on disk now, then apply our puts.
    detail::FileLock lock(file() + ".lock", s.warn);
    std::string problem;
    json doc;
    switch (s.read(doc, problem)) {
        case ReadStatus::Absent:
        case ReadStatus::Ok: break;
        case ReadStatus::Newer: throw newerFormat(file(), problem);
        case ReadStatus::Unreadable: {
            const std::string aside = detail::moveAside(file());
            s.warn("tuning cache " + file() + " was corrupt (" + problem + "); kept as " + aside +
                   ", and a new one is written");
            break;
        }
    }
    for (const auto& [dk, pk, entry, deviceInfo] : s.puts) {
        json& d = doc["devices"][dk];
        if (!d.is_null() && !wellFormedDevice(d)) {
            // Never drop what we cannot read: the malformed record moves under "unreadable".
            doc["unreadable"][dk + " " + detail::utcTimestamp()] = d;
            d = json::object();
        }
        if (d.is_null()) d = json::object();
        if (!d.contains("entries")) d["entries"] = json::object();
        d.update(deviceInfo);
        d["entries"][pk] = entry;
    }
    doc["version"] = kVersion;  // older entries stay, and stay ignored
    detail::writeFileAtomically(file(), doc.dump(2) + "\n");
    s.document = std::move(doc);
    s.puts.clear();
}

namespace detail {

TuningLookup TuningCacheReader::lookup(const std::string& dir, const DeviceInfo& device, const ConvProblem& problem,
                                      Path path) {
    std::shared_ptr<const TuningCache> cache;
    TuningLookup out;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        const std::string resolved = resolveCacheDir(dir);
        const FileIdentity now = fileIdentity(resolved.empty() ? "" : resolved + "/tuning.json");
        // File times come from a coarse clock: a file rewritten in place, at the same size,
        // within a few milliseconds of our read has the same identity. One modified less than
        // two seconds before the read is therefore read again, as git treats "racily clean" files.
        const int64_t nowNs = int64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
        const bool settled = !identity_.exists || identity_.modifiedNs + 2'000'000'000 < readAtNs_;
        if (!cache_ || resolved != dir_ || now != identity_ || !settled) {
            // Identity taken before the read: a file replaced during it differs at the next lookup.
            std::vector<std::string> warnings;
            cache_ = std::make_shared<const TuningCache>(dir, [&](const std::string& m) { warnings.push_back(m); });
            const std::string warning = warnings.empty() ? "" : warnings.front();
            // Said once per version of the file, not at every re-read of an unsettled one.
            if (!warning.empty() && (warning != warning_ || now != identity_ || resolved != dir_))
                std::cerr << "vkconv: warning: " << warning << std::endl;
            dir_ = resolved;
            identity_ = now;
            readAtNs_ = nowNs;
            warning_ = warning;
        }
        cache = cache_;
        out.note = warning_;
    }
    std::string whyNot;
    out.entry = cache->find(device, problem, path, &whyNot);
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
