// `vkconv run`: run one conv2d on a device, check it against the CPU reference, time it.
// Problems come from flags (default alexnet1; problem_options.hpp says how the flags combine) or a
// named shape of bench/shapes.json, with random inputs, or from NumPy files.
#include <errno.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>

#include "runtime/cache_files.hpp"
#include "cache_options.hpp"
#include "commands.hpp"
#include "device_options.hpp"
#include "npy.hpp"
#include "problem_options.hpp"
#include "reference_check.hpp"
#include "run_inputs.hpp"
#include "shapes.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::cli {

namespace {

struct RunFlags {
    ProblemFlags problem;
    DeviceFlags device;
    std::string precision = "fast";
    uint64_t seed = 1;
    int iterations = 0, warmup = 0;  // when not given: the kGpu*/kCpu* defaults below
    CLI::Option* iterationsOption = nullptr;
    CLI::Option* warmupOption = nullptr;
    bool checkAll = false;
    NumpyPaths numpy;
    std::string output;
    CacheFlags cache;
    bool explain = false;
    std::string shape, shapesFile;  // a named shape of bench/shapes.json instead of flags
};

constexpr int64_t kGpuBatch = 256;  // alexnet1's batch
constexpr int64_t kCpuBatch = 8;    // on a CPU device (lavapipe), so a default run stays quick
// Timed and warm-up runs. A CPU device needs ~0.7 s per alexnet1 run at batch 8 on two cores, so
// it gets fewer by default (the spread of a CPU's times is not what anyone measures it for).
constexpr int kGpuIterations = 20, kGpuWarmup = 3;
constexpr int kCpuIterations = 10, kCpuWarmup = 2;

struct Timing {
    double medianMs = 0, minMs = 0;
    int runs = 0;
    const char* clock = "GPU timestamps";
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Timing timeRuns(Conv2d& conv, const Tensor& input, Tensor& output, const Tensor* residual, int warmup,
                int iterations) {
    Timing t;
    std::vector<double> ms;
    TimingOptions timing;
    timing.warmupRuns = warmup;
    timing.iterations = iterations;
    try {
        ms = residual ? conv.time(input, output, *residual, timing) : conv.time(input, output, timing);
    } catch (const Error& e) {
        if (e.kind() != Error::Kind::Unsupported) throw;
        // No timestamps on this queue: time each submission on the host instead (includes the
        // submit and wait, so it is an upper bound).
        t.clock = "host clock (device has no timestamps)";
        auto run = [&] { residual ? conv.run(input, output, *residual) : conv.run(input, output); };
        for (int i = 0; i < warmup; ++i) run();
        for (int i = 0; i < iterations; ++i) {
            const auto start = std::chrono::steady_clock::now();
            run();
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
    }
    t.runs = int(ms.size());
    t.medianMs = median(ms);
    t.minMs = *std::min_element(ms.begin(), ms.end());
    return t;
}

bool numpyMode(const RunFlags& f) { return !f.numpy.input.empty() || !f.numpy.weight.empty(); }

// Flag combinations that cannot mean anything, refused before any device work.
void checkFlagCombinations(const RunFlags& f) {
    if (!f.shape.empty()) requireOnlyBatch(f.problem, "--shape " + f.shape);
    if (f.iterations < 0 || f.iterations > Conv2d::kMaxTimedRuns)
        throw invalidArgument("--iterations", f.iterations,
                              "must be in 0.." + std::to_string(Conv2d::kMaxTimedRuns) + " (0: no timing)");
    if (f.warmup < 0 || f.warmup > Conv2d::kMaxWarmupRuns)
        throw invalidArgument("--warmup", f.warmup, "must be in 0.." + std::to_string(Conv2d::kMaxWarmupRuns));
    if (!numpyMode(f)) {
        if (!f.numpy.bias.empty())
            throw Error(Error::Kind::InvalidArgument, "--bias needs --input X.npy and --weight W.npy");
        if (!f.output.empty())
            throw Error(Error::Kind::InvalidArgument, "--output needs --input X.npy and --weight W.npy");
        if (!f.problem.residual.empty())
            throw invalidArgument("--residual", f.problem.residual,
                                  "a residual file needs --input X.npy and --weight W.npy (without them, --residual alone "
                                  "adds a random one)");
        return;
    }
    auto refuse = [](const std::string& message) { return Error(Error::Kind::InvalidArgument, message); };
    // The output replaces its file: never one the run reads (compared as files, so that another
    // name for it, a symbolic or hard link, is caught too).
    if (!f.output.empty()) {
        // Where the result goes is checked before any work, not found unwritable at the end.
        if (const std::string why = detail::unwritableFileReason(f.output); !why.empty())
            throw invalidArgument("--output", f.output, why);
        const detail::FileIdentity out = detail::fileIdentity(f.output);
        const std::pair<const char*, const std::string*> inputs[] = {
            {"--input", &f.numpy.input}, {"--weight", &f.numpy.weight}, {"--bias", &f.numpy.bias},
            {"--residual", &f.problem.residual}};
        for (const auto& [flag, path] : inputs) {
            if (!out.exists || path->empty()) continue;
            const detail::FileIdentity in = detail::fileIdentity(*path);
            if (in.exists && in.device == out.device && in.inode == out.inode)
                throw invalidArgument("--output", f.output,
                                      std::string("is the same file as ") + flag + " " + *path +
                                          "; vkconv never overwrites an input: name another file");
        }
    }
    if (f.numpy.input.empty()) throw refuse("--weight needs --input X.npy");
    if (f.numpy.weight.empty()) throw refuse("--input needs --weight W.npy");
    if (!f.shape.empty()) throw refuse("--shape cannot be combined with --input: the sizes come from the .npy files");
    if (f.problem.noBias && !f.numpy.bias.empty())
        throw refuse("--no-bias contradicts --bias " + f.numpy.bias);
}

// What the error bounds are for: the path, and an fp16 output where its rounding sets them.
std::string boundName(Path path, const TensorFormat& output, bool precise = false) {
    return std::string(precise ? "precise" : toString(path)) +
           (output.type != DataType::F32 ? std::string(" with a ") + toString(output.type) + " output" : std::string());
}

std::string format(const char* fmt, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

// The problem of a run without NumPy files: a named shape (its batch, or its CPU batch on a CPU
// device, as `vkconv sweep --shape` uses), or the problem flags (alexnet1 without any).
ConvProblem flagProblem(const RunFlags& f, const std::optional<bench::BenchShape>& shape, bool cpu) {
    if (!shape) return buildProblem(f.problem, cpu ? kCpuBatch : kGpuBatch);
    ConvProblem p = shape->problem;
    p.batch = batchOr(f.problem, cpu ? shape->cpuBatch : p.batch);
    applyTensorFlags(f.problem, p);
    p.validate();
    return p;
}

std::string problemSource(const RunFlags& f, const ConvProblem& p, bool cpu) {
    if (numpyMode(f)) return "the .npy files' shapes; stride, padding, dilation, groups: the flags, else 1, 0, 1, 1";
    std::string s = f.shape.empty() ? describeProblemSource(f.problem) : "--shape " + f.shape;
    if (!f.problem.given("--batch") && cpu)
        s += "; batch " + std::to_string(p.batch) + " because the device is a CPU (--batch N for another)";
    return s;
}

// Random inputs are made on the host before the conv is planned: refuse tensors the device
// cannot hold first, rather than spend minutes (or all host memory) filling them.
void requireTensorsFit(const ConvProblem& p, const DeviceInfo& device) {
    const std::pair<const char*, int64_t> tensors[] = {
        {"input", p.inputElements()}, {"weight", p.weightElements()}, {"output", p.outputElements()}};
    for (const auto& [name, elements] : tensors)
        if (device.maxMemoryAllocationSize && uint64_t(elements) > device.maxMemoryAllocationSize / 4)
            throw Error(Error::Kind::Unsupported,
                        std::string("the ") + name + " tensor of " + p.str() + " has " + std::to_string(elements) +
                            " elements, more than the device's maxMemoryAllocationSize (" +
                            std::to_string(device.maxMemoryAllocationSize) + " bytes) holds");
}

int runRun(const RunFlags& f) {
    checkFlagCombinations(f);
    const Precision precision = precisionFromString(f.precision);
    // Load files and validate flags before the (slow) device setup, so bad input fails fast.
    RunInputs inputs;
    std::optional<bench::BenchShape> shape;
    if (!f.shape.empty()) {
        // argv[0] (glibc's program_invocation_name) locates the binary where /proc is missing (a chroot).
        const bench::ShapeCatalog catalog = bench::loadShapes(bench::findShapesFile(f.shapesFile, program_invocation_name));
        for (const auto& s : catalog.shapes)
            if (s.name == f.shape) shape = s;
        if (!shape)
            throw invalidArgument("--shape", f.shape, "unknown; the shapes are in " + catalog.path +
                                                          " (vkconv-bench --list lists them)");
    }
    if (numpyMode(f))
        inputs = numpyInputs(f.numpy, f.problem);
    else
        flagProblem(f, shape, true);

    Context context = makeContext(f.device, cacheContextOptions(f.cache));
    const DeviceInfo& device = context.device();
    if (!numpyMode(f)) {
        const ConvProblem problem = flagProblem(f, shape, device.isCpu());
        requireTensorsFit(problem, device);
        inputs = randomInputs(problem, f.seed);
    }
    const ConvProblem& problem = inputs.problem;

    std::cout << "device:      " << describeDevice(device) << "\n";
    if (!f.device.profile.empty()) std::cout << "profile:     " << f.device.profile << "\n";
    std::cout << "problem:     " << problem.str() << "\n";
    std::cout << "             (" << problemSource(f, problem, device.isCpu()) << ")\n";
    std::cout << "inputs:      " << inputs.source << "\n";
    std::cout.flush();

    ConvOptions options;
    options.precision = precision;
    options.useTuningCache = !f.cache.noTuningCache;
    const auto planStart = std::chrono::steady_clock::now();
    Conv2d conv(context, problem, inputs.weight, inputs.bias, options);
    const double planMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - planStart).count();
    const Path path = conv.config().path;
    std::cout << "path:        " << toString(path) << " (precision " << toString(precision) << ")\n";
    std::cout << "config:      " << conv.describe() << "\n";
    std::cout << "plan:        " << describePlanTime(context, planMs) << "\n";
    if (f.explain) printExplanation(std::cout, context, conv);
    std::cout.flush();

    // The tensors in the problem's formats; the host vectors stay in logical NCHW order.
    const auto outShape = problem.outputShape();
    const TensorFormat in = problem.inputFormat, out = problem.outputFormat;
    Tensor input(context, {problem.batch, problem.inChannels, problem.height, problem.width}, in);
    Tensor output(context, std::vector<int64_t>(outShape.begin(), outShape.end()), out);
    input.upload(relayout(inputs.input.data(), inputs.input.size(), problem.inputShape(), Layout::NCHW, in.layout));
    output.fill(std::numeric_limits<float>::quiet_NaN());  // any output never written stays NaN
    std::optional<Tensor> residual;
    if (problem.epilogue.residual) {
        residual.emplace(context, std::vector<int64_t>(outShape.begin(), outShape.end()), out);
        residual->upload(relayout(inputs.residual.data(), inputs.residual.size(), outShape, Layout::NCHW, out.layout));
        conv.run(input, output, *residual);
    } else {
        conv.run(input, output);
    }
    const std::vector<float> held = output.download();
    const std::vector<float> result = relayout(held.data(), held.size(), outShape, out.layout, Layout::NCHW);

    const CheckResult check = checkOutput(problem, inputs.input.data(), inputs.weight.data(),
                                          problem.bias ? inputs.bias.data() : nullptr, result, f.checkAll,
                                          problem.epilogue.residual ? inputs.residual.data() : nullptr);
    const bool precise = conv.precision() == Precision::Precise;
    const double bound = conv.errorBound(), elementBound = conv.elementErrorBound();
    const bool pass = check.nonFiniteOk() && std::isfinite(check.relativeError) &&
                      check.relativeError <= bound && check.elementError <= elementBound;
    std::cout << "checked:     " << describeImages(check.images, problem.batch)
              << " against the CPU reference (double)"
              << (int64_t(check.images.size()) < problem.batch ? "; --check-all checks every image" : "")
              << "\n";
    if (check.nonFiniteMatched)
        std::cout << "non-finite:  " << check.nonFiniteMatched
                  << " NaN/inf values where the reference has the same (the inputs hold NaN/inf)\n";
    if (check.nonFiniteMismatches)
        std::cout << "non-finite:  " << check.nonFiniteMismatches
                  << " values where only one of output and reference is NaN/inf\n";
    if (check.uncheckedNonFinite && check.inputsFinite)
        std::cout << "non-finite:  " << check.uncheckedNonFinite << " NaN/inf values in images not compared\n";
    std::cout << "rel. error:  " << format("%.3e", check.relativeError) << " (bound "
              << format("%.0e", bound) << " for " << boundName(path, out, precise) << "), max element "
              << format("%.3e", check.elementError) << " x RMS (bound " << format("%.0e", elementBound)
              << "): " << (pass ? "PASS" : "FAIL") << "\n";
    if (!f.output.empty()) {
        // Only a result that passed its check is written.
        if (pass) {
            // In the output's type and layout: (N, OH, OW, K) for NHWC.
            const std::vector<int64_t> fileShape = out.layout == Layout::NHWC
                                                       ? std::vector<int64_t>{outShape[0], outShape[2], outShape[3], outShape[1]}
                                                       : std::vector<int64_t>(outShape.begin(), outShape.end());
            // NumPy has no bfloat16: a bf16 result is written as the float32 values it holds (exact).
            const DataType fileType = out.type == DataType::BF16 && !f.problem.bf16Bits ? DataType::F32 : out.type;
            writeNpy(f.output, fileShape, held.data(), fileType);
            std::cout << "output:      " << f.output << " shape " << shapeString(fileShape) << " " << toString(fileType)
                      << (out.type == DataType::BF16 ? fileType == DataType::BF16 ? " (bfloat16 bit patterns, '<u2')"
                                                                                  : " (the bf16 values, exactly)"
                                                     : "")
                      << "\n";
        } else {
            std::cout << "output:      not written (the check failed); " << f.output << " is unchanged\n";
        }
    }
    std::cout.flush();

    const int iterations = f.iterationsOption->count() ? f.iterations
                           : device.isCpu()            ? kCpuIterations
                                                       : kGpuIterations;
    const int warmup = f.warmupOption->count() ? f.warmup : device.isCpu() ? kCpuWarmup : kGpuWarmup;
    if (iterations > 0) {
        const Timing t = timeRuns(conv, input, output, residual ? &*residual : nullptr, warmup, iterations);
        std::cout << "time:        median " << format("%.3f", t.medianMs) << " ms, min "
                  << format("%.3f", t.minMs) << " ms over " << t.runs << " runs (" << warmup
                  << " warm-up; " << t.clock << ")\n";
        std::cout << "throughput:  " << format("%.4g", problem.flops() / (t.medianMs * 1e-3) / 1e12)
                  << " TFLOP/s at the median (" << format("%.4g", problem.flops() / (t.minMs * 1e-3) / 1e12)
                  << " at the min; " << format("%.4g", problem.flops() / 1e9) << " GFLOP per run)\n";
    }
    std::cout.flush();
    requireNoValidationMessages(f.device, context);
    if (!pass) {
        std::cerr << "vkconv: error: check failed: "
                  << (check.nonFiniteMismatches ? std::to_string(check.nonFiniteMismatches) + " NaN/inf mismatches; " : "")
                  << (check.inputsFinite && check.uncheckedNonFinite
                          ? std::to_string(check.uncheckedNonFinite) + " NaN/inf values in images not compared; "
                          : "")
                  << "relative error " << format("%.3e", check.relativeError) << " vs bound "
                  << format("%.0e", bound) << ", max element error " << format("%.3e", check.elementError)
                  << " x RMS vs bound " << format("%.0e", elementBound) << " for " << boundName(path, out, precise) << "\n";
        return kExitCheckFailed;
    }
    return kExitOk;
}

}  // namespace

void registerRunCommand(CLI::App& app, CommandAction& action) {
    auto f = std::make_shared<RunFlags>();
    CLI::App* cmd = app.add_subcommand(
        "run", "run one conv2d, check it against the CPU reference and time it (default: alexnet1; "
               "a problem of your own: --in-channels --height --width --out-channels --kernel, with "
               "torch's defaults for the rest)");
    addProblemFlags(*cmd, f->problem,
                    "default " + std::to_string(kGpuBatch) + ", " + std::to_string(kCpuBatch) +
                        " on a CPU device; with --shape, the shape's");
    cmd->add_option("--shape", f->shape,
                    "run a named shape of bench/shapes.json (e.g. alexnet1, resnet50_l2_3x3_128) instead of flags")
        ->type_name("NAME");
    cmd->add_option("--shapes", f->shapesFile,
                    "the shapes file (default: shapes.json next to the binary, else the source tree's)")
        ->type_name("FILE");
    addDeviceFlags(*cmd, f->device);
    cmd->add_option("--precision", f->precision,
                    "fast: the best cooperative-matrix path, else fp32; fp32: the fp32 path; precise: fp32 "
                    "accuracy on the matrix units (fp16 splits), else fp32")
        ->type_name("fast|fp32|precise");
    addSeedOption(*cmd, f->seed);
    f->iterationsOption = cmd->add_option("--iterations", f->iterations,
                                          "timed runs (default " + std::to_string(kGpuIterations) +
                                              ", " + std::to_string(kCpuIterations) +
                                              " on a CPU device; 0: no timing)")
                              ->type_name("INT");
    f->warmupOption = cmd->add_option("--warmup", f->warmup,
                                      "untimed runs before timing (default " + std::to_string(kGpuWarmup) +
                                          ", " + std::to_string(kCpuWarmup) + " on a CPU device)")
                          ->type_name("INT");
    cmd->add_flag("--check-all", f->checkAll,
                  "check every image against the reference (default: first, middle and last)");
    cmd->add_option("--input", f->numpy.input,
                    "NumPy mode: input X, float32 or float16 (N, C, H, W), (N, H, W, C) with --layout nhwc; sizes "
                    "come from the files (size flags given must agree) and stride/padding/dilation/groups "
                    "default to 1/0/1/1 as in torch")
        ->type_name("X.npy");
    cmd->add_option("--weight", f->numpy.weight, "NumPy mode: weight W, float32 (K, C/groups, R, S)")
        ->type_name("W.npy");
    cmd->add_option("--bias", f->numpy.bias, "NumPy mode: bias B, float32 (K,); none if absent")
        ->type_name("B.npy");
    cmd->add_option("--output", f->output,
                    "NumPy mode: write the result Y in the tensors' type (N, K, OH, OW), (N, OH, OW, K) with --layout nhwc")
        ->type_name("Y.npy");
    addCacheFlags(*cmd, f->cache, "ignore the tuning cache: use the heuristic's configuration", true);
    cmd->add_flag("--explain", f->explain,
                  "print the candidates the heuristic weighed and why the configuration was chosen");
    cmd->callback([f, &action] { action = [f] { return runRun(*f); }; });
}

}  // namespace vkconv::cli
