// Parsing conv2d's arguments the way torch.nn.functional.conv2d takes them.
#include "conv_args.hpp"

#include <nanobind/stl/vector.h>

#include <Python.h>
#include <nanobind/stl/string.h>

#include "arrays.hpp"
#include "vkconv/error.hpp"

namespace vkconv::python {

namespace {

std::string pyRepr(nb::handle h) { return nb::cast<std::string>(nb::repr(h)); }

// An int (or anything with __index__, such as a NumPy integer), never a bool or a float.
bool readInt(nb::handle h, int64_t& out) {
    if (PyBool_Check(h.ptr()) || !PyIndex_Check(h.ptr())) return false;
    nb::object index = nb::steal(PyNumber_Index(h.ptr()));
    if (!index.is_valid()) { PyErr_Clear(); return false; }
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) { PyErr_Clear(); return false; }
    out = v;
    return true;
}

std::array<int64_t, 2> readPair(const char* field, nb::handle h) {
    int64_t v = 0;
    if (readInt(h, v)) return {v, v};
    if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) {
        nb::sequence seq = nb::borrow<nb::sequence>(h);
        int64_t a = 0, b = 0;
        if (nb::len(seq) == 2 && readInt(seq[0], a) && readInt(seq[1], b)) return {a, b};
    }
    throw invalidArgument(field, pyRepr(h), "expected an int or a pair of ints (h, w)");
}

}  // namespace

Epilogue parseEpilogue(const std::string& activation, float alpha, float beta, nb::handle clamp, nb::handle negativeSlope) {
    Epilogue e;
    e.activation = activationFromString(activation);
    e.alpha = alpha;
    e.beta = beta;
    if (!clamp.is_none()) {
        if (e.activation != Activation::Clamp) throw invalidArgument("clamp", pyRepr(clamp), "needs activation='clamp'");
        const std::vector<float> bounds = nb::cast<std::vector<float>>(clamp);
        if (bounds.size() != 2) throw invalidArgument("clamp", pyRepr(clamp), "expected (lower, upper)");
        e.lower = bounds[0], e.upper = bounds[1];
    }
    if (!negativeSlope.is_none()) {
        if (e.activation != Activation::LeakyRelu)
            throw invalidArgument("negative_slope", pyRepr(negativeSlope), "needs activation='leaky_relu'");
        e.slope = nb::cast<float>(negativeSlope);
    }
    e.validate();
    return e;
}

Geometry parseGeometry(nb::handle stride, nb::handle padding, nb::handle dilation, nb::handle groups) {
    Geometry g;
    g.stride = readPair("stride", stride);
    if (PyUnicode_Check(padding.ptr())) {
        g.paddingMode = nb::cast<std::string>(padding);
        if (g.paddingMode != "valid" && g.paddingMode != "same")
            throw invalidArgument("padding", pyRepr(padding), "expected an int, a pair of ints, 'valid' or 'same'");
    } else {
        g.padding = readPair("padding", padding);
    }
    g.dilation = readPair("dilation", dilation);
    if (!readInt(groups, g.groups)) throw invalidArgument("groups", pyRepr(groups), "expected an int");
    for (int i = 0; i < 2; ++i) {
        if (g.stride[i] < 1) throw invalidArgument("stride", pyRepr(stride), "must be >= 1");
        if (g.padding[i] < 0) throw invalidArgument("padding", pyRepr(padding), "must be >= 0");
        if (g.dilation[i] < 1) throw invalidArgument("dilation", pyRepr(dilation), "must be >= 1");
    }
    if (g.groups < 1) throw invalidArgument("groups", g.groups, "must be >= 1");
    if (g.paddingMode == "same" && (g.stride[0] != 1 || g.stride[1] != 1))
        throw invalidArgument("padding", "'same'", "needs stride 1 (as in PyTorch), got stride " + pyRepr(stride));
    return g;
}

Precision parsePrecision(const std::string& precision) { return precisionFromString(precision); }

void checkWeightShapes(const std::vector<int64_t>& w, const std::vector<int64_t>* bias, int64_t groups) {
    if (w.size() != 4)
        throw invalidArgument("w.shape", shapeString(w), "expected 4 dimensions (out_channels, in_channels/groups, kH, kW)");
    if (bias && *bias != std::vector<int64_t>{w[0]})
        throw invalidArgument("b.shape", shapeString(*bias),
                              "expected (out_channels,) = (" + std::to_string(w[0]) + ",), from w.shape[0]");
    if (groups >= 1 && w[0] % groups != 0)
        throw invalidArgument("w.shape[0] (out_channels)", w[0],
                              "must be divisible by groups = " + std::to_string(groups));
}

ConvProblem buildProblem(const std::vector<int64_t>& x, const std::vector<int64_t>& w,
                         const std::vector<int64_t>* bias, const Geometry& g) {
    if (x.size() != 4)
        throw invalidArgument("x.shape", shapeString(x), "expected 4 dimensions (N, C, H, W) or 3 (C, H, W)");
    checkWeightShapes(w, bias, g.groups);
    ConvProblem p;
    p.batch = x[0];
    p.inChannels = x[1];
    p.height = x[2];
    p.width = x[3];
    p.outChannels = w[0];
    p.kernelH = w[2];
    p.kernelW = w[3];
    p.strideH = g.stride[0];
    p.strideW = g.stride[1];
    p.dilationH = g.dilation[0];
    p.dilationW = g.dilation[1];
    p.groups = g.groups;
    p.bias = bias != nullptr;
    if (g.paddingMode == "same") {
        // Symmetric padding only: 'same' needs an even total padding dilation * (k - 1).
        const int64_t totalH = p.dilationH * (p.kernelH - 1), totalW = p.dilationW * (p.kernelW - 1);
        if (totalH % 2 || totalW % 2)
            throw Error(Error::Kind::Unsupported,
                        "padding = 'same' with kernel " + std::to_string(p.kernelH) + "x" + std::to_string(p.kernelW) +
                            " and dilation " + std::to_string(p.dilationH) + "x" + std::to_string(p.dilationW) +
                            " needs different padding on the two sides, which vkconv does not do; pad x yourself "
                            "(numpy.pad) and use padding=0");
        p.padH = totalH / 2;
        p.padW = totalW / 2;
    } else {
        p.padH = g.padding[0];
        p.padW = g.padding[1];
    }
    // validate() first: it names the cause when groups does not divide C, which would otherwise
    // show as a confusing weight-shape mismatch.
    p.validate();
    if (w[1] * p.groups != p.inChannels)
        throw invalidArgument("w.shape[1] (in_channels/groups)", w[1],
                              "expected x's channels / groups = " + std::to_string(p.inChannels) + " / " +
                                  std::to_string(p.groups) + " = " + std::to_string(p.inChannels / p.groups) +
                                  " (x.shape " + shapeString(x) + ", w.shape " + shapeString(w) + ")");
    return p;
}

}  // namespace vkconv::python
