// PyTorch-style conv2d arguments: stride, padding and dilation as an int or an (h, w) pair,
// padding also "valid" or "same", groups, precision; and the ConvProblem they make with the
// arrays' shapes. Every bad value raises vkconv::Error (InvalidArgument) naming the argument.
#pragma once

#include <nanobind/nanobind.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "vkconv/conv_problem.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv::python {

namespace nb = nanobind;

struct Geometry {
    std::array<int64_t, 2> stride{1, 1}, padding{0, 0}, dilation{1, 1};
    std::string paddingMode;  // "" (padding holds numbers), "valid" or "same"
    int64_t groups = 1;
};

Geometry parseGeometry(nb::handle stride, nb::handle padding, nb::handle dilation, nb::handle groups);

// The fused epilogue's arguments: activation by name, alpha, beta, clamp=(lo, hi) for 'clamp',
// negative_slope for 'leaky_relu'. The residual is not among them: it is an array passed per call.
Epilogue parseEpilogue(const std::string& activation, float alpha, float beta, nb::handle clamp, nb::handle negativeSlope);
Precision parsePrecision(const std::string& precision);

// The problem of input shape x (N, C, H, W) and weight shape w (K, C/groups, R, S), with a
// bias of shape (K,) when `bias` is given. Checks the shapes against each other.
ConvProblem buildProblem(const std::vector<int64_t>& x, const std::vector<int64_t>& w,
                         const std::vector<int64_t>* bias, const Geometry& geometry);

// The same problem from the weight's side only, for a Conv2d planned before it sees an input.
void checkWeightShapes(const std::vector<int64_t>& w, const std::vector<int64_t>* bias, int64_t groups);

}  // namespace vkconv::python
