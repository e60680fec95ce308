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

// The rounds' figures as one: the median of the round medians, the widest spread.
TimingStats combineRounds(const std::vector<TimingStats>& rounds) {
    std::vector<double> medians;
    TimingStats t = rounds.front();
    t.runs = 0;
    for (const TimingStats& r : rounds) {
        medians.push_back(r.medianMs);
        t.runs += r.runs;
        t.minMs = std::min(t.minMs, r.minMs);
        t.maxMs = std::max(t.maxMs, r.maxMs);
        t.spread = std::max(t.spread, r.spread);
    }
    t.medianMs = summarizeTimes(medians).medianMs;
    return t;
}

// Times the fastest few correct configurations and the default again, round after round, each
// round in another order.
void retimeLeaders(PathSweep& s, SweepBench& bench, const SweepSettings& settings) {
    std::vector<const CandidateResult*> leaders;
    if (const CandidateResult* def = s.find(s.defaultConfig); def && def->status == CandidateResult::Status::Ok)
        leaders.push_back(def);
    for (const CandidateResult& r : s.results) {
        if (leaders.size() > settings.leaders || r.status != CandidateResult::Status::Ok) break;
        if (!(r.config == s.defaultConfig)) leaders.push_back(&r);
    }
    if (leaders.size() < 2 || settings.rounds < 1) return;
    std::vector<std::vector<TimingStats>> rounds(leaders.size());
    for (int round = 0; round < settings.rounds; ++round)
        for (size_t i = 0; i < leaders.size(); ++i) {
            const size_t k = (i + size_t(round)) % leaders.size();
            rounds[k].push_back(bench.retime(leaders[k]->config, settings.timing));
        }
    for (size_t k = 0; k < leaders.size(); ++k)
        s.leaders.push_back({leaders[k]->config, leaders[k]->timing.medianMs, combineRounds(rounds[k])});
    s.rounds = settings.rounds;
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
    retimeLeaders(s, bench, settings);
    if (s.leaders.empty()) {
        // Nothing re-timed: either the default is the only correct configuration, or --rounds 0
        // asked for no confirming timing, without which the rule cannot accept; say how far it got.
        const bool others = std::any_of(s.results.begin(), s.results.end(), [&](const CandidateResult& r) {
            return r.status == CandidateResult::Status::Ok && !(r.config == s.defaultConfig);
        });
        s.chosenMs = def->timing.medianMs;
        if (!others) {
            s.decision = "kept default: it is the only configuration that passed the reference check";
            return;
        }
        AcceptanceInput input;
        input.tuned = best->timing;
        input.incumbent = def->timing;
        const AcceptanceDecision d = decideAcceptance(input, settings.rule);
        char gain[48];
        std::snprintf(gain, sizeof gain, "%.1f%% faster in the sweep", 100.0 * d.gain);
        s.decision = d.verdict == Verdict::NeedsConfirmation
                         ? std::string("kept default: ") + gain + ", unconfirmed (--rounds 0 times nothing again)"
                         : d.reason;
        return;
    }
    // The leaders' re-timed figures decide which is fastest; the rule then asks that it was
    // faster than the default both in the sweep and in the rounds.
    const PathSweep::Leader* fastest = &s.leaders.front();
    for (const auto& l : s.leaders)
        if (l.again.medianMs < fastest->again.medianMs) fastest = &l;
    const PathSweep::Leader& defaultLeader = s.leaders.front();
    s.defaultAgain = defaultLeader.again;
    if (fastest->config == s.defaultConfig) {
        s.decision = "kept default: it is the fastest configuration re-timed";
        s.chosenMs = defaultLeader.again.medianMs;
        return;
    }
    AcceptanceInput input;
    input.tuned = s.find(fastest->config)->timing;
    input.incumbent = def->timing;
    input.tunedAgain = fastest->again;
    input.incumbentAgain = defaultLeader.again;
    s.tunedAgain = fastest->again;
    const AcceptanceDecision d = decideAcceptance(input, settings.rule);
    s.decision = d.reason;
    s.replaced = d.accepted();
    s.chosen = s.replaced ? fastest->config : s.defaultConfig;
    s.chosenMs = s.replaced ? fastest->again.medianMs : defaultLeader.again.medianMs;
}

std::string selectionText(const PathSweep& s, const SweepSettings& settings, size_t timed, bool defaultAdded) {
    std::string text;
    if (settings.nearby)
        text = std::to_string(timed) + " nearby configurations (the current choice and its neighbours: same "
               "tile and grid; pipeline depth, subgroup layout, instruction shape or thread tile changed)";
    else if (timed >= s.considered)
        text = std::to_string(s.considered) + " valid configurations, all timed";
    else
        text = std::to_string(s.considered) + " valid configurations; timing " +
               prunedSelection(timed - (defaultAdded ? 1 : 0), settings) +
               (defaultAdded ? ", and the cached default" : "") +
               " (--candidates N for more, --per-tile 0 for the plain top N, --all for every one)";
    return text;
}

}  // namespace

std::string prunedSelection(size_t timed, const SweepSettings& settings) {
    return std::to_string(timed) + " in the heuristic's order" +
           (settings.perTile ? ", each kernel's best first, at most " + std::to_string(settings.perTile) +
                                   " of one workgroup tile"
                             : "");
}

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
        const size_t k = settings.all ? ranked.size() : settings.candidates;
        defaultAdded = true;
        for (const KernelConfig& c : sweepCandidates(ranked, k, settings.all ? 0 : settings.perTile)) {
            if (c == s.defaultConfig)
                defaultAdded = false;
            else
                candidates.push_back(c);
        }
    }

    // NVIDIA's driver takes 0.1-20 s to build one of these pipelines, and builds several at once
    // on several threads: a sweep of ConvNeXt-T's eight layers spent most of its time building.
    double buildSeconds = 0;
    if (settings.jobs > 1 && candidates.size() > 1) buildSeconds = bench.prebuild(candidates, settings.jobs);

    progress.start(label, candidates.size());
    double bestMs = 0;
    size_t done = 0;
    for (const auto& config : candidates) {
        if (settings.budgetSeconds > 0 && done > 0 && secondsSince(t0) > settings.budgetSeconds) break;
        progress.begin(done, config);
        CandidateResult r = bench.measure(config, settings.timing);
        r.heuristicRank = rankOf.count(config.str()) ? rankOf[config.str()] : 0;
        r.order = done + 1;
        r.atSeconds = secondsSince(t0);
        if (r.status == CandidateResult::Status::Ok && (bestMs == 0 || r.timing.medianMs < bestMs))
            bestMs = r.timing.medianMs;
        s.results.push_back(r);
        progress.update(++done, s.results.back(), bestMs);
    }
    progress.finish();
    s.selection = selectionText(s, settings, candidates.size(), defaultAdded);
    if (buildSeconds > 0) {
        char built[96];
        std::snprintf(built, sizeof built, "; their pipelines built first on %zu threads (%.1f s)",
                      std::min<size_t>(settings.jobs, candidates.size()), buildSeconds);
        s.selection += built;
    }
    if (done < candidates.size())
        s.selection += "; stopped after " + std::to_string(done) + " of them: --budget " +
                       std::to_string(int(settings.budgetSeconds)) + " s reached";
    sortResults(s.results);
    decide(s, bench, settings);
    s.seconds = secondsSince(t0);
    return s;
}

}  // namespace vkconv::cli
