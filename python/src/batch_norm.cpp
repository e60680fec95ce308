// vkconv.fold_batchnorm(): a batch norm folded into the conv's weights and bias (batch_norm.hpp).
#include <nanobind/stl/pair.h>

#include <cstring>

#include "arrays.hpp"
#include "bindings.hpp"
#include "vkconv/batch_norm.hpp"
#include "vkconv/error.hpp"

namespace vkconv::python {

namespace {

std::vector<float> values(nb::handle a, const char* name) {
    const HostArray h = importArray(a, name);
    return std::vector<float>(h.data, h.data + h.elements());
}

nb::ndarray<nb::numpy, float> newArray(const std::vector<float>& v, const std::vector<int64_t>& shape) {
    OutputArray out(shape);
    std::memcpy(out.data(), v.data(), v.size() * sizeof(float));
    return out.release();
}

std::pair<nb::ndarray<nb::numpy, float>, nb::ndarray<nb::numpy, float>> fold(nb::handle w, nb::handle b, nb::handle gamma,
                                                                             nb::handle beta, nb::handle mean,
                                                                             nb::handle var, double eps) {
    const HostArray wa = importArray(w, "w");
    if (wa.shape.size() != 4)
        throw invalidArgument("w.shape", wa.shapeString(), "expected 4 dimensions (K, C/groups, kH, kW)");
    const std::vector<float> bias = b.is_none() ? std::vector<float>{} : values(b, "b");
    const FoldedConv f = foldBatchNorm(std::vector<float>(wa.data, wa.data + wa.elements()), bias, values(gamma, "gamma"),
                                       values(beta, "beta"), values(mean, "mean"), values(var, "var"), eps);
    return {newArray(f.weight, wa.shape), newArray(f.bias, {int64_t(f.bias.size())})};
}

}  // namespace

void bindBatchNorm(nb::module_& m) {
    m.def("fold_batchnorm", &fold, nb::arg("w").none(), nb::arg("b").none(), nb::arg("gamma").none(),
          nb::arg("beta").none(), nb::arg("mean").none(), nb::arg("var").none(), nb::arg("eps") = 1e-5,
          nb::sig("def fold_batchnorm(w: numpy.typing.ArrayLike, b: numpy.typing.ArrayLike | None, "
                  "gamma: numpy.typing.ArrayLike, beta: numpy.typing.ArrayLike, mean: numpy.typing.ArrayLike, "
                  "var: numpy.typing.ArrayLike, eps: float = 1e-05) "
                  "-> tuple[numpy.typing.NDArray[numpy.float32], numpy.typing.NDArray[numpy.float32]]"),
          "An inference-mode BatchNorm2d (weight gamma, bias beta, running_mean, running_var, eps) folded\n"
          "into the conv before it, as torch.nn.utils.fusion.fuse_conv_bn_weights does:\n"
          "scale = gamma / sqrt(var + eps); w' = w * scale (per output channel); b' = (b - mean) * scale + beta.\n"
          "Computed in double, rounded to float32 once. b None: a conv without bias. Returns (w', b').");
}

}  // namespace vkconv::python
