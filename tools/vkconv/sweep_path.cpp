// Sweeping one path: candidates, measurements, decision.
#include "sweep_path.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

namespace vkconv::cli {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Timed first by median, then the wrong ones, then the failed ones.
void sortResults(std::vector<CandidateResult>& results) {
    auto order = [](const CandidateResult& r) {
        return r.status == CandidateResult::Status::Ok ? 0 : r.status == CandidateResult::Status::Wrong ? 1 : 2;
    };
    std::stable_sort(results.begin(), results.end(), [&](const CandidateResult& a, const CandidateResult& b) {
        if (order(a) != order(b)) return order(a) < order(b);
        return order(a) == 0 && a.timing.medianMs < b.timing.medianMs;
    });
}

// Applies the acceptance rule; fills decision, replaced, chosen, chosenMs and the confirmation.
void decide(PathSweep& s, SweepBench& bench, const SweepSettings& settings) {
    const CandidateResult* def = s.find(s.defaultConfig);
    const CandidateResult* best =
        !s.results.empty() && s.results.front().status == CandidateResult::Status::Ok ? &s.results.front() : nullptr;
    s.chosen = s.defaultConfig;
    if (!best) {
        s.decision = "kept default: no configuration passed the reference check (nothing to choose from)";
        return;
    }
    if (!def || def->status != CandidateResult::Status::Ok) {
        s.decision = std::string("accepted: the default ") +
                     (def ? std::string(toString(def->status)) + " (" + def->error + ")" : "was not measured") +
                     "; the fastest correct configuration replaces it";
        s.replaced = true;
        s.chosen = best->config;
        s.chosenMs = best->timing.medianMs;
        return;
    }
    if (best->config == s.defaultConfig) {
        s.decision = "kept default: it is the fastest configuration measured";
        s.chosenMs = def->timing.medianMs;
        return;
    }
    // Copies: retiming below does not touch the results, but keep the inputs explicit.
    AcceptanceInput input;
    input.tuned = best->timing;
    input.incumbent = def->timing;
    const KernelConfig bestConfig = best->config;
    AcceptanceDecision d = decideAcceptance(input, settings.rule);
    if (d.verdict == Verdict::NeedsConfirmation) {
        // Back to back: the default, then the candidate, in the same conditions.
        s.defaultAgain = bench.retime(s.defaultConfig, settings.timing);
        s.tunedAgain = bench.retime(bestConfig, settings.timing);
        input.incumbentAgain = s.defaultAgain;
        input.tunedAgain = s.tunedAgain;
        d = decideAcceptance(input, settings.rule);
    }
    s.decision = d.reason;
    s.replaced = d.accepted();
    s.chosen = s.replaced ? bestConfig : s.defaultConfig;
    if (s.replaced) s.chosenMs = s.tunedAgain->medianMs;
    else s.chosenMs = s.defaultAgain ? s.defaultAgain->medianMs : input.incumbent.medianMs;
}

std::string selectionText(const PathSweep& s, const SweepSettings& settings, size_t timed, bool defaultAdded) {
    std::string text;
    if (settings.nearby)
        text = std::to_string(timed) + " nearby configurations (the current choice and its neighbours: same "
               "tile and grid; pipeline depth, subgroup layout, instruction shape or thread tile changed)";
    else if (timed >= s.considered)
        text = std::to_string(s.considered) + " valid configurations, all timed";
    else
        text = std::to_string(s.considered) + " valid configurations; timing the heuristic's top " +
               std::to_string(timed - (defaultAdded ? 1 : 0)) + (defaultAdded ? " and the cached default" : "") +
               " (--candidates N for more, --all for every one)";
    return text;
}

}  // namespace

PathSweep sweepPath(SweepBench& bench, const DeviceInfo& device, Path path, const SweepDefault& start,
                    const SweepSettings& settings, Progress& progress, const std::string& label) {
    const auto t0 = Clock::now();
    const ConvProblem& problem = bench.problem();
    PathSweep s;
    s.path = path;
    const std::vector<RankedConfig> ranked = rankConfigs(path, device, problem);
    std::map<std::string, size_t> rankOf;
    for (size_t i = 0; i < ranked.size(); ++i) rankOf[ranked[i].config.str()] = i + 1;
    if (ranked.empty()) {
        s.selection = "no configuration of this path fits the device and problem";
        s.decision = "skipped: nothing to measure";
        return s;
    }
    if (start.cached) {
        s.defaultConfig = start.cached->config;
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.4g", start.cached->ms);
        s.defaultSource = std::string("from the tuning cache, measured ") + ms + " ms";
    } else {
        s.defaultConfig = ranked.front().config;
        s.defaultSource = "the heuristic's choice" + (start.note.empty() ? "" : "; " + start.note);
    }

    // The default first, so that every later line can be read against it.
    std::vector<KernelConfig> candidates{s.defaultConfig};
    bool defaultAdded = false;
    if (settings.nearby) {
        candidates = nearbyConfigs(s.defaultConfig, device, problem);
        s.considered = candidates.size();
    } else {
        s.considered = ranked.size();
        const size_t k = settings.all ? ranked.size() : std::min(settings.candidates, ranked.size());
        for (size_t i = 0; i < k; ++i)
            if (!(ranked[i].config == s.defaultConfig)) candidates.push_back(ranked[i].config);
        defaultAdded = rankOf.count(s.defaultConfig.str()) == 0 || rankOf[s.defaultConfig.str()] > k;
    }

    progress.start(label, candidates.size());
    double bestMs = 0;
    size_t done = 0;
    for (const auto& config : candidates) {
        if (settings.budgetSeconds > 0 && done > 0 && secondsSince(t0) > settings.budgetSeconds) break;
        progress.begin(done, config);
        CandidateResult r = bench.measure(config, settings.timing);
        r.heuristicRank = rankOf.count(config.str()) ? rankOf[config.str()] : 0;
        if (r.status == CandidateResult::Status::Ok && (bestMs == 0 || r.timing.medianMs < bestMs))
            bestMs = r.timing.medianMs;
        s.results.push_back(r);
        progress.update(++done, s.results.back(), bestMs);
    }
    progress.finish();
    s.selection = selectionText(s, settings, candidates.size(), defaultAdded);
    if (done < candidates.size())
        s.selection += "; stopped after " + std::to_string(done) + " of them: --budget " +
                       std::to_string(int(settings.budgetSeconds)) + " s reached";
    sortResults(s.results);
    decide(s, bench, settings);
    s.seconds = secondsSince(t0);
    return s;
}

}  // namespace vkconv::cli
