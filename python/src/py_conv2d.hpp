// The planned convolution behind vkconv.Conv2d and the argument helpers conv2d() shares with it:
// arrays in (x, residual) and their formats, a Plan per input shape and format (its Conv2d and
// device tensors), and PyConv2d, which keeps the weights and the plans of the last input shapes.
#pragma once

#include <nanobind/nanobind.h>

#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "conv_args.hpp"
#include "py_context.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"
#include "vkconv/tensor.hpp"

namespace vkconv::python {

inline std::vector<int64_t> toVector(const std::array<int64_t, 4>& a) { return {a.begin(), a.end()}; }

// x's shape as (N, C, H, W); a 3-D (C, H, W) input is one unbatched image, as in PyTorch.
inline std::vector<int64_t> batchedShape(const std::vector<int64_t>& x, bool& unbatched) {
    unbatched = x.size() == 3;
    if (unbatched) return {1, x[0], x[1], x[2]};
    if (x.size() != 4)
        throw invalidArgument("x.shape", shapeString(x), "expected 4 dimensions (N, C, H, W) or 3 (C, H, W)");
    return x;
}

inline std::vector<int64_t> resultShape(const ConvProblem& p, bool unbatched) {
    std::vector<int64_t> s = toVector(p.outputShape());
    if (unbatched) s.erase(s.begin());
    return s;
}

inline ConvOptions convOptions(const std::string& precision, std::optional<KernelConfig> config, bool useTuningCache) {
    ConvOptions o;
    o.precision = parsePrecision(precision);
    o.config = std::move(config);
    o.useTuningCache = useTuningCache;
    return o;
}

// The residual array of a call, checked against the result's shape (the caller's, unbatched
// where x is): ArgumentError naming it otherwise. Its type and layout may be any: it is
// converted to the output's where they differ.
inline std::optional<HostArray> importResidual(nb::handle residual, const std::vector<int64_t>& resultShape) {
    if (residual.is_none()) return std::nullopt;
    HostArray z = importActivation(residual, "residual");
    if (z.shape != resultShape)
        throw invalidArgument("residual.shape", z.shapeString(), "expected the result's shape " + shapeString(resultShape));
    return z;
}

// out_dtype: None (x's type), or what numpy.dtype() makes float32 or float16 of.
inline std::optional<DataType> parseOutDtype(nb::handle outDtype) {
    if (outDtype.is_none()) return std::nullopt;
    std::string name;
    try {
        name = nb::cast<std::string>(nb::module_::import_("numpy").attr("dtype")(outDtype).attr("name"));
    } catch (const nb::python_error&) {
        name = nb::cast<std::string>(nb::str(outDtype));
    }
    if (name == "float32") return DataType::F32;
    if (name == "float16") return DataType::F16;
    throw invalidArgument("out_dtype", name, "expected float32 or float16 (or None: x's)");
}

// The tensor formats of a call: the input's as x holds it, the output's in x's layout and
// out_dtype (else x's type).
inline void setFormats(ConvProblem& p, const HostArray& x, std::optional<DataType> outDtype) {
    p.inputFormat = {x.dtype, x.layout};
    // NumPy has no bfloat16: a bfloat16 x gives a float32 result unless out_dtype says float16.
    p.outputFormat = {outDtype.value_or(x.dtype == DataType::BF16 ? DataType::F32 : x.dtype), x.layout};
}

// A planned convolution for one input shape, formats and epilogue, with the device tensors it
// reads and writes.
struct Plan {
    std::vector<int64_t> inputShape;
    TensorFormat inputFormat, outputFormat;
    bool residual;
    Conv2d conv;
    Tensor input, output;
    std::optional<Tensor> residualTensor;

    Plan(const Context& context, const ConvProblem& p, const float* weight, const float* bias, const ConvOptions& o)
        : inputShape(toVector(p.inputShape())),
          inputFormat(p.inputFormat),
          outputFormat(p.outputFormat),
          residual(p.epilogue.residual),
          conv(context, p, weight, bias, o),
          input(context, inputShape, p.inputFormat),
          output(context, toVector(p.outputShape()), p.outputFormat) {
        if (residual) residualTensor.emplace(context, toVector(p.outputShape()), p.outputFormat);
    }

    bool serves(const ConvProblem& p) const {
        return inputShape == toVector(p.inputShape()) && inputFormat == p.inputFormat && outputFormat == p.outputFormat &&
               residual == p.epilogue.residual;
    }

    // x (and the residual z, where the epilogue has one) -> output, into `out`. Without the GIL.
    void run(const HostArray& x, const HostArray* z, ResultArray& out) {
        uploadActivation(input, x);
        if (residualTensor) {
            uploadActivation(*residualTensor, *z);
            conv.run(input, output, *residualTensor);
        } else {
            conv.run(input, output);
        }
        out.download(output);
    }
};

// What vkconv.Conv2d is: the weights (kept on the host too, so that a new input shape can be
// planned), the arguments, and the plans of the last few input shapes.
class PyConv2d {
public:
    static constexpr size_t kMaxPlans = 4;

    PyConv2d(PyContext context, const HostArray& w, const HostArray* b, Geometry geometry, ConvOptions options,
             Epilogue epilogue)
        : context_(std::move(context)),
          weight_(w.data, w.data + w.elements()),
          weightShape_(w.shape),
          hasBias_(b != nullptr),
          geometry_(std::move(geometry)),
          options_(std::move(options)),
          epilogue_(epilogue) {
        if (b) bias_.assign(b->data, b->data + b->elements());
        checkWeightShapes(weightShape_, b ? &b->shape : nullptr, geometry_.groups);
    }

    // The problem of input shape x, with this Conv2d's epilogue and no residual (a call with one
    // sets epilogue.residual).
    ConvProblem problemFor(const std::vector<int64_t>& x) const {
        const std::vector<int64_t> b{weightShape_[0]};
        ConvProblem p = buildProblem(x, weightShape_, hasBias_ ? &b : nullptr, geometry_);
        p.epilogue = epilogue_;
        return p;
    }

    nb::ndarray<nb::numpy> call(nb::handle x, nb::handle residual, nb::handle outDtype) {
        HostArray a = importActivation(x, "x", /*deferConversion=*/true);
        bool unbatched = false;
        ConvProblem p = problemFor(batchedShape(a.shape, unbatched));
        setFormats(p, a, parseOutDtype(outDtype));
        const std::optional<HostArray> z = importResidual(residual, resultShape(p, unbatched));
        p.epilogue.residual = z.has_value();
        // Planned first: a problem the device cannot run is refused (naming the limit) before
        // any host memory is spent on converting x or on the result.
        {
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(mutex_);
            plan(p);
        }
        a.materialize();
        ResultArray out(resultShape(p, unbatched), p.outputFormat);
        {
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(mutex_);
            plan(p).run(a, z ? &*z : nullptr, out);
        }
        return out.release();
    }

    std::vector<double> time(nb::handle x, int warmup, int iterations, double warmupMs) {
        if (warmup < 0) throw invalidArgument("warmup", warmup, "must be >= 0");
        if (iterations < 1) throw invalidArgument("iterations", iterations, "must be >= 1");
        if (!(warmupMs >= 0)) throw invalidArgument("warmup_ms", warmupMs, "must be >= 0");
        HostArray a = importActivation(x, "x", /*deferConversion=*/true);
        bool unbatched = false;
        ConvProblem p = problemFor(batchedShape(a.shape, unbatched));
        setFormats(p, a, std::nullopt);
        a.materialize();
        nb::gil_scoped_release release;
        std::lock_guard<std::mutex> lock(mutex_);
        Plan& pl = plan(p);
        uploadActivation(pl.input, a);
        TimingOptions options;
        options.warmupMs = warmupMs;
        options.warmupRuns = warmup;
        options.iterations = iterations;
        return pl.conv.time(pl.input, pl.output, options);  // a plan without a residual (time(x))
    }

    // The plan for input_shape (planned now if needed), else the last one used.
    template <typename F>
    auto withPlan(const std::optional<std::vector<int64_t>>& inputShape, F f) {
        std::optional<ConvProblem> p;
        if (inputShape) {
            bool unbatched = false;
            p = problemFor(batchedShape(*inputShape, unbatched));
        }
        nb::gil_scoped_release release;
        std::lock_guard<std::mutex> lock(mutex_);
        if (!p && plans_.empty())
            throw invalidArgument("input_shape", "None",
                                  "this Conv2d has not been planned for any input yet: pass input_shape, or call it "
                                  "on an input first");
        return f(p ? plan(*p) : *plans_.front());
    }

    void planFor(const std::vector<int64_t>& inputShape) {
        withPlan(inputShape, [](Plan&) { return 0; });
    }

    // The plan for device tensors: x's shape and format, the output's type (x's layout), the
    // residual where given. Without the GIL.
    std::shared_ptr<Plan> planForTensors(const Tensor& x, DataType outType, bool residual) {
        ConvProblem p = problemFor(x.shape());
        p.inputFormat = x.format();
        p.outputFormat = {outType, x.format().layout};
        p.epilogue.residual = residual;
        std::lock_guard<std::mutex> lock(mutex_);
        return sharedPlan(p);
    }

    const PyContext& context() const { return context_; }
    size_t plans() {
        std::lock_guard<std::mutex> lock(mutex_);
        return plans_.size();
    }

private:
    // Under mutex_, without the GIL. Most recently used first; at most kMaxPlans kept.
    Plan& plan(const ConvProblem& p) { return *sharedPlan(p); }

    std::shared_ptr<Plan> sharedPlan(const ConvProblem& p) {
        for (auto it = plans_.begin(); it != plans_.end(); ++it) {
            if ((*it)->serves(p)) {
                plans_.splice(plans_.begin(), plans_, it);
                return plans_.front();
            }
        }
        plans_.push_front(std::make_shared<Plan>(context_.context, p, weight_.data(), hasBias_ ? bias_.data() : nullptr, options_));
        if (plans_.size() > kMaxPlans) plans_.pop_back();
        return plans_.front();
    }

    PyContext context_;
    std::vector<float> weight_, bias_;
    std::vector<int64_t> weightShape_;
    bool hasBias_;
    Geometry geometry_;
    ConvOptions options_;
    Epilogue epilogue_;  // without the residual, which each call decides
    std::list<std::shared_ptr<Plan>> plans_;  // shared: a Sequence that recorded one keeps it
    std::mutex mutex_;
};


// Conv2d.__call__ on a vkconv.Tensor x (device.cpp): the result is a device tensor.
nb::object callOnDeviceTensors(PyConv2d& conv, nb::handle x, nb::handle residual, nb::handle outDtype);

}  // namespace vkconv::python
