// What `vkconv sweep` found, and how it is shown: progress while it runs (a bar on a terminal,
// one plain line per configuration otherwise), a table sorted by time per problem and path, a
// summary, and the JSON file.
#pragma once

#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sweep_measure.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv::cli {

// One path of one problem.
struct PathSweep {
    Path path = Path::Fp32;
    size_t considered = 0;  // valid configurations of the path (or nearby candidates)
    std::string selection;  // which of them were timed and why
    KernelConfig defaultConfig;
    std::string defaultSource;  // "the heuristic's choice" or "the tuning cache (measured ...)"
    std::vector<CandidateResult> results;  // timed ones by median, then wrong, then failed
    std::optional<TimingStats> tunedAgain, defaultAgain;  // the confirming timing, if one was made
    // The leaders (the fastest few and the default) timed again after every candidate, in
    // interleaved rounds, so that the order in which candidates were first timed cannot bias
    // the choice. The default's re-timing against its first figure shows whether the device's
    // state drifted during the sweep.
    struct Leader {
        KernelConfig config;
        double firstMs = 0;  // in the sweep
        TimingStats again;   // over the rounds
    };
    std::vector<Leader> leaders;
    int rounds = 0;
    std::string decision;    // the acceptance rule's verdict, as printed
    bool replaced = false;   // the tuned configuration replaced the default
    KernelConfig chosen;     // what later runs use
    double chosenMs = 0;
    std::string cacheNote;   // "wrote ... to FILE", "not saved (--no-save)", ...
    double seconds = 0;

    const CandidateResult* find(const KernelConfig& config) const;
};

struct ProblemSweep {
    std::string name;  // the suite's shape name, or "problem"
    ConvProblem problem;
    std::vector<PathSweep> paths;
    double seconds = 0;
};

// Progress over one path's candidates.
class Progress {
public:
    Progress(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}
    void start(const std::string& label, size_t total);
    void update(size_t done, const CandidateResult& last, double bestMs);
    void finish();

private:
    std::ostream& out_;
    bool terminal_;
    std::string label_;
    size_t total_ = 0;
    std::chrono::steady_clock::time_point start_;
};

// The table of one path: the `top` fastest, then wrong and failed ones, then the decision.
void printPathReport(std::ostream& out, const ProblemSweep& problem, const PathSweep& path, size_t top);

// One line per problem and path: default, chosen, decision.
void printSummary(std::ostream& out, const std::vector<ProblemSweep>& problems, double seconds);

// The whole sweep as JSON (every measured configuration, not only the top).
std::string sweepJson(const std::vector<ProblemSweep>& problems, const DeviceInfo& device,
                      const std::string& mode, double seconds);

}  // namespace vkconv::cli
