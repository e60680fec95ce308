// Checking a GPU result against the CPU reference (double accumulation). The reference is slow
// (alexnet1 at batch 256 would take minutes), so by default only a sample of images is checked:
// the first, the middle and the last, which between them touch the start, the interior and the
// end of every tensor (and of every chunk boundary the plan could put at either end).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkconv/conv_problem.hpp"

namespace vkconv::cli {

struct CheckResult {
    std::vector<int64_t> images;  // the images compared with the reference
    double relativeError = 0;     // over those images; +inf if any of them is NaN/inf
    double elementError = 0;      // max |out - ref| / RMS(ref) over those images (maxElementError)
    int64_t nonFinite = 0;        // NaN/inf values anywhere in the output (all images)
};

// The images to check: all of them with `all` or for batches of at most 3, else first, middle
// and last.
std::vector<int64_t> imagesToCheck(int64_t batch, bool all);

// "all 8 images" or "images 0, 128, 255 of 256".
std::string describeImages(const std::vector<int64_t>& images, int64_t batch);

CheckResult checkOutput(const ConvProblem& problem, const float* input, const float* weight,
                        const float* bias, const std::vector<float>& output, bool all);

}  // namespace vkconv::cli
