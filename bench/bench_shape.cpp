#include "bench_shape.hpp"

#include <optional>
#include <cmath>
#include <iomanip>
#include <limits>
#include <new>
#include <sstream>
#include <utility>

#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"
#include "vkconv/reference.hpp"
#include "vkconv/tensor.hpp"

namespace vkconv::bench {

const char* toString(Status status) {
    switch (status) {
        case Status::Ok: return "ok";
        case Status::Wrong: return "wrong";
        case Status::Unsupported: return "unsupported";
        case Status::Failed: return "failed";
    }
    return "?";
}

// Uniform in [-1, 1), the distribution the library's error bounds are stated for. A fixed seed
// per shape makes runs repeatable; splitmix64 is fast enough for the 100M-element inputs.
std::vector<float> randomData(size_t count, uint64_t seed) {
    std::vector<float> out(count);
    uint64_t state = seed;
    for (float& v : out) {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        v = float(int64_t(z >> 40) - (int64_t(1) << 23)) * (1.0f / float(1 << 23));
    }
    return out;
}

namespace {

uint64_t nameSeed(const std::string& name, uint64_t salt) {
    uint64_t h = 1469598103934665603ull ^ salt;  // FNV-1a
    for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
    return h;
}

std::vector<int64_t> dims(const std::array<int64_t, 4>& a) { return {a.begin(), a.end()}; }

std::string megabytes(double bytes) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(bytes < 10e6 ? 2 : 1) << bytes / 1e6 << " MB";
    return s.str();
}

// Runs once and compares images against the double-precision CPU reference. Returns the worst
// relative error over the checked images.
double checkAgainstReference(Conv2d& conv, const Tensor& input, Tensor& output, const Tensor* residual,
                             const std::vector<float>& hostInput, const std::vector<float>& weight,
                             const std::vector<float>& bias, const std::vector<float>& hostResidual,
                             const std::vector<int64_t>& images) {
    const ConvProblem& p = conv.problem();
    output.fill(std::numeric_limits<float>::quiet_NaN());  // unwritten outputs must not pass
    if (residual)
        conv.run(input, output, *residual);
    else
        conv.run(input, output);
    double worst = 0;
    for (int64_t n : images) {
        const std::vector<double> ref = referenceConv2d(
            p, hostInput.data(), weight.data(), p.bias ? bias.data() : nullptr, n, 1,
            residual ? hostResidual.data() : nullptr);
        const double err = relativeError(output.downloadNchwImages(n, 1).data(), ref);
        if (!(err <= worst)) worst = err;  // NaN-safe: NaN or inf always becomes the worst
    }
    return worst;
}

}  // namespace

ShapeResult benchShape(const Context& context, const BenchShape& shape,
                       const BenchSettings& settings, std::ostream& log) {
    ShapeResult r;
    r.shape = shape;
    const ConvProblem& p = shape.problem;
    r.inputBytes = elementBytes(p.inputFormat.type) * double(p.inputElements());
    r.outputBytes = elementBytes(p.outputFormat.type) * double(p.outputElements());
    r.weightBytes = 4.0 * double(p.weightElements());
    r.fitsInCache = !settings.cpuDevice && !shape.latency &&
                    r.inputBytes + r.outputBytes < double(settings.gpuMinIoBytes);
    log << shape.name << ": " << p.str() << "\n  input " << megabytes(r.inputBytes) << " + output "
        << megabytes(r.outputBytes) << " = " << megabytes(r.inputBytes + r.outputBytes)
        << " (weights " << megabytes(r.weightBytes) << ")"
        << (shape.latency ? "; latency shape, cache-resident on purpose" : "")
        << (r.fitsInCache ? "; WARNING: below the memory-size rule, may run from cache" : "") << "\n";
    if (r.fitsInCache) r.message = "input + output below gpu_min_io_bytes: may run from cache";
    try {
        std::vector<float> input = randomData(size_t(p.inputElements()), nameSeed(shape.name, 1));
        const std::vector<float> weight = randomData(size_t(p.weightElements()), nameSeed(shape.name, 2));
        const std::vector<float> bias =
            p.bias ? randomData(size_t(p.outChannels), nameSeed(shape.name, 3)) : std::vector<float>();
        std::vector<float> hostResidual = p.epilogue.residual ? randomData(size_t(p.outputElements()), nameSeed(shape.name, 4))
                                                              : std::vector<float>();

        ConvOptions options;
        options.precision = settings.precision;
        Conv2d conv(context, p, weight, bias, options);
        r.config = conv.config().str();
        r.describe = conv.describe();
        log << "  config " << r.describe << "\n";

        // The host copies as the tensors hold them (fp16's rounding), so that the reference
        // computes on what the kernel reads.
        input = heldAs(std::move(input), p.inputFormat.type);
        hostResidual = heldAs(std::move(hostResidual), p.outputFormat.type);
        Tensor in(context, dims(p.inputShape()), p.inputFormat);
        Tensor out(context, dims(p.outputShape()), p.outputFormat);
        in.uploadNchw(input);
        std::optional<Tensor> residual;
        if (p.epilogue.residual) {
            residual.emplace(context, dims(p.outputShape()), p.outputFormat);
            residual->uploadNchw(hostResidual);
        }

        r.checkedImages = {0};
        if (settings.checkImages > 1 && p.batch > 1) r.checkedImages.push_back(p.batch - 1);
        r.errorBound = conv.errorBound();
        r.relError = checkAgainstReference(conv, in, out, residual ? &*residual : nullptr, input, weight, bias,
                                           hostResidual, r.checkedImages);
        log << "  check: images";
        for (int64_t n : r.checkedImages) log << " " << n;
        log << ": relative error " << std::scientific << std::setprecision(2) << r.relError
            << " (bound " << r.errorBound << ")" << std::defaultfloat;
        if (!(r.relError <= r.errorBound)) {
            log << " WRONG: no time reported\n";
            r.status = Status::Wrong;
            r.message = "relative error above the bound; not timed";
            return r;
        }
        log << " ok\n";
        input = std::vector<float>();  // the host copies are not needed while timing
        hostResidual = std::vector<float>();

        TimingOptions timing;
        timing.warmupMs = settings.warmupMs;
        timing.warmupRuns = settings.warmup;
        timing.iterations = settings.iterations;
        WarmupReport warmed;
        r.timing = summarize(residual ? conv.time(in, out, *residual, timing, &warmed) : conv.time(in, out, timing, &warmed));
        log << "  warm-up: " << warmed.runs << " runs in " << std::fixed << std::setprecision(0) << warmed.wallMs
            << " ms, then " << settings.warmup << " more in the timed submission\n" << std::defaultfloat;
        const double seconds = r.timing.medianMs * 1e-3;
        if (seconds > 0) {
            r.tflops = p.flops() / seconds / 1e12;
            r.gbps = p.minBytes() / seconds / 1e9;
        }
        if (settings.copyGbps > 0) {
            r.floorMs = p.minBytes() / (settings.copyGbps * 1e9) * 1e3;
            r.xFloor = r.timing.medianMs / r.floorMs;
        }
        log << std::fixed << std::setprecision(4) << "  median " << r.timing.medianMs << " ms (min "
            << r.timing.minMs << ", max " << r.timing.maxMs << ", spread " << std::setprecision(3)
            << r.timing.spread << ") " << std::setprecision(r.tflops < 1 ? 4 : 2) << r.tflops << " TFLOP/s "
            << std::setprecision(1) << r.gbps << " GB/s " << std::setprecision(2) << r.xFloor
            << "x floor\n"
            << std::defaultfloat;
        r.status = Status::Ok;
    } catch (const Error& e) {
        r.status = e.kind() == Error::Kind::Unsupported ? Status::Unsupported : Status::Failed;
        r.message = e.what();
        log << "  " << toString(r.status) << ": " << e.what() << "\n";
    } catch (const std::bad_alloc&) {
        r.status = Status::Failed;
        r.message = "out of host memory";
        log << "  failed: out of host memory\n";
    }
    return r;
}

}  // namespace vkconv::bench
