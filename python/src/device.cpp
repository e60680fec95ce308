// vkconv.Tensor (a tensor in device memory) and vkconv.Sequence: convolutions on device tensors,
// with no host copies between them, recorded into one submission.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "py_conv2d.hpp"
#include "vkconv/sequence.hpp"

namespace vkconv::python {

namespace {

Tensor tensorFromArray(const PyContext& ctx, nb::handle array) {
    HostArray a = importActivation(array, "array");
    if (a.shape.size() != 4) throw invalidArgument("array.shape", a.shapeString(), "a device tensor is (N, C, H, W)");
    Tensor t(ctx.context, a.shape, {a.dtype, a.layout});
    nb::gil_scoped_release release;
    uploadActivation(t, a);
    return t;
}

Layout parseLayout(const std::string& layout) { return layoutFromString(layout, "layout"); }

// Device tensors x (and residual) -> a new device tensor (or `out`), on the device alone.
Tensor callOnDevice(PyConv2d& conv, const Tensor& x, const Tensor* residual, Tensor* out, nb::handle outDtype) {
    const DataType outType = out ? out->format().type : parseOutDtype(outDtype).value_or(x.format().type);
    nb::gil_scoped_release release;
    std::shared_ptr<Plan> plan = conv.planForTensors(x, outType, residual != nullptr);
    const ConvProblem& p = plan->conv.problem();
    Tensor result = out ? *out : Tensor(conv.context().context, toVector(p.outputShape()), p.outputFormat);
    if (residual)
        plan->conv.run(x, result, *residual);
    else
        plan->conv.run(x, result);
    return result;
}

// A Sequence and the plans (Conv2ds) it recorded, which it keeps.
struct PySequence {
    Sequence sequence;
    std::vector<std::shared_ptr<Plan>> plans;
};

}  // namespace

nb::object callOnDeviceTensors(PyConv2d& conv, nb::handle x, nb::handle residual, nb::handle outDtype) {
    const Tensor& xt = nb::cast<const Tensor&>(x);
    std::optional<Tensor> z;
    if (!residual.is_none()) {
        if (!nb::isinstance<Tensor>(residual))
            throw invalidArgument("type(residual)", nb::cast<std::string>(nb::str(residual.type().attr("__name__"))),
                                  "x is a vkconv.Tensor: the residual is one too");
        z = nb::cast<Tensor>(residual);
    }
    return nb::cast(callOnDevice(conv, xt, z ? &*z : nullptr, nullptr, outDtype));
}

void bindDevice(nb::module_& m) {
    nb::class_<Tensor>(m, "Tensor",
                       "A tensor in device memory, (N, C, H, W) logically, float32 or float16, NCHW or NHWC.\n"
                       "Conv2d called on one runs on the device and returns another, with no host copies;\n"
                       "a Sequence records convolutions of them into one submission.")
        .def_static("from_array", &tensorFromArray, nb::arg("context"), nb::arg("array"),
                    "A device tensor holding the array: its type (float16 stays float16; float64 and bfloat16\n"
                    "become float32) and its layout (channels-last strides, a torch.channels_last tensor's: NHWC).")
        .def_static(
            "empty",
            [](const PyContext& ctx, std::vector<int64_t> shape, nb::handle dtype, const std::string& layout) {
                const DataType type = parseOutDtype(dtype).value_or(DataType::F32);
                return Tensor(ctx.context, std::move(shape), {type, parseLayout(layout)});
            },
            nb::arg("context"), nb::arg("shape"), nb::arg("dtype").none() = nb::none(), nb::arg("layout") = "nchw",
            "An uninitialised device tensor of logical shape (N, C, H, W); dtype float32 (default) or\n"
            "float16, layout 'nchw' or 'nhwc'.")
        .def(
            "numpy",
            [](const Tensor& t) {
                ResultArray out(t.shape(), t.format());
                {
                    nb::gil_scoped_release release;
                    out.download(t);
                }
                return out.release();
            },
            "A new NumPy array of the tensor's type, (N, C, H, W) with channels-last strides for NHWC.")
        .def(
            "upload",
            [](Tensor& t, nb::handle array) {
                HostArray a = importActivation(array, "array");
                if (a.shape != t.shape())
                    throw invalidArgument("array.shape", a.shapeString(), "expected the tensor's " + shapeString(t.shape()));
                nb::gil_scoped_release release;
                uploadActivation(t, a);
            },
            nb::arg("array"), "Copies the array (any type and layout: converted) into the tensor.")
        .def_prop_ro("shape", [](const Tensor& t) { return t.shape(); })
        .def_prop_ro("format", [](const Tensor& t) { return t.format(); })
        .def("__repr__", [](const Tensor& t) {
            return "<vkconv.Tensor " + shapeString(t.shape()) + " " + t.format().str() + ">";
        });

    m.def(
        "run_on_device",
        [](PyConv2d& conv, const Tensor& x, std::optional<Tensor> residual, std::optional<Tensor> out,
           nb::handle outDtype) {
            return callOnDevice(conv, x, residual ? &*residual : nullptr, out ? &*out : nullptr, outDtype);
        },
        nb::arg("conv"), nb::arg("x"), nb::arg("residual").none() = nb::none(), nb::arg("out").none() = nb::none(),
        nb::arg("out_dtype").none() = nb::none(),
        "conv on device tensors: conv(x) (+ residual) into `out`, or a new tensor of x's layout and\n"
        "out_dtype (default x's type); Conv2d.__call__ does this for a vkconv.Tensor x.");

    nb::class_<PySequence>(m, "Sequence",
                           "Convolutions on device tensors recorded into one command buffer: a barrier only where\n"
                           "one reads or writes what an earlier one touched; submitted at once, waited for, and\n"
                           "submitted again without recording anew.")
        .def("__init__", [](PySequence* self, const PyContext& ctx) { new (self) PySequence{Sequence(ctx.context), {}}; },
             nb::arg("context"))
        .def(
            "record",
            [](PySequence& s, PyConv2d& conv, const Tensor& x, Tensor& y, std::optional<Tensor> residual) -> PySequence& {
                nb::gil_scoped_release release;
                std::shared_ptr<Plan> plan = conv.planForTensors(x, y.format().type, residual.has_value());
                if (residual)
                    s.sequence.record(plan->conv, x, y, *residual);
                else
                    s.sequence.record(plan->conv, x, y);
                s.plans.push_back(std::move(plan));
                return s;
            },
            nb::arg("conv"), nb::arg("x"), nb::arg("y"), nb::arg("residual").none() = nb::none(), nb::rv_policy::reference,
            "Appends y = conv(x) (+ residual, where conv's epilogue adds one); returns the Sequence.")
        .def("submit", [](PySequence& s) { nb::gil_scoped_release r; s.sequence.submit(); }, "Submits; returns at once.")
        .def("wait", [](PySequence& s) { nb::gil_scoped_release r; s.sequence.wait(); },
             "Waits for the last submission; a GPU failure raises vkconv.Error here.")
        .def("eval", [](PySequence& s) { nb::gil_scoped_release r; s.sequence.eval(); }, "submit() and wait().")
        .def_prop_ro("gpu_ms", [](const PySequence& s) { return s.sequence.gpuMs(); },
                     "The last submission's GPU time in ms (NaN before one was waited for).")
        .def_prop_ro("barriers", [](const PySequence& s) { return s.sequence.barriers(); })
        .def("__len__", [](const PySequence& s) { return s.sequence.size(); });
}

}  // namespace vkconv::python
