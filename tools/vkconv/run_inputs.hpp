// The tensors a run convolves: either fresh seeded random values for a problem given by flags,
// or the contents of NumPy files (NumPy mode), whose shapes then define the problem.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "problem_options.hpp"
#include "vkconv/conv_problem.hpp"

namespace vkconv::cli {

struct RunInputs {
    ConvProblem problem;
    // Activations in logical NCHW order whatever the problem's layout, as their tensors hold them
    // (fp16's rounding applied where the tensor is f16).
    std::vector<float> input;   // NCHW
    std::vector<float> weight;  // KCRS, C per group
    std::vector<float> bias;    // K, or empty without bias
    std::vector<float> residual;  // the output's shape where the epilogue has a residual, else empty
    std::string source;         // "random uniform [-1, 1], seed 1" or the file names
};

// Input, weights, bias and residual uniform in [-1, 1] from `seed` (the same seed gives the same
// values).
RunInputs randomInputs(const ConvProblem& problem, uint64_t seed);

struct NumpyPaths {
    std::string input, weight, bias;  // bias may be empty: no bias
};
// The residual file of NumPy mode is the problem flags' --residual FILE.

// Reads X (N,C,H,W), W (K,C/groups,R,S), optionally B (K,), and Z (N,K,OH,OW) where --residual
// names it (NumPy mode needs the file); with --layout nhwc, X is (N,H,W,C) and Z (N,OH,OW,K).
// float32 or float16 files; the tensors' type is --dtype, else X's. Sizes come from the shapes (size
// flags, where given, must agree with them); the stride, padding, dilation and groups flags apply. Throws vkconv::Error naming the file,
// the field and the value when the shapes do not fit together.
RunInputs numpyInputs(const NumpyPaths& paths, const ProblemFlags& flags);

}  // namespace vkconv::cli
