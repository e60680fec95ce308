// Progress, tables and JSON of a sweep.
#include "sweep_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace vkconv::cli {

namespace {

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string pct(double fraction) { return fmt("%.1f%%", fraction * 100); }

}  // namespace

const CandidateResult* PathSweep::find(const KernelConfig& config) const {
    for (const auto& r : results)
        if (r.config == config) return &r;
    return nullptr;
}

void Progress::start(const std::string& label, size_t total) {
    label_ = label;
    total_ = total;
    bestMs_ = 0;
    start_ = std::chrono::steady_clock::now();
}

double Progress::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string Progress::duration(double seconds) {
    const long long s = std::llround(std::max(0.0, seconds));
    char buf[32];
    if (s < 60) std::snprintf(buf, sizeof buf, "%lld s", s);
    else if (s < 3600) std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
    else std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, s / 60 % 60);
    return buf;
}

std::string Progress::figures(size_t done, size_t total, double elapsedSeconds, double bestMs) {
    std::string s = std::to_string(done) + "/" + std::to_string(total) + ", " + duration(elapsedSeconds) + " elapsed";
    // The time left at the mean pace so far; none before the first candidate is done.
    if (done > 0 && done < total)
        s += ", ~" + duration(elapsedSeconds / double(done) * double(total - done)) + " left";
    if (bestMs > 0) s += ", best " + fmt("%.4f", bestMs) + " ms";
    return s;
}

void Progress::redraw(size_t done, const std::string& tail) {
    constexpr size_t kWidth = 20;
    const size_t filled = total_ ? std::min(done, total_) * kWidth / total_ : kWidth;
    std::string bar(filled, '#');
    bar.resize(kWidth, '.');
    std::string line = "  [" + bar + "] " + figures(done, total_, elapsed(), bestMs_) + "  " + label_ + tail;
    // Longer than the terminal, the line would wrap and '\r' would no longer return to its start.
    if (line.size() >= columns_) line.resize(columns_ - 1);
    out_ << "\r\033[K" << line << std::flush;
}

void Progress::begin(size_t done, const KernelConfig& next) {
    if (terminal_) redraw(done, "  timing " + next.str());
}

void Progress::update(size_t done, const CandidateResult& last, double bestMs) {
    bestMs_ = bestMs;
    if (terminal_) {
        redraw(done, "");
        return;
    }
    char head[48];
    std::snprintf(head, sizeof head, "  [%zu/%zu] ", done, total_);
    out_ << head;
    if (last.status == CandidateResult::Status::Ok)
        out_ << fmt("%.3f", last.timing.medianMs) << " ms (spread " << pct(last.timing.spread) << ", plan "
             << fmt("%.0f", last.planMs) << " ms)  ";
    else
        out_ << toString(last.status) << ": " << last.error << "  ";
    out_ << last.config.str() << "\n";
    if (done % kPlainSummaryEvery == 0 && done < total_)
        out_ << "  progress: " << figures(done, total_, elapsed(), bestMs_) << " (" << label_ << ")\n";
    out_ << std::flush;
}

void Progress::finish() {
    if (terminal_) out_ << "\r\033[K" << std::flush;
}

void printPathReport(std::ostream& out, const ProblemSweep& problem, const PathSweep& s, size_t top) {
    const CandidateResult* def = s.find(s.defaultConfig);
    const double defMs = def && def->status == CandidateResult::Status::Ok ? def->timing.medianMs : 0;
    out << "  " << toString(s.path) << ": " << s.selection << "\n";
    out << "     #  median ms   spread   TFLOP/s  vs default  plan ms  heuristic #  configuration\n";
    size_t shown = 0;
    bool defaultShown = false;
    for (const auto& r : s.results) {
        if (r.status != CandidateResult::Status::Ok) break;
        const bool isDefault = r.config == s.defaultConfig;
        if (shown >= top && !isDefault) continue;
        char line[160];
        std::snprintf(line, sizeof line, "  %4zu  %9.4f  %6.1f%%  %8.3g  %10s  %7.0f  %11s  ", ++shown,
                      r.timing.medianMs, r.timing.spread * 100,
                      problem.problem.flops() / (r.timing.medianMs * 1e-3) * 1e-12,
                      defMs > 0 ? fmt("%+.1f%%", (r.timing.medianMs / defMs - 1) * 100).c_str() : "-", r.planMs,
                      r.heuristicRank ? std::to_string(r.heuristicRank).c_str() : "-");
        out << line << r.config.str() << (isDefault ? "   <- default" : "") << "\n";
        defaultShown |= isDefault;
        if (shown >= top && defaultShown) break;
    }
    size_t ok = 0;
    for (const auto& r : s.results) ok += r.status == CandidateResult::Status::Ok;
    if (ok > shown) out << "        ... " << ok - shown << " more (--top N shows more; --json FILE has all)\n";
    for (const auto& r : s.results)
        if (r.status != CandidateResult::Status::Ok)
            out << "     " << toString(r.status) << " (never selected): " << r.config.str() << ": " << r.error << "\n";

    out << "  default:   " << s.defaultConfig.str() << " (" << s.defaultSource << ")";
    if (def && def->status == CandidateResult::Status::Ok) out << ", " << fmt("%.4f", defMs) << " ms";
    else if (def) out << ", " << toString(def->status) << ": " << def->error;
    out << "\n";
    if (!s.leaders.empty()) {
        out << "  re-timed:  the default and the fastest " << s.leaders.size() - 1 << ", " << s.rounds
            << " interleaved rounds after the last candidate (first figure -> again):\n";
        for (const auto& l : s.leaders)
            out << "             " << fmt("%.4f", l.firstMs) << " -> " << fmt("%.4f", l.again.medianMs) << " ms ("
                << fmt("%+.1f%%", (l.again.medianMs / l.firstMs - 1) * 100) << ", spread " << pct(l.again.spread)
                << ")  " << l.config.str() << (l.config == s.defaultConfig ? "   <- default, timed first" : "")
                << "\n";
    }
    out << "  decision:  " << s.decision << "\n";
    out << "  chosen:    " << s.chosen.str() << (s.chosenMs > 0 ? ", " + fmt("%.4f", s.chosenMs) + " ms" : "") << "\n";
    if (!s.cacheNote.empty()) out << "  cache:     " << s.cacheNote << "\n";
    out << "  took:      " << fmt("%.1f", s.seconds) << " s\n";
}

void printSummary(std::ostream& out, const std::vector<ProblemSweep>& problems, double seconds) {
    out << "\n== summary (" << fmt("%.1f", seconds) << " s)\n";
    // "default vs best": how far the default (the heuristic's choice, with --no-tuning-cache)
    // is from the fastest configuration the sweep measured.
    out << "  problem                         path          default ms    best ms  default vs best  chosen ms  decision\n";
    for (const auto& p : problems)
        for (const auto& s : p.paths) {
            const CandidateResult* def = s.find(s.defaultConfig);
            const bool defOk = def && def->status == CandidateResult::Status::Ok;
            const bool bestOk = !s.results.empty() && s.results.front().status == CandidateResult::Status::Ok;
            const double bestMs = bestOk ? s.results.front().timing.medianMs : 0;
            char line[200];
            std::snprintf(line, sizeof line, "  %-30s  %-12s  %10s  %9s  %15s  %9s  ", p.name.c_str(), toString(s.path),
                          defOk ? fmt("%.4f", def->timing.medianMs).c_str() : "-",
                          bestOk ? fmt("%.4f", bestMs).c_str() : "-",
                          defOk && bestOk ? fmt("%+.1f%%", (def->timing.medianMs / bestMs - 1) * 100).c_str() : "-",
                          s.chosenMs > 0 ? fmt("%.4f", s.chosenMs).c_str() : "-");
            out << line << s.decision << "\n";
        }
}

std::string sweepJson(const std::vector<ProblemSweep>& problems, const DeviceInfo& device,
                      const std::string& mode, double seconds) {
    using nlohmann::json;
    auto timingJson = [](const TimingStats& t) {
        return json{{"runs", t.runs},   {"median_ms", t.medianMs}, {"min_ms", t.minMs},
                    {"p10_ms", t.p10Ms}, {"p90_ms", t.p90Ms},      {"spread", t.spread}};
    };
    json doc{{"tool", "vkconv sweep"},
             {"mode", mode},
             {"seconds", seconds},
             {"device",
              {{"name", device.name},
               {"key", deviceKey(device)},
               {"driver", device.driverName + " " + device.driverInfo}}},
             {"problems", json::array()}};
    for (const auto& p : problems) {
        json jp{{"name", p.name}, {"problem", p.problem.str()}, {"gflop", p.problem.flops() * 1e-9},
                {"seconds", p.seconds}, {"paths", json::array()}};
        for (const auto& s : p.paths) {
            json js{{"path", toString(s.path)},
                    {"considered", s.considered},
                    {"timed", s.results.size()},
                    {"selection", s.selection},
                    {"default", {{"config", json::parse(configToJson(s.defaultConfig))},
                                 {"name", s.defaultConfig.str()},
                                 {"source", s.defaultSource}}},
                    {"decision", s.decision},
                    {"replaced_default", s.replaced},
                    {"chosen", {{"config", json::parse(configToJson(s.chosen))}, {"name", s.chosen.str()},
                                {"ms", s.chosenMs}}},
                    {"cache", s.cacheNote},
                    {"seconds", s.seconds},
                    {"results", json::array()}};
            if (s.tunedAgain && s.defaultAgain)
                js["confirmation"] = {{"best", timingJson(*s.tunedAgain)}, {"default", timingJson(*s.defaultAgain)}};
            js["leaders"] = json::array();
            for (const auto& l : s.leaders)
                js["leaders"].push_back({{"name", l.config.str()}, {"first_ms", l.firstMs},
                                         {"again", timingJson(l.again)}, {"rounds", s.rounds}});
            for (const auto& r : s.results) {
                json jr{{"name", r.config.str()},        {"config", json::parse(configToJson(r.config))},
                        {"status", toString(r.status)},  {"heuristic_rank", r.heuristicRank},
                        {"plan_ms", r.planMs},            {"relative_error", r.relativeError},
                        {"measured_order", r.order},      {"measured_at_s", r.atSeconds},
                        {"warmup_ms", r.warmup.wallMs},   {"warmup_runs", r.warmup.runs}};
                if (r.status == CandidateResult::Status::Ok) jr["timing"] = timingJson(r.timing);
                else jr["error"] = r.error;
                if (!std::isfinite(r.relativeError)) jr["relative_error"] = nullptr;
                js["results"].push_back(jr);
            }
            jp["paths"].push_back(js);
        }
        doc["problems"].push_back(jp);
    }
    return doc.dump(2) + "\n";
}

}  // namespace vkconv::cli
