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

// NaN and infinity are compared as the reference computes them: an output element passes where
// the reference's value is the same NaN/inf (inputs holding NaN or inf give such outputs), and
// fails where only one of the two is finite. The errors are over the elements where both are.
struct CheckResult {
    std::vector<int64_t> images;  // the images compared with the reference
    double relativeError = 0;     // over the finite elements of those images
    double elementError = 0;      // max |out - ref| / RMS(ref) over them (maxElementError)
    int64_t nonFiniteMismatches = 0;  // elements where output and reference differ in NaN/inf
    int64_t nonFiniteMatched = 0;     // NaN/inf elements of the reference the output reproduced
    // NaN/inf output values in images not compared (a failure only when the inputs are finite:
    // then no output may be NaN/inf; with NaN/inf inputs they are not judged).
    int64_t uncheckedNonFinite = 0;
    bool inputsFinite = true;

    bool nonFiniteOk() const { return nonFiniteMismatches == 0 && (!inputsFinite || uncheckedNonFinite == 0); }
};

// The images to check: all of them with `all` or for batches of at most 3, else first, middle
// and last.
std::vector<int64_t> imagesToCheck(int64_t batch, bool all);

// "all 8 images" or "images 0, 128, 255 of 256".
std::string describeImages(const std::vector<int64_t>& images, int64_t batch);

// `residual`: the whole residual tensor where the problem's epilogue has one, else null.
CheckResult checkOutput(const ConvProblem& problem, const float* input, const float* weight,
                        const float* bias, const std::vector<float>& output, bool all,
                        const float* residual = nullptr);

}  // namespace vkconv::cli
