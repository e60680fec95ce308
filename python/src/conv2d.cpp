// vkconv.conv2d() and vkconv.Conv2d: the convolution itself, on host arrays.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <list>
#include <mutex>
#include <optional>

#include "arrays.hpp"
#include "py_conv2d.hpp"
#include "bindings.hpp"
#include "conv_args.hpp"
#include "py_context.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"
#include "vkconv/tensor.hpp"

namespace vkconv::python {

namespace {

nb::ndarray<nb::numpy> conv2dFunction(nb::handle x, nb::handle w, nb::handle b, nb::handle stride, nb::handle padding,
                                      nb::handle dilation, nb::handle groups, const std::string& precision,
                                      nb::handle context, const std::string& activation, nb::handle residual, float alpha,
                                      float beta, nb::handle clamp, nb::handle negativeSlope, nb::handle outDtype) {
    const Geometry g = parseGeometry(stride, padding, dilation, groups);
    const ConvOptions options = convOptions(precision, std::nullopt, true);
    const Epilogue epilogue = parseEpilogue(activation, alpha, beta, clamp, negativeSlope);
    HostArray xa = importActivation(x, "x", /*deferConversion=*/true);
    const HostArray wa = importArray(w, "w");
    std::optional<HostArray> ba;
    if (!b.is_none()) ba = importArray(b, "b");
    bool unbatched = false;
    ConvProblem p = buildProblem(batchedShape(xa.shape, unbatched), wa.shape, ba ? &ba->shape : nullptr, g);
    setFormats(p, xa, parseOutDtype(outDtype));
    const std::optional<HostArray> z = importResidual(residual, resultShape(p, unbatched));
    p.epilogue = epilogue;  // validated by parseEpilogue
    p.epilogue.residual = z.has_value();
    nb::object ctxObject = context.is_none() ? defaultContext() : nb::borrow(context);
    PyContext* pyContext = nullptr;
    if (!nb::try_cast(ctxObject, pyContext) || !pyContext)
        throw invalidArgument("type(context)", nb::cast<std::string>(nb::str(ctxObject.type().attr("__name__"))),
                              "expected a vkconv.Context or None");
    const Context ctx = pyContext->context;
    // Planned first: a problem the device cannot run is refused (naming the limit) before any
    // host memory is spent on converting x or on the result.
    std::optional<Plan> plan;
    {
        nb::gil_scoped_release release;
        plan.emplace(ctx, p, wa.data, ba ? ba->data : nullptr, options);
    }
    xa.materialize();
    ResultArray out(resultShape(p, unbatched), p.outputFormat);
    {
        nb::gil_scoped_release release;
        plan->run(xa, z ? &*z : nullptr, out);
    }
    return out.release();
}

constexpr const char* kArraysDoc =
    "Arrays: NumPy arrays, or any CPU array with __dlpack__ or the buffer protocol (a torch CPU\n"
    "tensor, after .detach() if it requires grad). x and residual are read in place where they are\n"
    "float32 or float16 in C order (NCHW) or channels-last order (NHWC: a torch.channels_last\n"
    "tensor, or a (N, H, W, C) array transposed to (N, C, H, W)); the device tensors then have that\n"
    "type and layout. bfloat16 and float64 arrays are converted to float32, and arrays of any\n"
    "other layout (sliced, Fortran order) are copied to C order. w and b are read as float32.\n"
    "Refused with ArgumentError: integer, bool and complex dtypes, arrays on a GPU, shapes that do\n"
    "not fit together, and Python lists (numpy.asarray them first). The result is a new NumPy\n"
    "array of shape (N, K, OH, OW), in x's layout (channels-last strides where x has them) and of\n"
    "out_dtype (None: x's type, float16 for float16 x, else float32); a residual of another type\n"
    "or layout is converted to the result's.";

}  // namespace

void bindConv2d(nb::module_& m) {
    m.def("conv2d", &conv2dFunction, nb::arg("x").none(), nb::arg("w").none(), nb::arg("b").none() = nb::none(), nb::arg("stride").none() = 1,
          nb::arg("padding").none() = 0, nb::arg("dilation").none() = 1, nb::arg("groups").none() = 1, nb::arg("precision") = "fast",
          nb::arg("context").none() = nb::none(), nb::kw_only(), nb::arg("activation") = "identity",
          nb::arg("residual").none() = nb::none(), nb::arg("alpha") = 1.0f, nb::arg("beta") = 1.0f,
          nb::arg("clamp").none() = nb::none(), nb::arg("negative_slope").none() = nb::none(),
          nb::arg("out_dtype").none() = nb::none(),
          nb::sig("def conv2d(x: numpy.typing.ArrayLike, w: numpy.typing.ArrayLike, b: numpy.typing.ArrayLike | None = None, "
                  "stride: int | tuple[int, int] = 1, padding: int | tuple[int, int] | str = 0, "
                  "dilation: int | tuple[int, int] = 1, groups: int = 1, precision: str = 'fast', "
                  "context: Context | None = None, *, activation: str = 'identity', "
                  "residual: numpy.typing.ArrayLike | None = None, alpha: float = 1.0, beta: float = 1.0, "
                  "clamp: tuple[float, float] | None = None, negative_slope: float | None = None, "
                  "out_dtype: numpy.typing.DTypeLike | None = None) -> numpy.typing.NDArray[numpy.floating]"),
          (std::string("torch.nn.functional.conv2d on a Vulkan device, with a fused epilogue:\n"
                       "y = activation(alpha * conv2d(x, w) + b + beta * residual), in fp32 before the store.\n\n"
                       "x: (N, C, H, W), or (C, H, W) for one image (the result is then (K, OH, OW)).\n"
                       "w: (K, C/groups, kH, kW). b: (K,) or None.\n"
                       "stride, dilation: an int or a pair (h, w). padding: an int, a pair, 'valid' (0) or\n"
                       "'same' (stride 1, and an even dilation*(k-1); vkconv pads both sides equally).\n"
                       "precision: 'fast' (fp16 operands with fp32 accumulation on devices with cooperative\n"
                       "matrices, relative error under 1e-3; fp32 elsewhere), 'fp32' (under 1e-5) or 'precise'\n"
                       "(under 1e-5 on the matrix units: fp16 splits of each operand; fp32 where it cannot run).\n"
                       "context: a Context; None uses default_context().\n"
                       "activation: 'identity', 'relu', 'relu6', 'clamp' (clamp=(lo, hi)), 'leaky_relu'\n"
                       "(negative_slope, default 0.01), 'sigmoid', 'silu', 'gelu', 'gelu_tanh', 'hardswish'.\n"
                       "residual: an array of the result's shape added (times beta) before the activation.\n"
                       "out_dtype: the result's type, numpy.float32 or numpy.float16 (None: x's).\n\n") +
           kArraysDoc +
           "\n\nEach call plans the convolution again (pipelines come from the Context's cache); for\n"
           "repeated calls use Conv2d, which keeps the weights and pipelines on the device. The GIL is\n"
           "released while the device works.")
              .c_str());

    nb::class_<PyConv2d>(m, "Conv2d",
                         "A planned convolution for repeated calls: the weights and bias are packed on the device\n"
                         "once, and each input shape is planned (configuration, pipelines, device tensors) on\n"
                         "first use; the plans of the last 4 input shapes are kept. Calling it from several\n"
                         "threads is safe (calls take turns); the GIL is released while the device works.")
        .def("__init__",
             [](PyConv2d* self, const PyContext& context, nb::handle w, nb::handle b, nb::handle stride,
                nb::handle padding, nb::handle dilation, nb::handle groups, const std::string& precision,
                std::optional<KernelConfig> config, bool useTuningCache,
                std::optional<std::vector<int64_t>> inputShape, const std::string& activation, float alpha,
                float beta, nb::handle clamp, nb::handle negativeSlope) {
                 const Geometry g = parseGeometry(stride, padding, dilation, groups);
                 ConvOptions options = convOptions(precision, std::move(config), useTuningCache);
                 const Epilogue epilogue = parseEpilogue(activation, alpha, beta, clamp, negativeSlope);
                 const HostArray wa = importArray(w, "w");
                 std::optional<HostArray> ba;
                 if (!b.is_none()) ba = importArray(b, "b");
                 new (self) PyConv2d(context, wa, ba ? &*ba : nullptr, g, std::move(options), epilogue);
                 if (inputShape) {
                     try {
                         self->planFor(*inputShape);
                     } catch (...) {
                         self->~PyConv2d();
                         throw;
                     }
                 }
             },
             nb::arg("context"), nb::arg("w").none(), nb::arg("b").none() = nb::none(), nb::arg("stride").none() = 1,
             nb::arg("padding").none() = 0, nb::arg("dilation").none() = 1, nb::arg("groups").none() = 1, nb::arg("precision") = "fast",
             nb::arg("config") = nb::none(), nb::arg("use_tuning_cache") = true, nb::arg("input_shape") = nb::none(),
             nb::kw_only(), nb::arg("activation") = "identity", nb::arg("alpha") = 1.0f, nb::arg("beta") = 1.0f,
             nb::arg("clamp").none() = nb::none(), nb::arg("negative_slope").none() = nb::none(),
             nb::sig("def __init__(self, context: Context, w: numpy.typing.ArrayLike, b: numpy.typing.ArrayLike | None = None, "
                     "stride: int | tuple[int, int] = 1, padding: int | tuple[int, int] | str = 0, "
                     "dilation: int | tuple[int, int] = 1, groups: int = 1, precision: str = 'fast', "
                     "config: KernelConfig | None = None, use_tuning_cache: bool = True, "
                     "input_shape: collections.abc.Sequence[int] | None = None, *, activation: str = 'identity', "
                     "alpha: float = 1.0, beta: float = 1.0, clamp: tuple[float, float] | None = None, "
                     "negative_slope: float | None = None) -> None"),
             (std::string("The arguments are conv2d's. w and b are copied; later changes to them have no effect.\n"
                          "config: run exactly this KernelConfig (ArgumentError/Error if it cannot run the\n"
                          "problem). use_tuning_cache: without a config, use the configuration `vkconv sweep`\n"
                          "recorded for this device and problem, if any, else the heuristic's.\n"
                          "input_shape: plan for this input shape now (else on the first call).\n"
                          "activation, alpha, beta, clamp, negative_slope: the fused epilogue (conv2d's); the\n"
                          "residual is passed to each call.\n\n") +
              kArraysDoc)
                 .c_str())
        .def("__call__",
             [](PyConv2d& c, nb::handle x, nb::handle residual, nb::handle outDtype) -> nb::object {
                 if (nb::isinstance<Tensor>(x)) return callOnDeviceTensors(c, x, residual, outDtype);
                 return nb::cast(c.call(x, residual, outDtype));
             },
             nb::arg("x").none(), nb::arg("residual").none() = nb::none(),
             nb::kw_only(), nb::arg("out_dtype").none() = nb::none(),
             nb::sig("def __call__(self, x: numpy.typing.ArrayLike, residual: numpy.typing.ArrayLike | None = None, *, "
                     "out_dtype: numpy.typing.DTypeLike | None = None) -> numpy.typing.NDArray[numpy.floating] | Tensor"),
             "conv2d(x), with the epilogue (and residual, an array of the result's shape, if given):\n"
             "copies x to the device in its own type and layout, runs, copies the result back into a new\n"
             "array in x's layout and of out_dtype (None: x's type). Each input shape, type and layout is\n"
             "planned once. On a vkconv.Tensor x (and residual) it runs on the device alone and returns a\n"
             "new vkconv.Tensor.")
        .def("time", &PyConv2d::time, nb::arg("x").none(), nb::arg("warmup") = 3, nb::arg("iterations") = 20,
             nb::arg("warmup_ms") = 500.0,
             nb::sig("def time(self, x: numpy.typing.ArrayLike, warmup: int = 3, iterations: int = 20, "
                     "warmup_ms: float = 500.0) -> list[float]"),
             "GPU time in milliseconds of each of `iterations` runs on x (timestamp queries), after the\n"
             "kernel has run back to back for warmup_ms (a GPU idle during host work runs at low clocks)\n"
             "and then `warmup` untimed runs. The copies of x and of the result are not included: time a\n"
             "call for those.")
        .def("describe",
             [](PyConv2d& c, std::optional<std::vector<int64_t>> inputShape) {
                 return c.withPlan(inputShape, [](Plan& p) { return p.conv.describe(); });
             },
             nb::arg("input_shape") = nb::none(),
             "The path and configuration that run, and why (fallbacks included), for input_shape or,\n"
             "without it, the last input.")
        .def(
            "problem",
            [](PyConv2d& c, std::optional<std::vector<int64_t>> inputShape) {
                return c.withPlan(inputShape, [](Plan& p) { return p.conv.problem(); });
            },
            nb::arg("input_shape") = nb::none(), "The ConvProblem for input_shape, or for the last input.")
        .def(
            "config",
            [](PyConv2d& c, std::optional<std::vector<int64_t>> inputShape) {
                return c.withPlan(inputShape, [](Plan& p) { return p.conv.config(); });
            },
            nb::arg("input_shape") = nb::none(), "The KernelConfig that runs for input_shape, or for the last input.")
        .def_prop_ro("context", [](const PyConv2d& c) { return c.context(); })
        .def_prop_ro("planned_shapes", &PyConv2d::plans, "How many input shapes are planned now (at most 4).");
}

}  // namespace vkconv::python
