// Building, checking and timing one configuration.
#include "sweep_measure.hpp"

#include <chrono>
#include <cmath>
#include <limits>

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
      input_(context, {problem.batch, problem.inChannels, problem.height, problem.width}),
      output_(context, outputShape(problem)) {
    input_.upload(inputs_.input);
    // The first and the last image: between them they touch the start and the end of every
    // tensor and chunk. One image when the batch is one.
    images_ = problem.batch > 1 ? std::vector<int64_t>{0, problem.batch - 1} : std::vector<int64_t>{0};
    const float* bias = problem.bias ? inputs_.bias.data() : nullptr;
    for (int64_t n : images_)
        refs_.push_back(referenceConv2d(problem, inputs_.input.data(), inputs_.weight.data(), bias, n, 1));
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
        r.planMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

        output_.fill(std::numeric_limits<float>::quiet_NaN());  // outputs never written stay NaN
        conv.run(input_, output_);
        const uint64_t perImage = uint64_t(p.outChannels * p.outHeight() * p.outWidth());
        std::vector<float> got(perImage);
        r.relativeError = 0;
        for (size_t i = 0; i < images_.size(); ++i) {
            output_.downloadRange(uint64_t(images_[i]) * perImage, got.data(), perImage);
            const double e = relativeError(got.data(), refs_[i]);
            r.relativeError = std::isnan(e) ? std::numeric_limits<double>::infinity() : std::max(r.relativeError, e);
        }
        const double bound = errorBound(config.path);
        if (!(r.relativeError <= bound)) {
            r.status = CandidateResult::Status::Wrong;
            char buf[96];
            std::snprintf(buf, sizeof buf, "relative error %.3e > bound %.0e", r.relativeError, bound);
            r.error = buf;
            return r;
        }
        if (!spunUp_) {
            // Before the first timing, keep the device busy for a moment, so that the first
            // configuration (the default) is not timed at idle clocks.
            const auto spin = std::chrono::steady_clock::now();
            while (std::chrono::steady_clock::now() - spin < std::chrono::milliseconds(300)) conv.run(input_, output_);
            spunUp_ = true;
        }
        r.timing = summarizeTimes(conv.time(input_, output_, timing.warmup, timing.iterations));
        r.status = CandidateResult::Status::Ok;
    } catch (const Error& e) {
        if (endsTheSweep(e)) throw;
        r.status = CandidateResult::Status::Failed;
        r.error = e.what();
    }
    return r;
}

TimingStats SweepBench::retime(const KernelConfig& config, const TimingOptions& timing) {
    ConvOptions options;
    options.config = config;
    Conv2d conv(context_, inputs_.problem, inputs_.weight, inputs_.bias, options);
    return summarizeTimes(conv.time(input_, output_, timing.warmup, timing.iterations));
}

}  // namespace vkconv::cli
