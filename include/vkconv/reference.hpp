// The CPU reference conv2d, accumulating in double: the ground truth every test compares with.
#pragma once

#include <cstdint>
#include <vector>

#include "vkconv/conv_problem.hpp"

namespace vkconv {

// Output images [firstImage, firstImage + imageCount) of the problem, NCHW, in double, the
// problem's epilogue applied in double (Epilogue::apply). imageCount = -1 means through the last
// image. `residual`: the whole residual tensor (the output's shape), required where the epilogue
// has one. Uses all hardware threads.
std::vector<double> referenceConv2d(const ConvProblem& problem, const float* input,
                                    const float* weight, const float* bias,
                                    int64_t firstImage = 0, int64_t imageCount = -1,
                                    const float* residual = nullptr);

// ||out - ref|| / ||ref|| over ref.size() elements of out starting at out; +infinity if any
// element of out is NaN or infinite (NaN never passes). If ref is all zero, returns ||out||.
double relativeError(const float* out, const std::vector<double>& ref);

// max_i |out_i - ref_i| / RMS(ref) over ref.size() elements: the per-element companion of
// relativeError (one wrong element of a large output barely moves the L2 norm). +infinity if any
// element of out is NaN or infinite; if ref is all zero, returns max |out_i|.
double maxElementError(const float* out, const std::vector<double>& ref);

}  // namespace vkconv
