#include "conv_check.hpp"

#include <cmath>
#include <sstream>

#include "vkconv/conv2d.hpp"
#include "vkconv/reference.hpp"
#include "vkconv/tensor.hpp"

namespace vkconv::test {

std::string precisionName(Precision precision) { return toString(precision); }

std::vector<ConvCase> allCases(const std::vector<NamedProblem>& problems) {
    std::vector<ConvCase> cases;
    for (int device : testDeviceIndices())
        for (Precision precision : {Precision::Fp32, Precision::Fast})
            for (const auto& p : problems) cases.push_back({device, precision, p});
    return cases;
}

void PrintTo(const ConvCase& c, std::ostream* os) {
    *os << caseName(c) << " (" << c.problem.problem.str() << ", seed " << c.problem.seed << ")";
}

std::string caseName(const ConvCase& c) {
    const std::string device = c.device < 0 ? "nodevice" : "dev" + std::to_string(c.device);
    return device + "_" + precisionName(c.precision) + "_" + c.problem.name;
}

CheckResult checkConv(const Context& context, const NamedProblem& named, Precision precision) {
    CheckResult result;
    const ConvProblem& p = named.problem;
    const DeviceInfo& device = context.device();
    if (precision == Precision::Fast && !device.coopMatKhr) {
        result.skipReason = "device '" + device.name +
                            "' has no VK_KHR_cooperative_matrix: Precision::Fast would run the "
                            "fp32 path, which the fp32 instance already covers";
        return result;
    }

    // Distinct streams for input, weights and bias, all derived from the case's seed.
    const std::vector<float> input = randomValues(named.seed * 3 + 0, size_t(p.inputElements()));
    const std::vector<float> weight = randomValues(named.seed * 3 + 1, size_t(p.weightElements()));
    const std::vector<float> bias =
        p.bias ? randomValues(named.seed * 3 + 2, size_t(p.outChannels)) : std::vector<float>{};

    ConvOptions options;
    options.precision = precision;
    Conv2d conv(context, p, weight, bias, options);
    std::ostringstream report;
    report << "problem " << named.name << ": " << p.str() << "\n  seed " << named.seed
           << ", precision " << toString(precision) << ", device '" << device.name << "'"
           << "\n  config " << conv.describe();
    if (precision == Precision::Fast && conv.config().path == Path::Fp32) {
        result.skipReason = "no cooperative-matrix configuration for this problem: " + conv.describe();
        result.report = report.str();
        return result;
    }

    Tensor in(context, {p.batch, p.inChannels, p.height, p.width});
    const auto outShape = p.outputShape();
    Tensor out(context, {outShape.begin(), outShape.end()});
    in.upload(input);
    out.fill(std::nanf(""));  // any element the kernel never writes stays NaN and fails
    conv.run(in, out);
    const std::vector<float> got = out.download();
    const std::vector<double> ref =
        referenceConv2d(p, input.data(), weight.data(), p.bias ? bias.data() : nullptr);

    result.ran = true;
    result.error = relativeError(got.data(), ref);
    result.bound = errorBound(conv.config().path);
    report << "\n  relative error " << result.error << " (bound " << result.bound << ")";
    result.report = report.str();
    return result;
}

}  // namespace vkconv::test
