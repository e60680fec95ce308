// The pure parts of tuning: ranking by the heuristic, the micro-tuning neighbourhood, timing
// statistics and the acceptance rule. None of them touches a device.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "kernels/kernel_family.hpp"
#include "select/config_select.hpp"
#include "vkconv/error.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv {

std::vector<RankedConfig> rankConfigs(Path path, const DeviceInfo& device, const ConvProblem& problem) {
    std::vector<RankedConfig> out;
    try {
        for (auto& [config, cost] : detail::selectConfig(path, device, problem).weighed)
            out.push_back({config, cost});
    } catch (const Error& e) {
        if (e.kind() != Error::Kind::Unsupported) throw;  // no configuration fits: empty
    }
    return out;
}

namespace {

// The workgroup tile a configuration computes, with what changes its grid or its loads; layouts,
// instruction shapes, depths and subgroup sizes of one tile share the key.
std::string sweepTileKey(const KernelConfig& c) { return detail::familyOf(c).tileKey(c); }

// The kernel a configuration runs.
std::string sweepKernelKey(const KernelConfig& c) { return detail::familyOf(c).name(); }

}  // namespace

std::vector<KernelConfig> sweepCandidates(const std::vector<RankedConfig>& ranked, size_t count, size_t perTile) {
    count = std::min(count, ranked.size());
    std::vector<KernelConfig> out;
    std::vector<bool> taken(ranked.size(), false);
    std::map<std::string, size_t> perKey;
    auto take = [&](size_t i) {
        ++perKey[sweepTileKey(ranked[i].config)];
        taken[i] = true;
        out.push_back(ranked[i].config);
    };
    if (perTile) {
        std::set<std::string> kernels;
        for (size_t i = 0; i < ranked.size() && out.size() < count; ++i)
            if (kernels.insert(sweepKernelKey(ranked[i].config)).second) take(i);
    }
    for (size_t i = 0; i < ranked.size() && out.size() < count; ++i) {
        if (taken[i]) continue;
        size_t& n = perKey[sweepTileKey(ranked[i].config)];
        if (perTile && n >= perTile) continue;
        take(i);
    }
    for (size_t i = 0; i < ranked.size() && out.size() < count; ++i)
        if (!taken[i]) out.push_back(ranked[i].config);
    return out;
}

Path resolvePath(Precision precision, const DeviceInfo& device, const ConvProblem& problem, std::string* why) {
    detail::PathChoice choice = detail::choosePath(precision, device, problem);
    if (why) *why = choice.why;
    return choice.path;
}

std::vector<KernelConfig> nearbyConfigs(const KernelConfig& current, const DeviceInfo& d, const ConvProblem& p) {
    constexpr size_t kMaxNeighbours = 5;
    // Kinds of neighbour, most wanted first, each with how many it gets before the rest compete
    // on heuristic cost for the slots left.
    const detail::NeighbourKinds kinds = detail::familyOf(current).neighbours(current, d);

    std::vector<KernelConfig> out{current};
    auto seen = [&](const KernelConfig& c) { return std::find(out.begin(), out.end(), c) != out.end(); };
    std::vector<std::pair<double, KernelConfig>> rest;
    for (auto& [list, quota] : kinds) {
        std::vector<std::pair<double, KernelConfig>> valid;
        for (const auto& c : list)
            if (canImplement(c, d, p).empty() && !seen(c)) valid.push_back({detail::heuristicCost(c, d, p), c});
        std::stable_sort(valid.begin(), valid.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        size_t taken = 0;
        for (auto& [cost, c] : valid) {
            if (seen(c)) continue;
            if (taken < quota && out.size() < 1 + kMaxNeighbours) {
                out.push_back(c);
                ++taken;
            } else {
                rest.push_back({cost, c});
            }
        }
    }
    std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [cost, c] : rest)
        if (out.size() < 1 + kMaxNeighbours && !seen(c)) out.push_back(c);
    return out;
}

TimingStats summarizeTimes(std::vector<double> ms) {
    if (ms.empty()) throw invalidArgument("times", "[]", "need at least one measurement");
    std::sort(ms.begin(), ms.end());
    auto at = [&](double q) {
        const double h = q * double(ms.size() - 1);
        const size_t lo = size_t(std::floor(h)), hi = size_t(std::ceil(h));
        return ms[lo] + (h - double(lo)) * (ms[hi] - ms[lo]);
    };
    TimingStats t;
    t.runs = int(ms.size());
    t.minMs = ms.front();
    t.maxMs = ms.back();
    t.medianMs = at(0.5);
    t.p10Ms = at(0.1);
    t.p90Ms = at(0.9);
    t.spread = t.medianMs > 0 ? (t.p90Ms - t.p10Ms) / t.medianMs : 0;
    return t;
}

namespace {

std::string percent(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100);
    return buf;
}

}  // namespace

AcceptanceDecision decideAcceptance(const AcceptanceInput& in, const AcceptanceRule& rule) {
    AcceptanceDecision d;
    auto gainOf = [](const TimingStats& tuned, const TimingStats& incumbent) {
        return incumbent.medianMs > 0 ? 1.0 - tuned.medianMs / incumbent.medianMs : 0.0;
    };
    d.gain = gainOf(in.tuned, in.incumbent);
    if (d.gain <= 0) {
        d.verdict = Verdict::KeptNotFaster;
        d.reason = "kept default: no faster configuration measured";
        return d;
    }
    if (d.gain < rule.minGain) {
        d.verdict = Verdict::KeptNotFaster;
        d.reason = "kept default: only " + percent(d.gain) + " faster (the rule asks " + percent(rule.minGain) + ")";
        return d;
    }
    if (!in.tunedAgain || !in.incumbentAgain) {
        d.verdict = Verdict::NeedsConfirmation;
        d.reason = percent(d.gain) + " faster in the sweep; needs a confirming timing";
        return d;
    }
    d.confirmedGain = gainOf(*in.tunedAgain, *in.incumbentAgain);
    // The tuned configuration's two measurements and the default's confirming one. The default's
    // sweep timing only triggered the confirmation (it may date from minutes ago); the decision
    // rests on the back-to-back pair.
    const double worst = std::max({in.tuned.spread, in.tunedAgain->spread, in.incumbentAgain->spread});
    // Spread past the limit is noise only where it could hide the gain: where both of the tuned
    // configuration's measurements ran their middle 80% (p10-p90) wholly below the default's
    // second one, the order is plain however wide each range is (the H200 sweep of ConvNeXt's 7x7
    // depthwise at 7x7 kept a default 2.8 times slower for a spread of 7.5%).
    const bool apart = in.tuned.p90Ms < in.incumbentAgain->p10Ms && in.tunedAgain->p90Ms < in.incumbentAgain->p10Ms;
    if (!(worst < rule.maxSpread) && !apart) {
        d.verdict = Verdict::KeptUnstable;
        d.reason = "kept default: unstable (spread " + percent(worst) + ", the rule asks under " +
                   percent(rule.maxSpread) + ")";
        return d;
    }
    if (d.confirmedGain < rule.minGain) {
        d.verdict = Verdict::KeptNotConfirmed;
        d.reason = "kept default: not confirmed (" + percent(d.gain) + " faster in the sweep, " +
                   percent(d.confirmedGain) + " on the second timing)";
        return d;
    }
    d.verdict = Verdict::Accepted;
    d.reason = "accepted: " + percent(d.gain) + " faster, spread " + percent(in.tunedAgain->spread) + "/" +
               percent(in.incumbentAgain->spread) +
               (worst < rule.maxSpread ? std::string()
                                       : " (" + percent(worst) + " over the " + percent(rule.maxSpread) +
                                             " the rule asks, every p90 below the default's p10)") +
               ", confirmed (" + percent(d.confirmedGain) + " faster on the second timing)";
    return d;
}

}  // namespace vkconv
