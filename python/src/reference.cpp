// vkconv.reference_conv2d(): the CPU reference every vkconv test and `vkconv sweep` compares with.
#include <nanobind/stl/vector.h>

#include <cstring>
#include <optional>

#include "arrays.hpp"
#include "bindings.hpp"
#include "vkconv/error.hpp"
#include "vkconv/reference.hpp"

namespace vkconv::python {

namespace {

void requireShape(const HostArray& a, const std::vector<int64_t>& shape, const char* name) {
    if (a.shape != shape)
        throw invalidArgument(std::string(name) + ".shape", a.shapeString(), "expected " + shapeString(shape) + " for the problem");
}

nb::ndarray<nb::numpy, double> reference(const ConvProblem& p, nb::handle x, nb::handle w, nb::handle b) {
    p.validate();
    const HostArray xa = importArray(x, "x"), wa = importArray(w, "w");
    const auto xs = p.inputShape(), ws = p.weightShape();
    requireShape(xa, {xs.begin(), xs.end()}, "x");
    requireShape(wa, {ws.begin(), ws.end()}, "w");
    std::optional<HostArray> ba;
    if (p.bias) {
        if (b.is_none()) throw invalidArgument("b", "None", "the problem has a bias (problem.bias = True)");
        ba = importArray(b, "b");
        requireShape(*ba, {p.outChannels}, "b");
    } else if (!b.is_none()) {
        throw invalidArgument("b", "given", "the problem has no bias (problem.bias = False)");
    }
    std::vector<double> out;
    {
        nb::gil_scoped_release release;
        out = referenceConv2d(p, xa.data, wa.data, ba ? ba->data : nullptr);
    }
    auto* data = new double[out.size() ? out.size() : 1];
    std::memcpy(data, out.data(), out.size() * sizeof(double));
    nb::capsule owner(data, [](void* q) noexcept { delete[] static_cast<double*>(q); });
    const auto s = p.outputShape();
    const size_t shape[4] = {size_t(s[0]), size_t(s[1]), size_t(s[2]), size_t(s[3])};
    return nb::ndarray<nb::numpy, double>(data, 4, shape, owner);
}

}  // namespace

void bindReference(nb::module_& m) {
    m.def("reference_conv2d", &reference, nb::arg("problem"), nb::arg("x").none(), nb::arg("w").none(), nb::arg("b").none() = nb::none(),
          nb::sig("def reference_conv2d(problem: ConvProblem, x: numpy.typing.ArrayLike, w: numpy.typing.ArrayLike, "
                  "b: numpy.typing.ArrayLike | None = None) -> numpy.typing.NDArray[numpy.float64]"),
          "vkconv's CPU reference for problem, accumulating in double (all CPU threads, without the GIL):\n"
          "what `vkconv sweep` and the C++ tests compare with. Arrays as for conv2d; the shapes must be\n"
          "the problem's.");
    m.def(
        "relative_error",
        [](nb::handle out, nb::handle ref) {
            const HostArray o = importArray(out, "out");
            nb::ndarray<nb::ro, double, nb::c_contig, nb::device::cpu> r;
            if (!nb::try_cast(ref, r))
                throw invalidArgument("ref", nb::cast<std::string>(nb::repr(ref.type())),
                                      "expected a float64 CPU array (reference_conv2d's result)");
            if (o.elements() != r.size())
                throw invalidArgument("out.shape", o.shapeString(), "has another number of elements than ref");
            std::vector<double> refs(static_cast<const double*>(r.data()), static_cast<const double*>(r.data()) + r.size());
            return relativeError(o.data, refs);
        },
        nb::arg("out").none(), nb::arg("ref").none(),
        nb::sig("def relative_error(out: numpy.typing.ArrayLike, ref: numpy.typing.NDArray[numpy.float64]) -> float"),
        "||out - ref|| / ||ref||; infinity if out has any NaN or infinity (NaN never passes).");
}

}  // namespace vkconv::python
