// Building, checking and timing one configuration.
#include "sweep_measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "parallel_build.hpp"  // bench/
#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"
#include "vkconv/reference.hpp"

namespace vkconv::cli {

namespace {

std::vector<int64_t> outputShape(const ConvProblem& p) {
    const auto s = p.outputShape();
    return {s.begin(), s.end()};
}

// Failures after which nothing on the device can be trusted: stop the sweep rather than record
// every following configuration as failed.
bool endsTheSweep(const Error& e) {
    const std::string m = e.what();
    return e.kind() == Error::Kind::Vulkan &&
           (m.find("DEVICE_LOST") != std::string::npos || m.find("did not finish") != std::string::npos);
}

}  // namespace

const char* toString(CandidateResult::Status s) {
    switch (s) {
        case CandidateResult::Status::Ok: return "ok";
        case CandidateResult::Status::Wrong: return "wrong";
        case CandidateResult::Status::Failed: return "failed";
    }
    return "?";
}

SweepBench::SweepBench(const Context& context, const ConvProblem& problem, uint64_t seed)
    : context_(context),
      inputs_(randomInputs(problem, seed)),
      input_(context, {problem.batch, problem.inChannels, problem.height, problem.width}, problem.inputFormat),
      output_(context, outputShape(problem), problem.outputFormat) {
    input_.uploadNchw(inputs_.input);
    if (problem.epilogue.residual) {
        residual_.emplace(context, outputShape(problem), problem.outputFormat);
        residual_->uploadNchw(inputs_.residual);
    }
}

const std::vector<double>& SweepBench::reference(int64_t image) {
    auto it = references_.find(image);
    if (it != references_.end()) return it->second;
    const ConvProblem& p = inputs_.problem;
    const float* bias = p.bias ? inputs_.bias.data() : nullptr;
    return references_[image] = referenceConv2d(p, inputs_.input.data(), inputs_.weight.data(), bias, image, 1,
                                                p.epilogue.residual ? inputs_.residual.data() : nullptr);
}

double SweepBench::checkOutput(Conv2d& conv) {
    const ConvProblem& p = inputs_.problem;
    // The first and the last image of every chunk: between them they touch the start and the
    // end of every tensor range and dispatch grid the plan made.
    const std::vector<int64_t> firsts = conv.chunkFirstImages();
    std::vector<int64_t> images;
    for (size_t i = 0; i < firsts.size(); ++i) {
        const int64_t last = (i + 1 < firsts.size() ? firsts[i + 1] : p.batch) - 1;
        images.push_back(firsts[i]);
        if (last != firsts[i]) images.push_back(last);
    }
    output_.fill(std::numeric_limits<float>::quiet_NaN());  // outputs never written stay NaN
    if (residual_)
        conv.run(input_, output_, *residual_);
    else
        conv.run(input_, output_);
    double worst = 0;
    for (int64_t n : images) {
        const std::vector<float> got = output_.downloadNchwImages(n, 1);
        const double e = relativeError(got.data(), reference(n));
        worst = std::isnan(e) ? std::numeric_limits<double>::infinity() : std::max(worst, e);
    }
    return worst;
}

namespace {

double msSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

// A short --warmup-ms stretches to the device's idle time since the last timing
// (bench/idle_warmup.hpp says why).
TimingStats SweepBench::timeWarm(Conv2d& conv, const TimingOptions& timing, WarmupReport* report) {
    return summarizeTimes(warmup_.time(conv, input_, output_, timing, report, residual_ ? &*residual_ : nullptr));
}

CandidateResult SweepBench::measure(const KernelConfig& config, const TimingOptions& timing) {
    CandidateResult r;
    r.config = config;
    const ConvProblem& p = inputs_.problem;
    try {
        ConvOptions options;
        options.config = config;
        const auto start = std::chrono::steady_clock::now();
        Conv2d conv(context_, p, inputs_.weight, inputs_.bias, options);
        r.planMs = msSince(start);
        if (auto it = firstPlanMs_.find(config.str()); it != firstPlanMs_.end()) r.planMs = it->second;

        r.relativeError = checkOutput(conv);
        const double bound = errorBound(config.path, p.outputFormat);
        if (!(r.relativeError <= bound)) {
            r.status = CandidateResult::Status::Wrong;
            char buf[96];
            std::snprintf(buf, sizeof buf, "relative error %.3e > bound %.0e", r.relativeError, bound);
            r.error = buf;
            return r;
        }
        // conv.time warms the device up with this kernel before it times (TimingOptions).
        r.timing = timeWarm(conv, timing, &r.warmup);
        r.status = CandidateResult::Status::Ok;
    } catch (const Error& e) {
        if (endsTheSweep(e)) throw;
        r.status = CandidateResult::Status::Failed;
        r.error = e.what();
    }
    return r;
}

double SweepBench::prebuild(const std::vector<KernelConfig>& configs, unsigned jobs) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<double> planMs =
        bench::buildOnThreads(context_, inputs_.problem, inputs_.weight, inputs_.bias, configs, jobs);
    for (size_t i = 0; i < configs.size(); ++i)
        if (planMs[i] >= 0) firstPlanMs_[configs[i].str()] = planMs[i];
    return msSince(start) / 1000.0;
}

TimingStats SweepBench::retime(const KernelConfig& config, const TimingOptions& timing) {
    ConvOptions options;
    options.config = config;
    Conv2d conv(context_, inputs_.problem, inputs_.weight, inputs_.bias, options);
    const double e = checkOutput(conv);
    const double bound = errorBound(config.path, inputs_.problem.outputFormat);
    if (!(e <= bound)) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "relative error %.3e > bound %.0e when re-timed", e, bound);
        throw Error(Error::Kind::Vulkan, config.str() + ": " + buf);
    }
    return timeWarm(conv, timing, nullptr);
}

}  // namespace vkconv::cli
