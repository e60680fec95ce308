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

namespace {

// Compares `out` with `ref` element by element as CheckResult describes, adding to `result`'s
// counts and returning the finite pairs (out, ref) for the error measures.
void compareNonFinite(const float* out, const std::vector<double>& ref, CheckResult& result,
                      std::vector<float>& finiteOut, std::vector<double>& finiteRef) {
    for (size_t i = 0; i < ref.size(); ++i) {
        const double r = ref[i];
        const float o = out[i];
        if (std::isfinite(r) && std::isfinite(o)) {
            finiteOut.push_back(o);
            finiteRef.push_back(r);
        } else if ((std::isnan(r) && std::isnan(o)) || (std::isinf(r) && double(o) == r)) {
            ++result.nonFiniteMatched;
        } else {
            ++result.nonFiniteMismatches;
        }
    }
}

bool allFinite(const float* v, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
        if (!std::isfinite(v[i])) return false;
    return true;
}

}  // namespace

CheckResult checkOutput(const ConvProblem& problem, const float* input, const float* weight,
                        const float* bias, const std::vector<float>& output, bool all, const float* residual) {
    CheckResult result;
    result.images = imagesToCheck(problem.batch, all);
    result.inputsFinite = allFinite(input, problem.inputElements()) && allFinite(weight, problem.weightElements()) &&
                          (!bias || allFinite(bias, problem.outChannels)) &&
                          (!residual || allFinite(residual, problem.outputElements()));

    const size_t perImage = size_t(problem.outChannels * problem.outHeight() * problem.outWidth());
    std::vector<float> finiteOut;
    std::vector<double> finiteRef;
    if (int64_t(result.images.size()) == problem.batch) {
        // One call: the reference spreads (image, channel) pairs over all cores.
        const std::vector<double> ref = referenceConv2d(problem, input, weight, bias, 0, -1, residual);
        compareNonFinite(output.data(), ref, result, finiteOut, finiteRef);
    } else {
        std::vector<bool> checked(size_t(problem.batch), false);
        for (int64_t n : result.images) {
            checked[size_t(n)] = true;
            const std::vector<double> ref = referenceConv2d(problem, input, weight, bias, n, 1, residual);
            compareNonFinite(output.data() + n * perImage, ref, result, finiteOut, finiteRef);
        }
        for (int64_t n = 0; n < problem.batch; ++n)
            if (!checked[size_t(n)])
                for (size_t i = 0; i < perImage; ++i) result.uncheckedNonFinite += !std::isfinite(output[n * perImage + i]);
    }
    result.relativeError = relativeError(finiteOut.data(), finiteRef);
    result.elementError = maxElementError(finiteOut.data(), finiteRef);
    return result;
}

}  // namespace vkconv::cli
