// The CPU reference: a direct convolution accumulating in double, spread over all cores by
// (image, output channel) pairs. Slow by design; it is the ground truth, not a competitor.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "vkconv/error.hpp"
#include "vkconv/reference.hpp"

namespace vkconv {

std::vector<double> referenceConv2d(const ConvProblem& p, const float* input, const float* weight,
                                    const float* bias, int64_t firstImage, int64_t imageCount,
                                    const float* residual) {
    p.validate();
    if (firstImage < 0 || firstImage >= p.batch)
        throw invalidArgument("firstImage", firstImage, "outside the batch");
    if (imageCount < 0) imageCount = p.batch - firstImage;
    if (firstImage + imageCount > p.batch)
        throw invalidArgument("imageCount", imageCount, "runs past the batch");
    if (p.bias && bias == nullptr) throw invalidArgument("bias", "null", "problem has bias");
    if (p.epilogue.residual && residual == nullptr) throw invalidArgument("residual", "null", "the epilogue has a residual");

    const int64_t OH = p.outHeight(), OW = p.outWidth();
    const int64_t Cg = p.inChannels / p.groups, Kg = p.outChannels / p.groups;
    std::vector<double> out(size_t(imageCount * p.outChannels * OH * OW));

    const int64_t jobs = imageCount * p.outChannels;
    std::atomic<int64_t> next{0};
    auto worker = [&] {
        for (int64_t job; (job = next.fetch_add(1)) < jobs;) {
            const int64_t n = firstImage + job / p.outChannels, k = job % p.outChannels;
            const int64_t g = k / Kg;
            double* o = &out[size_t(job * OH * OW)];
            for (int64_t oh = 0; oh < OH; ++oh)
                for (int64_t ow = 0; ow < OW; ++ow) {
                    double acc = 0.0;
                    for (int64_t c = 0; c < Cg; ++c) {
                        const float* in = input + ((n * p.inChannels + g * Cg + c) * p.height) * p.width;
                        const float* w = weight + ((k * Cg + c) * p.kernelH) * p.kernelW;
                        for (int64_t r = 0; r < p.kernelH; ++r) {
                            const int64_t ih = oh * p.strideH - p.padH + r * p.dilationH;
                            if (ih < 0 || ih >= p.height) continue;
                            for (int64_t s = 0; s < p.kernelW; ++s) {
                                const int64_t iw = ow * p.strideW - p.padW + s * p.dilationW;
                                if (iw < 0 || iw >= p.width) continue;
                                acc += double(in[ih * p.width + iw]) * double(w[r * p.kernelW + s]);
                            }
                        }
                    }
                    const double z = p.epilogue.residual ? double(residual[((n * p.outChannels + k) * OH + oh) * OW + ow]) : 0.0;
                    o[oh * OW + ow] = p.epilogue.apply(acc, p.bias ? double(bias[k]) : 0.0, z);
                }
        }
    };
    const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 64));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    return out;
}

double relativeError(const float* out, const std::vector<double>& ref) {
    double diff = 0.0, norm = 0.0;
    for (size_t i = 0; i < ref.size(); ++i) {
        if (!std::isfinite(out[i])) return INFINITY;
        const double d = double(out[i]) - ref[i];
        diff += d * d;
        norm += ref[i] * ref[i];
    }
    return norm > 0.0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

double maxElementError(const float* out, const std::vector<double>& ref) {
    double worst = 0.0, norm = 0.0;
    for (size_t i = 0; i < ref.size(); ++i) {
        if (!std::isfinite(out[i])) return INFINITY;
        worst = std::max(worst, std::fabs(double(out[i]) - ref[i]));
        norm += ref[i] * ref[i];
    }
    const double rms = ref.empty() ? 0.0 : std::sqrt(norm / double(ref.size()));
    return rms > 0.0 ? worst / rms : worst;
}

}  // namespace vkconv
