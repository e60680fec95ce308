// The reference check of a run's output.
#include "reference_check.hpp"

#include <cmath>

#include "vkconv/reference.hpp"

namespace vkconv::cli {

std::vector<int64_t> imagesToCheck(int64_t batch, bool all) {
    std::vector<int64_t> images;
    if (all || batch <= 3) {
        for (int64_t n = 0; n < batch; ++n) images.push_back(n);
    } else {
        images = {0, batch / 2, batch - 1};
    }
    return images;
}

std::string describeImages(const std::vector<int64_t>& images, int64_t batch) {
    if (int64_t(images.size()) == batch)
        return batch == 1 ? "the only image" : "all " + std::to_string(batch) + " images";
    std::string s = "images ";
    for (size_t i = 0; i < images.size(); ++i) s += (i ? ", " : "") + std::to_string(images[i]);
    return s + " of " + std::to_string(batch);
}

CheckResult checkOutput(const ConvProblem& problem, const float* input, const float* weight,
                        const float* bias, const std::vector<float>& output, bool all) {
    CheckResult result;
    for (float v : output) result.nonFinite += !std::isfinite(v);
    result.images = imagesToCheck(problem.batch, all);

    const size_t perImage = size_t(problem.outChannels * problem.outHeight() * problem.outWidth());
    std::vector<double> ref;
    std::vector<float> got;
    if (int64_t(result.images.size()) == problem.batch) {
        // One call: the reference spreads (image, channel) pairs over all cores.
        ref = referenceConv2d(problem, input, weight, bias);
        result.relativeError = relativeError(output.data(), ref);
        result.elementError = maxElementError(output.data(), ref);
        return result;
    }
    for (int64_t n : result.images) {
        std::vector<double> r = referenceConv2d(problem, input, weight, bias, n, 1);
        ref.insert(ref.end(), r.begin(), r.end());
        got.insert(got.end(), output.begin() + n * perImage, output.begin() + (n + 1) * perImage);
    }
    result.relativeError = relativeError(got.data(), ref);
    result.elementError = maxElementError(got.data(), ref);
    return result;
}

}  // namespace vkconv::cli
