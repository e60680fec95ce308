// vkconv-bench: measures the device's copy bandwidth once, then for each shape checks the result
// against the CPU reference and times it (see bench/README.md for what the figures mean).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iomanip>
#include <iostream>

#include "bench_shape.hpp"
#include "network_bench.hpp"
#include "problem_options.hpp"
#include "report.hpp"
#include "shapes.hpp"
#include "runtime/utc_time.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"

using namespace vkconv;
using namespace vkconv::bench;
using vkconv::cli::ProblemFlags;

namespace {

// A problem of the user's own, from the vkconv CLI's problem flags with their meaning
// (tools/vkconv/problem_options.hpp): sizes and kernel required, torch's defaults for the rest.
BenchShape customShape(const ProblemFlags& flags, const std::string& name) {
    BenchShape s;
    s.name = name;
    s.suite = "custom";
    s.problem = buildProblem(flags, ConvProblem::alexnet1().batch);
    s.cpuBatch = batchOr(flags, 2);  // as alexnet1's suite
    return s;
}

void listShapes(const ShapeCatalog& catalog) {
    std::cout << "shapes from " << catalog.path << " (GPU batch; cpu: batch on a CPU device)\n";
    for (const std::string& suite : catalog.suites) {
        std::cout << "suite " << suite << ":\n";
        for (const BenchShape& s : suiteShapes(catalog, suite)) {
            const ConvProblem& p = s.problem;
            const double io = 4.0 * double(p.inputElements() + p.outputElements());
            std::cout << "  " << std::left << std::setw(32) << s.name << std::setw(40)
                      << shortProblem(p) << " cpu N" << std::setw(4) << s.cpuBatch << " in+out "
                      << std::fixed << std::setprecision(1) << io / 1e6 << " MB"
                      << std::defaultfloat << (s.latency ? " (latency)" : "") << "\n";
        }
    }
}

uint64_t chooseCopyBytes(const DeviceInfo& device, double requestedMiB) {
    uint64_t bytes = requestedMiB > 0 ? uint64_t(requestedMiB * 1048576.0)
                                      : (device.isCpu() ? 64ull << 20 : 1ull << 30);
    uint64_t limit = bytes;
    if (device.maxMemoryAllocationSize) limit = std::min(limit, device.maxMemoryAllocationSize);
    if (device.deviceLocalBytes) limit = std::min(limit, device.deviceLocalBytes / 4);  // 2 buffers
    limit &= ~uint64_t(4095);
    if (limit < bytes)
        std::cout << "copy size clamped from " << bytes << " to " << limit
                  << " bytes (device allocation / memory limits)\n";
    return std::max<uint64_t>(limit, 4096);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"vkconv-bench: times vkconv's conv2d on the shapes of bench/shapes.json, after "
                 "checking each result against the CPU reference"};
    std::string suite = "alexnet1", shapeName, shapesPath, precisionName = "fast", jsonPath;
    bool list = false;
    int warmup = 10, iterations = 100, checkImages = 2, deviceIndex = -1, copyIterations = 50;
    double warmupMs = TimingOptions{}.warmupMs;
    double copyMiB = 0;
    ProblemFlags problemFlags;
    std::string customName = "custom";

    auto* suiteOpt =
        app.add_option("--suite", suite, "shape suite of the shapes file (see --list): alexnet1, layers, resnet50_batch32, resnet50_batch1, vgg16_batch32, mobilenet_batch32, resnext50_batch32, convnext_t_batch32, holdout")
            ->capture_default_str();
    auto* shapeOpt = app.add_option("--shape", shapeName, "run only the shape of this name (see --list)");
    shapeOpt->excludes(suiteOpt);
    app.add_flag("--list", list, "list the suites and shapes, then exit");
    app.add_option("--shapes", shapesPath, "shapes file (default: shapes.json next to the binary)");
    app.add_option("--precision", precisionName, "fast (cooperative matrix if available) or fp32")
        ->capture_default_str();
    app.add_option("--warmup", warmup, "untimed runs before timing (>= 5)")->capture_default_str();
    app.add_option("--iterations", iterations, "timed runs (>= 50)")->capture_default_str();
    app.add_option("--warmup-ms", warmupMs, "run each kernel back to back this long before timing it, so the GPU's clocks are up")
        ->check(CLI::Range(0.0, 60000.0))->capture_default_str();
    app.add_option("--check-images", checkImages, "images checked against the CPU reference: 1 (first) or 2 (first and last)")
        ->check(CLI::Range(1, 2))->capture_default_str();
    app.add_option("--copy-mib", copyMiB, "copy-bandwidth buffer size in MiB (default 1024 on a GPU, 64 on a CPU device)");
    app.add_option("--copy-iterations", copyIterations, "timed copies")->capture_default_str();
    app.add_option("--device", deviceIndex, "Vulkan device index (default: the first GPU)");
    app.add_option("--json", jsonPath, "write all figures to this JSON file");
    // A problem of its own, with the vkconv CLI's flags and their meaning: any of them but --batch
    // replaces the suite; --batch alone sets every shape's batch.
    vkconv::cli::addProblemFlags(app, problemFlags,
                                 "default: the shapes file's, cpu_batch on a CPU device; 256 (2 on a CPU "
                                 "device) for a problem of your own");
    for (const auto& [flag, option] : problemFlags.options)
        if (flag != "--batch") option->excludes(shapeOpt)->excludes(suiteOpt);
    app.add_option("--name", customName, "own problem: its name in the results")->capture_default_str();
    std::string network;
    int64_t image = 224;
    auto* networkOpt = app.add_option("--network", network,
                                      "time a network's convolutions as one recorded submission instead of shapes: "
                                      "resnet50 (the trunk, fp16 NHWC unless --dtype/--layout say otherwise; "
                                      "--batch, default 32)");
    networkOpt->excludes(shapeOpt)->excludes(suiteOpt);
    app.add_option("--image", image, "--network: the image's height and width (a multiple of 32)")->capture_default_str();
    CLI11_PARSE(app, argc, argv);

    try {
        // Refused here rather than per shape: a bad count would otherwise fail every shape, or be
        // taken for the default (a negative --copy-mib or --device).
        if (warmup < 0 || warmup > Conv2d::kMaxWarmupRuns)
            throw invalidArgument("--warmup", warmup, "must be in 0.." + std::to_string(Conv2d::kMaxWarmupRuns));
        if (iterations < 1 || iterations > Conv2d::kMaxTimedRuns)
            throw invalidArgument("--iterations", iterations, "must be in 1.." + std::to_string(Conv2d::kMaxTimedRuns));
        if (copyIterations < 1) throw invalidArgument("--copy-iterations", copyIterations, "must be >= 1");
        if (!(copyMiB >= 0)) throw invalidArgument("--copy-mib", copyMiB, "must be > 0 (or 0: the default size)");
        if (app.count("--device") && deviceIndex < 0)
            throw invalidArgument("--device", deviceIndex, "must be >= 0 (vkconv devices lists them)");
        const Precision precision = precisionFromString(precisionName);
        if (!network.empty()) {
            NetworkSettings n;
            n.network = network;
            n.batch = vkconv::cli::batchOr(problemFlags, 32);
            n.image = image;
            if (problemFlags.given("--dtype")) n.format.type = dataTypeFromString(problemFlags.dtype, "--dtype");
            if (problemFlags.given("--layout")) n.format.layout = layoutFromString(problemFlags.layout, "--layout");
            n.precision = precision;
            n.warmup = warmup;
            n.iterations = iterations;
            n.warmupMs = warmupMs;
            n.json = jsonPath;
            for (int i = 0; i < argc; ++i) n.commandLine += (i ? " " : "") + std::string(argv[i]);
            ContextOptions options;
            options.deviceIndex = deviceIndex;
            Context context(options);
            return benchNetwork(context, n);
        }
        const ShapeCatalog catalog = loadShapes(findShapesFile(shapesPath, argv[0]));
        if (list) {
            listShapes(catalog);
            return 0;
        }
        RunInfo run;
        std::vector<BenchShape> shapes;
        if (problemFlags.ownProblem()) {
            shapes = {customShape(problemFlags, customName)};
            run.selection = "custom";
        } else if (!shapeName.empty()) {
            shapes = {shapeByName(catalog, shapeName)};
            run.selection = "shape " + shapeName;
        } else {
            shapes = suiteShapes(catalog, suite);
            run.selection = "suite " + suite;
        }

        ContextOptions options;
        options.deviceIndex = deviceIndex;
        Context context(options);
        const DeviceInfo& device = context.device();
        if (!problemFlags.residual.empty())
            throw invalidArgument("--residual", problemFlags.residual,
                                  "vkconv-bench adds a random residual: give --residual without a file");
        for (BenchShape& s : shapes) {
            s.problem.batch = vkconv::cli::batchOr(problemFlags, device.isCpu() ? s.cpuBatch : s.problem.batch);
            vkconv::cli::applyTensorFlags(problemFlags, s.problem);
            s.problem.validate();
        }

        for (int i = 0; i < argc; ++i) run.commandLine += (i ? " " : "") + std::string(argv[i]);
        run.commit = gitCommit();
        run.date = detail::utcTimestamp();
        run.shapesFile = catalog.path;
        run.precision = toString(precision);
        run.device = device;
        run.warmup = warmup;
        run.iterations = iterations;
        run.meetsRunMinimums = warmup >= 5 && iterations >= 50;
        std::cout << "vkconv-bench " << run.commit << "  " << run.date << "\n"
                  << "device: " << device.name << " (" << device.deviceType << ", " << device.driverName
                  << " " << device.driverInfo << ")\nshapes: " << catalog.path << ", " << run.selection
                  << ", precision " << run.precision << ", warm-up " << warmup << ", " << iterations
                  << " timed runs\n";
        if (shapes.size() == 1)
            std::cout << "problem: " << shapes.front().problem.str() << " ("
                      << (problemFlags.ownProblem() ? vkconv::cli::describeProblemSource(problemFlags)
                                                    : run.selection)
                      << ")\n";
        if (!run.meetsRunMinimums)
            std::cout << "WARNING: fewer than 5 warm-up or 50 timed runs: figures are not benchmark "
                         "grade (recorded as meets_run_minimums = false)\n";

        const uint64_t copyBytes = chooseCopyBytes(device, copyMiB);
        BenchSettings settings;
        settings.precision = precision;
        settings.warmup = warmup;
        settings.warmupMs = warmupMs;
        settings.iterations = iterations;
        settings.checkImages = checkImages;
        settings.cpuDevice = device.isCpu();
        settings.gpuMinIoBytes = catalog.gpuMinIoBytes;
        try {
            run.copy = measureCopyBandwidth(context, copyBytes, 5, copyIterations);
            settings.copyGbps = run.copy.gbps;
            std::cout << std::fixed << std::setprecision(1) << "copy bandwidth: " << run.copy.gbps
                      << " GB/s read+write (median of " << copyIterations << " copies of "
                      << double(copyBytes) / 1048576.0 << " MiB, " << std::setprecision(3)
                      << run.copy.medianMs << " ms each, spread " << run.copy.spread << ")\n\n"
                      << std::defaultfloat;
        } catch (const Error& e) {
            std::cout << "copy bandwidth not measured (" << e.what() << "): no x-floor figures\n\n";
        }

        std::vector<ShapeResult> results;
        for (size_t i = 0; i < shapes.size(); ++i) {
            std::cout << "[" << i + 1 << "/" << shapes.size() << "] ";
            results.push_back(benchShape(context, shapes[i], settings, std::cout));
            std::cout.flush();
            // Rewritten after every shape, so a run cut short still leaves its results.
            if (!jsonPath.empty()) writeJson(jsonPath, run, results);
        }
        std::cout << "\n";
        printTable(std::cout, results);
        const auto bad = std::count_if(results.begin(), results.end(),
                                       [](const ShapeResult& r) { return r.status != Status::Ok; });
        if (!jsonPath.empty()) std::cout << "results written to " << jsonPath << "\n";
        if (bad) std::cout << bad << " of " << results.size() << " shape(s) not timed (see above)\n";
        return bad ? 1 : 0;
    } catch (const Error& e) {
        std::cerr << "vkconv-bench: " << e.what() << "\n";
        return 2;
    }
}
