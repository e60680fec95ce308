// Tuning: what `vkconv sweep` measures and what every later Conv2d reuses.
//
//  - TuningCache: a JSON file (<cache dir>/tuning.json) of measured configurations, keyed by device
//    (vendor id, device id, driver version, pipelineCacheUUID, and the profile it was seen
//    through) and by problem and path. Each entry records the vkconv version and a hash of the
//    SPIR-V it was measured with; an entry of another version or other kernel code is ignored.
//    Conv2d looks it up automatically (ConvOptions::useTuningCache) when no configuration is given.
//  - rankConfigs: every configuration a path can use, ranked by the heuristic (no GPU work).
//  - nearbyConfigs: the micro-tuning neighbourhood of one configuration.
//  - decideAcceptance: the rule that lets a tuned configuration replace the default.
//
// The cache folder is, in order: ContextOptions::cacheDir (or the directory given to
// TuningCache), env VKCONV_CACHE_DIR, $XDG_CACHE_HOME/vkconv, $HOME/.cache/vkconv.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vkconv/conv_problem.hpp"
#include "vkconv/device_info.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv {

// The cache folder (see above) for an explicit choice ("" for none); "" if no variable is set.
std::string resolveCacheDir(const std::string& explicitDir = "");

// "10de:2335:driver=0x91e10000:uuid=0123...ef": the device as the caches key it, with
// ":profile=NAME" appended for a device seen through a DeviceProfile. A driver update changes the
// key, so measurements made under another driver (or profile) are never reused.
std::string deviceKey(const DeviceInfo& device);
// "coopmat-f16 N=256 C=3 H=224 ...": the path and the full problem (ConvProblem::str()).
std::string problemKey(const ConvProblem& problem, Path path);

// The tuning cache's JSON form of a configuration (every field) and back. fromJson-style parsing
// throws vkconv::Error(InvalidArgument) naming the bad field.
std::string configToJson(const KernelConfig& config);
KernelConfig configFromJson(const std::string& json);

struct TuningEntry {
    KernelConfig config;
    double ms = 0;          // median GPU time the sweep measured for it
    std::string date;       // when, ISO 8601 UTC ("2026-11-21T10:00:00Z")
    std::string decision;   // the acceptance rule's verdict, e.g. "accepted: 7.3% faster, ..."
    // Set by TuningCache::put (this build's), read back by find: what it was measured with.
    std::string vkconvVersion{};  // vkconv::version()
    std::string spirvHash{};      // "fnv1a64:...": the SPIR-V of the shaders the configuration runs
};

class TuningCache {
public:
    using WarningHandler = std::function<void(const std::string&)>;

    // Reads <dir>/tuning.json (dir "": resolveCacheDir()). A missing file is an empty cache. A
    // corrupt one (not JSON, not a tuning cache) is never trusted: it is reported to onWarning
    // (default: one line on stderr) and in notes(), treated as empty, and moved aside (kept, with
    // a warning) by the next save(). A file of a newer format is reported and never overwritten.
    // A malformed entry is ignored by find() (saying why) and kept. Never throws for file problems.
    explicit TuningCache(const std::string& dir = "", WarningHandler onWarning = nullptr);
    ~TuningCache();
    TuningCache(TuningCache&&) noexcept;
    TuningCache& operator=(TuningCache&&) noexcept;

    const std::string& dir() const;
    std::string file() const;  // "" when no cache folder could be determined

    // The entry for (device, problem, path): only one recorded for exactly this device, driver
    // and profile, by this vkconv version on this kernel code, and only if its configuration
    // still passes canImplement() (else `whyNot` says why it was ignored, e.g. an entry made
    // under a profile when the device has none).
    std::optional<TuningEntry> find(const DeviceInfo& device, const ConvProblem& problem, Path path,
                                    std::string* whyNot = nullptr) const;

    // Records an entry (in memory until save()).
    void put(const DeviceInfo& device, const ConvProblem& problem, const TuningEntry& entry);

    // Under an exclusive lock on <file>.lock (flock), merges this cache's puts into what is on
    // disk now (entries other processes saved since this cache was read stay; this cache's puts
    // win) and writes the file atomically (a temporary file renamed over it). Entries of other
    // devices, and entries it cannot parse, are kept. Throws vkconv::Error(Io) if the folder or
    // file cannot be written, or the file on disk is of a newer format.
    void save();

    // Throws vkconv::Error(Io), saying why, unless save() could write now: a cache folder is
    // known, exists or can be made, and takes new files, and the file is not of a newer format.
    // What a long sweep checks before it measures anything.
    void requireWritable() const;

    const std::vector<std::string>& notes() const;
    size_t size() const;  // entries for all devices

private:
    struct State;  // the parsed file (nlohmann::json stays out of the public headers)
    std::unique_ptr<State> state_;
};

// Ranking without running anything: every configuration of `path` that fits, cheapest first by
// the heuristic's estimated cost (relative units). Empty if none fits.
struct RankedConfig {
    KernelConfig config;
    double cost = 0;
};
std::vector<RankedConfig> rankConfigs(Path path, const DeviceInfo& device, const ConvProblem& problem);

// What a pruned sweep times besides its default: first the best-ranked configuration of each
// kernel in `ranked` (each A loader of the path's GEMM, the grouped direct kernel), then `ranked`
// in order, at most `perTile` of each workgroup tile (the A loader, BM x BN x BK, the K split and
// tiles a workgroup; the grouped direct kernel's output tile), until `count` are taken; if the cap
// leaves fewer, the rest of the ranking in order fills them. perTile 0: neither (the first
// `count`). The heuristic's measured errors were mostly of the tile (BN 128 against 256, BM 128
// against 64, a split) or of the kernel, while its first places often differ only in subgroup
// layout or instruction shape: its top 20 on ResNet-50's 1x1 1024->256 at batch 32 held 14
// variants of one 32x64x32 tile and not the 64x128 tile that ran 18% faster; at batch 1-2 the
// NCHW loader, ranked below 40th on 1x1 512->2048 at 7x7 and 2048->512, ran 15-21% faster than
// the channels-last kernel the sweep had timed (H100 and H200, bench/history/).
std::vector<KernelConfig> sweepCandidates(const std::vector<RankedConfig>& ranked, size_t count, size_t perTile);

// The path a precision resolves to on this device for this problem, and why.
Path resolvePath(Precision precision, const DeviceInfo& device, const ConvProblem& problem,
                 std::string* why = nullptr);

// The neighbourhood of `current` for micro-tuning: the same workgroup tile (BM, BN, BK), hence
// the same grid, with pipeline depth +-1, other subgroup layouts (warpsM x warpsN) and
// instruction shapes, then B's path or the gather lanes (cooperative matrix), or other thread
// tiles (fp32); every one passes canImplement. `current` first, then up to 5 neighbours: depth
// first, then the heuristic's favourites of each kind.
std::vector<KernelConfig> nearbyConfigs(const KernelConfig& current, const DeviceInfo& device,
                                        const ConvProblem& problem);

// Timing summary of repeated runs (the sweep, the benchmark and measureCopyBandwidth use it).
struct TimingStats {
    int runs = 0;
    double medianMs = 0, minMs = 0, maxMs = 0, p10Ms = 0, p90Ms = 0;
    double spread = 0;  // (p90 - p10) / median
};
TimingStats summarizeTimes(std::vector<double> ms);  // percentiles interpolated; throws if empty

// The acceptance rule: a tuned configuration replaces the default only if it is at least
// minGain faster (time saved, 1 - tuned/default) in the sweep AND again in a second timing of
// both, back to back, AND its two measurements and the default's second one each have a spread
// under maxSpread, or else each of its two measurements' p90 lies below the default's second p10
// (the default's sweep timing only triggers the second timing).
struct AcceptanceRule {
    double minGain = 0.02;
    double maxSpread = 0.05;
};
struct AcceptanceInput {
    TimingStats tuned, incumbent;                         // from the sweep
    std::optional<TimingStats> tunedAgain, incumbentAgain;  // the confirming timing
};
enum class Verdict {
    Accepted,
    NeedsConfirmation,  // faster enough in the sweep: time both again and ask once more
    KeptNotFaster,
    KeptUnstable,
    KeptNotConfirmed,
};
struct AcceptanceDecision {
    Verdict verdict = Verdict::KeptNotFaster;
    bool accepted() const { return verdict == Verdict::Accepted; }
    double gain = 0;           // 1 - tuned/incumbent in the sweep
    double confirmedGain = 0;  // the same in the confirming timing (0 if none)
    std::string reason;        // "accepted: 7.3% faster, spread 0.4%/0.6%, confirmed" etc.
};
AcceptanceDecision decideAcceptance(const AcceptanceInput& input, const AcceptanceRule& rule = {});

}  // namespace vkconv
