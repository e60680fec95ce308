// `vkconv sweep`: measure the configurations of every path for one problem (the same flags as
// `vkconv run`) or a suite of bench/shapes.json, check each against the CPU reference, time it,
// apply the acceptance rule against the current default and record the verdict in the tuning
// cache, which every later Conv2d (and `vkconv run`) on this device and driver then uses.
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include "runtime/cache_files.hpp"
#include "cache_options.hpp"
#include "commands.hpp"
#include "device_options.hpp"
#include "problem_options.hpp"
#include "shapes.hpp"
#include "sweep_path.hpp"
#include "vkconv/error.hpp"

namespace vkconv::cli {

namespace {

struct SweepFlags {
    ProblemFlags problem;
    DeviceFlags device;
    CacheFlags cache;
    std::string suite, shape, shapesFile, precision = "all", json;
    SweepSettings settings;
    double minGainPercent = 2, maxSpreadPercent = 5;
    // Counts read signed, so that a negative one is refused rather than wrapped to a huge size_t;
    // checkFlags copies them into settings.
    int64_t candidates = int64_t(SweepSettings{}.candidates), perTile = int64_t(SweepSettings{}.perTile), top = 10;
    // Pipeline builds run on the CPU: as many threads as it has, up to 8.
    int64_t jobs = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 8);
    bool noSave = false;
    uint64_t seed = 1;
};

// The same default batches as `vkconv run`, so that a run with the same flags finds the entry.
constexpr int64_t kGpuBatch = 256, kCpuBatch = 8;

struct NamedProblem {
    std::string name;
    ConvProblem problem;
};

// The suite's (or the one named) shapes; none without --suite/--shape. Read before the device is
// set up, so that a bad name fails fast.
std::vector<bench::BenchShape> suiteShapes(const SweepFlags& f) {
    if (f.suite.empty() && f.shape.empty()) return {};
    requireOnlyBatch(f.problem, f.shape.empty() ? "--suite " + f.suite : "--shape " + f.shape);
    // argv[0] (glibc's program_invocation_name) locates the binary where /proc is missing (a chroot).
    const bench::ShapeCatalog catalog = bench::loadShapes(bench::findShapesFile(f.shapesFile, program_invocation_name));
    return f.shape.empty() ? bench::suiteShapes(catalog, f.suite)
                           : std::vector<bench::BenchShape>{bench::shapeByName(catalog, f.shape)};
}

std::vector<NamedProblem> problemsToSweep(const SweepFlags& f, std::vector<bench::BenchShape> shapes,
                                          const DeviceInfo& device) {
    if (f.suite.empty() && f.shape.empty())
        return {{"problem", buildProblem(f.problem, device.isCpu() ? kCpuBatch : kGpuBatch)}};
    std::vector<NamedProblem> out;
    for (auto& s : shapes) {
        ConvProblem p = s.problem;
        p.batch = batchOr(f.problem, device.isCpu() ? s.cpuBatch : p.batch);
        applyTensorFlags(f.problem, p);
        p.validate();
        out.push_back({s.name, p});
    }
    return out;
}

std::vector<Path> pathsToSweep(const std::string& precision, const DeviceInfo& device, const ConvProblem& problem) {
    if (precision == "fp32") return {Path::Fp32};
    const Path fast = resolvePath(Precision::Fast, device, problem);
    if (precision == "fast" || fast == Path::Fp32) return {fast};
    return {fast, Path::Fp32};
}

void checkFlags(SweepFlags& f) {
    if (f.precision != "all" && f.precision != "fast" && f.precision != "fp32")
        throw invalidArgument("--precision", f.precision, "expected fast, fp32 or all");
    if (f.settings.timing.iterations < 1 || f.settings.timing.iterations > Conv2d::kMaxTimedRuns)
        throw invalidArgument("--iterations", f.settings.timing.iterations, "must be in 1.." + std::to_string(Conv2d::kMaxTimedRuns));
    if (f.settings.timing.warmupRuns < 0 || f.settings.timing.warmupRuns > Conv2d::kMaxWarmupRuns)
        throw invalidArgument("--warmup", f.settings.timing.warmupRuns, "must be in 0.." + std::to_string(Conv2d::kMaxWarmupRuns));
    if (!(f.settings.timing.warmupMs >= 0 && f.settings.timing.warmupMs <= 60000))
        throw invalidArgument("--warmup-ms", f.settings.timing.warmupMs, "must be between 0 and 60000");
    if (f.settings.rounds < 0 || f.settings.rounds > 20) throw invalidArgument("--rounds", f.settings.rounds, "must be between 0 and 20");
    if (f.candidates < 1) throw invalidArgument("--candidates", f.candidates, "must be >= 1");
    if (f.perTile < 0) throw invalidArgument("--per-tile", f.perTile, "must be >= 0 (0: no cap)");
    if (f.top < 0) throw invalidArgument("--top", f.top, "must be >= 0");
    if (f.settings.nearby && f.settings.all) throw invalidArgument("--all", "given", "contradicts --nearby");
    if (!f.suite.empty() && !f.shape.empty()) throw invalidArgument("--shape", f.shape, "cannot be combined with --suite");
    if (f.minGainPercent < 0) throw invalidArgument("--min-gain", f.minGainPercent, "must be >= 0 (percent)");
    if (f.maxSpreadPercent <= 0) throw invalidArgument("--max-spread", f.maxSpreadPercent, "must be > 0 (percent)");
    if (f.jobs < 1 || f.jobs > 64) throw invalidArgument("--jobs", f.jobs, "must be in 1..64");
    f.settings.jobs = unsigned(f.jobs);
    f.settings.candidates = size_t(f.candidates);
    f.settings.perTile = size_t(f.perTile);
}

std::string pct(double percent) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g%%", percent);
    return buf;
}

// The width of the terminal on stdout; 0 where it cannot be read.
int terminalColumns() {
    winsize size{};
    return ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 ? int(size.ws_col) : 0;
}

double secondsSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void writeJson(const SweepFlags& f, const std::vector<ProblemSweep>& results, const DeviceInfo& device,
               double seconds) {
    if (f.json.empty()) return;
    const std::string text =
        sweepJson(results, device, f.settings.nearby ? "nearby" : f.settings.all ? "all" : "pruned", seconds);
    detail::writeFileAtomically(f.json, {{text.data(), text.size()}}, /*createFolder=*/false);
}

// Where the sweep will write (--json's folder, the tuning cache), checked before anything is
// measured: a sweep must not learn after minutes of timing that it has nowhere to save.
void requireWritableOutputs(const SweepFlags& f, const TuningCache& cache) {
    if (!f.json.empty())
        if (const std::string why = detail::unwritableFileReason(f.json); !why.empty())
            throw Error(Error::Kind::Io, "--json " + f.json + ": " + why);
    if (!f.noSave) cache.requireWritable();
}

int runSweep(SweepFlags f) {
    checkFlags(f);
    f.settings.rule.minGain = f.minGainPercent / 100;
    f.settings.rule.maxSpread = f.maxSpreadPercent / 100;
    if (f.suite.empty() && f.shape.empty()) buildProblem(f.problem, kCpuBatch);  // bad flags fail before device setup
    if (!f.problem.residual.empty())
        throw invalidArgument("--residual", f.problem.residual, "the sweep adds a random residual: give --residual without a file");
    std::vector<bench::BenchShape> shapes = suiteShapes(f);
    const auto t0 = std::chrono::steady_clock::now();

    // The sweep builds hundreds of pipelines; keeping them all in the persistent pipeline cache
    // would bloat it, so it stays off here (a later `vkconv run` fills it with what it uses).
    TuningCache cache(f.cache.dir);
    requireWritableOutputs(f, cache);
    ContextOptions contextOptions = cacheContextOptions(f.cache);
    contextOptions.persistentPipelineCache = false;
    Context context = makeContext(f.device, contextOptions);
    const DeviceInfo& device = context.device();
    if (device.timestampPeriodNs <= 0)
        throw Error(Error::Kind::Unsupported, "device '" + device.name + "' has no compute-queue timestamps; "
                                              "the sweep times with them");
    const std::vector<NamedProblem> problems = problemsToSweep(f, std::move(shapes), device);

    const bool terminal = ::isatty(STDOUT_FILENO);
    std::cout << "device:   " << describeDevice(device) << "\n";
    if (problems.size() == 1) {
        std::cout << "problem:  " << problems.front().problem.str() << "\n";
        std::cout << "          ("
                  << (!f.shape.empty()   ? "--shape " + f.shape
                      : !f.suite.empty() ? "--suite " + f.suite
                                         : describeProblemSource(f.problem))
                  << ")\n";
    } else {
        std::cout << "problems: " << problems.size() << " of suite " << f.suite << ", each printed below\n";
    }
    std::cout << "mode:     "
              << (f.settings.nearby ? "nearby: the current choice and up to 5 neighbours (same tile and grid)"
                  : f.settings.all  ? "full: every valid configuration"
                                    : "full, pruned, per path: " + prunedSelection(f.settings.candidates, f.settings) +
                                         " (--candidates N, --per-tile N, --all)")
              << "\n";
    std::cout << "timing:   " << f.settings.timing.warmupMs
              << (f.settings.timing.warmupMs > 0 && f.settings.timing.warmupMs < TimingOptions{}.warmupMs
                      ? " ms (each problem's first timing " + std::to_string(int(TimingOptions{}.warmupMs)) +
                            ", a timing after the device idled longer, as long as it idled, up to that)"
                      : std::string(" ms"))
              << " of the kernel to warm the GPU, then "
              << f.settings.timing.warmupRuns << " warm-up + " << f.settings.timing.iterations
              << " timed runs per configuration, GPU timestamps; median, spread = (p90 - p10) / median; the default "
                 "and the fastest "
              << f.settings.leaders << " timed again in " << f.settings.rounds << " interleaved rounds at the end\n";
    std::cout << "check:    the first and last image of every chunk against the CPU reference, at every timing; a "
                 "wrong or failing configuration is never selected\n";
    std::cout << "rule:     a tuned configuration replaces the default only if >= " << pct(f.minGainPercent)
              << " faster in the sweep and again in the re-timing rounds, with spreads < "
              << pct(f.maxSpreadPercent) << " (or its runs' p10-p90 ranges wholly below the default's)\n";
    std::cout << "cache:    " << (cache.file().empty() ? "(none)" : cache.file()) << " (" << cache.size()
              << " entries" << (f.cache.noTuningCache ? "; ignored as defaults: --no-tuning-cache" : "")
              << (f.noSave ? "; not written: --no-save" : "") << ")\n";
    for (const auto& note : cache.notes()) std::cout << "          " << note << "\n";
    std::cout.flush();

    Progress progress(std::cout, terminal, terminal ? terminalColumns() : 0);
    std::vector<ProblemSweep> results;
    size_t wrong = 0;
    bool nothingPassed = false;
    for (size_t i = 0; i < problems.size(); ++i) {
        const auto p0 = std::chrono::steady_clock::now();
        ProblemSweep ps;
        ps.name = problems[i].name;
        ps.problem = problems[i].problem;
        std::cout << "\n== [" << i + 1 << "/" << problems.size() << "] " << ps.name << ": " << ps.problem.str()
                  << " (" << ps.problem.flops() * 1e-9 << " GFLOP)\n" << std::flush;
        SweepBench bench(context, ps.problem, f.seed);
        bool changed = false;
        for (Path path : pathsToSweep(f.precision, device, ps.problem)) {
            SweepDefault start;
            if (!f.cache.noTuningCache) start.cached = cache.find(device, ps.problem, path, &start.note);
            PathSweep s = sweepPath(bench, device, path, start, f.settings, progress,
                                    ps.name + " " + toString(path));
            for (const auto& r : s.results) wrong += r.status == CandidateResult::Status::Wrong;
            nothingPassed |= s.chosenMs == 0;
            if (s.chosenMs > 0 && !f.noSave) {
                cache.put(device, ps.problem, TuningEntry{s.chosen, s.chosenMs, "", s.decision});
                s.cacheNote = "recorded " + s.chosen.str() + " for this device, driver and problem";
                changed = true;
            } else {
                s.cacheNote = f.noSave ? "not written (--no-save)" : "nothing recorded";
            }
            printPathReport(std::cout, ps, s, size_t(f.top));
            std::cout.flush();
            ps.paths.push_back(std::move(s));
        }
        if (changed) {
            cache.save();  // after every problem, so an interrupted suite keeps what it measured
            std::cout << "  saved:     " << cache.file() << "\n";
        }
        ps.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
        results.push_back(std::move(ps));
        writeJson(f, results, device, secondsSince(t0));  // after every problem, like the cache
    }
    const double seconds = secondsSince(t0);
    printSummary(std::cout, results, seconds);
    if (wrong)
        std::cout << "warning: " << wrong << " configuration(s) gave wrong results (listed above; never selected): "
                  << "a kernel bug worth reporting\n";
    if (!f.json.empty()) std::cout << "json:     " << f.json << "\n";
    requireNoValidationMessages(f.device, context);
    return nothingPassed ? kExitCheckFailed : kExitOk;
}

}  // namespace

void registerSweepCommand(CLI::App& app, CommandAction& action) {
    auto f = std::make_shared<SweepFlags>();
    CLI::App* cmd = app.add_subcommand(
        "sweep", "measure every configuration for a problem or suite, keep the best in the tuning cache");
    addProblemFlags(*cmd, f->problem,
                    "default " + std::to_string(kGpuBatch) + ", " + std::to_string(kCpuBatch) +
                        " on a CPU device, as `vkconv run`; with --suite/--shape, each shape's");
    addDeviceFlags(*cmd, f->device);
    addCacheFlags(*cmd, f->cache, "do not start from the tuning cache's entries: the default is the heuristic's", false);
    cmd->add_option("--suite", f->suite,
                    "sweep a suite of bench/shapes.json instead of one problem (alexnet1, layers, resnet50_batch32, "
                    "resnet50_batch1, vgg16_batch32, mobilenet_batch32, resnext50_batch32, convnext_t_batch32; `vkconv-bench "
                    "--list` lists them)")
        ->type_name("NAME");
    cmd->add_option("--shape", f->shape, "sweep one named shape of bench/shapes.json")->type_name("NAME");
    cmd->add_option("--shapes", f->shapesFile,
                    "the shapes file (default: shapes.json next to the binary, else the source tree's)")
        ->type_name("FILE");
    cmd->add_option("--precision", f->precision,
                    "paths to sweep: fast (the cooperative-matrix path, else fp32), fp32, or all (both; default)")
        ->type_name("fast|fp32|all");
    cmd->add_option("--candidates", f->candidates,
                    "time the heuristic's top N configurations per path (default 150)")
        ->type_name("N");
    cmd->add_option("--per-tile", f->perTile,
                    "of those, each kernel's best (A loader, grouped direct) first, then at most N of one workgroup "
                    "tile (layouts and instruction shapes of one tile), so that they span more tiles; the ranking "
                    "fills any left (default 3; 0: the plain top N)")
        ->type_name("N");
    cmd->add_flag("--all", f->settings.all, "time every valid configuration (can take long on GPUs with many)");
    cmd->add_flag("--nearby", f->settings.nearby,
                  "micro-tune: the current choice and up to 5 neighbours with the same tile (seconds)");
    cmd->add_option("--iterations", f->settings.timing.iterations, "timed runs per configuration (default 20)")
        ->type_name("INT");
    cmd->add_option("--warmup", f->settings.timing.warmupRuns, "untimed runs just before the timed ones (default 3)")
        ->type_name("INT");
    cmd->add_option("--warmup-ms", f->settings.timing.warmupMs,
                    "run the kernel back to back this long before each timing, so the GPU's clocks are up (default 500; 0: none; "
                    "otherwise each problem's first timing keeps 500, and one after the device idled longer (a "
                    "pipeline build) warms up as long as it idled, up to 500)")
        ->type_name("MS");
    cmd->add_option("--rounds", f->settings.rounds,
                    "interleaved rounds in which the default and the fastest few are timed again before choosing (default 3; 0: none)")
        ->type_name("N");
    cmd->add_option("--jobs", f->jobs,
                    "threads that build every candidate's pipelines before any is timed (default: the CPU's "
                    "threads, at most 8; 1: each is built as it is timed)")
        ->type_name("N");
    cmd->add_option("--budget", f->settings.budgetSeconds,
                    "stop timing a path's candidates after this many seconds (default: no limit)")
        ->type_name("SECONDS");
    cmd->add_option("--min-gain", f->minGainPercent, "acceptance: percent faster a tuned configuration must be (default 2)")
        ->type_name("PERCENT");
    cmd->add_option("--max-spread", f->maxSpreadPercent,
                    "acceptance: the largest spread (p90-p10)/median, in percent, a measurement may have where the "
                    "tuned configuration's p90 is not below the default's p10 (default 5)")
        ->type_name("PERCENT");
    cmd->add_option("--top", f->top, "rows of the table per path (default 10)")->type_name("N");
    cmd->add_option("--json", f->json, "write every measurement and decision as JSON")->type_name("FILE");
    cmd->add_flag("--no-save", f->noSave, "do not write the tuning cache");
    addSeedOption(*cmd, f->seed);
    cmd->callback([f, &action] { action = [f] { return runSweep(*f); }; });
}

}  // namespace vkconv::cli
