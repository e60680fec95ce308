// `vkconv devices --report`: which paths each device has, under each profile, and (--run) whether
// they give the right answers.
#include "devices_report.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <vector>

#include "commands.hpp"
#include "reference_check.hpp"
#include "vkconv/conv2d.hpp"
#include "vkconv/device_info.hpp"
#include "kernels/common/device_rules.hpp"
#include "vkconv/device_profile.hpp"
#include "vkconv/error.hpp"
#include "vkconv/tensor.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv::cli {

namespace {

struct NamedConv {
    const char* name;
    ConvProblem problem;
};

ConvProblem conv(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r, int64_t s,
                 int64_t stride = 1, int64_t pad = 0, int64_t dilation = 1, int64_t groups = 1,
                 bool bias = true) {
    ConvProblem p;
    p.batch = n, p.inChannels = c, p.height = h, p.width = w, p.outChannels = k;
    p.kernelH = r, p.kernelW = s;
    p.strideH = p.strideW = stride, p.padH = p.padW = pad, p.dilationH = p.dilationW = dilation;
    p.groups = groups, p.bias = bias;
    return p;
}

// Small and varied: each kind of layer once, cheap enough for every path under every profile.
std::vector<NamedConv> reportProblems() {
    return {
        {"3x3_pad1", conv(2, 8, 12, 12, 16, 3, 3, 1, 1)},
        {"1x1_no_bias", conv(1, 32, 8, 8, 24, 1, 1, 1, 0, 1, 1, false)},
        {"alexnet_like_11x11_s4", conv(1, 3, 63, 63, 16, 11, 11, 4, 2)},
        {"depthwise_s2", conv(1, 16, 10, 10, 16, 3, 3, 2, 1, 1, 16)},
        {"grouped_g3", conv(2, 12, 9, 9, 18, 3, 3, 1, 0, 1, 3)},
        {"dilated_d2", conv(1, 4, 17, 15, 8, 3, 3, 1, 2, 2)},
        {"odd_5x3_prime", conv(3, 5, 7, 13, 7, 5, 3, 2, 1)},
        {"tiny_c1_k1", conv(1, 1, 5, 5, 1, 3, 3)},
    };
}

std::vector<float> values(uint64_t seed, size_t count) {
    std::vector<float> v(count);
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (auto& f : v) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        f = float(x >> 40) / float((1u << 24) - 1) * 2.0f - 1.0f;  // [-1, 1]
    }
    return v;
}

std::string shapesOf(const DeviceInfo& d) {
    if (!d.coopMatKhr) return "no VK_KHR_cooperative_matrix";
    std::string s;
    for (const auto& shape : d.coopMatShapes) s += (s.empty() ? "" : ", ") + shape.str();
    return s.empty() ? "VK_KHR_cooperative_matrix, but no shape" : s;
}

std::string yesNo(bool b) { return b ? "yes" : "no"; }

bool hasF32AccShape(const DeviceInfo& d, ScalarType operand) {
    for (const auto& s : d.coopMatShapes)
        if (s.a == operand && s.b == operand && s.c == ScalarType::F32 && s.result == ScalarType::F32) return true;
    return false;
}

struct PathStatus {
    Path path = Path::Fp32;
    std::optional<KernelConfig> config;  // the heuristic's choice for alexnet1, when available
    std::string why;                     // when unavailable, or a caveat
    bool runnable = false;               // --run runs it
};

PathStatus pathStatus(Path path, const DeviceInfo& e, const DeviceInfo& hw, const ConvProblem& alexnet) {
    PathStatus st;
    st.path = path;
    const auto ranked = rankConfigs(path, e, alexnet);
    if (!ranked.empty()) st.config = ranked.front().config;
    st.runnable = st.config.has_value();
    if (path == Path::Fp32) return st;
    const ScalarType operand = ScalarType::F16;
    if (st.config) return st;
    if (!e.coopMatKhr)
        st.why = std::string("no VK_KHR_cooperative_matrix") + (hw.coopMatKhr ? " (the profile removes it)" : "");
    else if (!hasF32AccShape(e, operand))
        st.why = std::string("no ") + toString(operand) + " shape with f32 accumulation" +
                 (hasF32AccShape(hw, operand) ? " (none of the device's is among the profile's)" : "");
    else {
        // Fast's fallback reason names the first configuration refused and why.
        std::string why;
        resolvePath(Precision::Fast, e, alexnet, &why);
        const size_t eg = why.find("(e.g. "), end = why.rfind("); using fp32");
        st.why = "no configuration fits" +
                 (eg != std::string::npos && end != std::string::npos && end > eg ? " " + why.substr(eg, end - eg + 1) : "");
    }
    return st;
}

struct Tally {
    int passed = 0, total = 0;
    std::string firstFailure;
};

Tally runProblems(const Context& context, Path path, bool validation) {
    Tally t;
    for (const auto& [name, p] : reportProblems()) {
        ++t.total;
        std::string failure;
        try {
            const auto ranked = rankConfigs(path, context.device(), p);
            if (ranked.empty()) throw Error(Error::Kind::Unsupported, "no configuration fits");
            ConvOptions options;
            options.config = ranked.front().config;
            const std::vector<float> x = values(2 * t.total, size_t(p.inputElements()));
            const std::vector<float> w = values(2 * t.total + 1, size_t(p.weightElements()));
            const std::vector<float> b = p.bias ? values(99 + t.total, size_t(p.outChannels)) : std::vector<float>{};
            const size_t before = context.validationMessageCount();
            Conv2d c(context, p, w, b, options);
            Tensor in(context, {p.batch, p.inChannels, p.height, p.width});
            const auto s = p.outputShape();
            Tensor out(context, {s[0], s[1], s[2], s[3]});
            in.upload(x);
            out.fill(std::nanf(""));  // an element never written stays NaN and fails
            c.run(in, out);
            const CheckResult check = checkOutput(p, x.data(), w.data(), p.bias ? b.data() : nullptr,
                                                  out.download(), /*all=*/true);
            const double bound = errorBound(c.config().path), elementBound = elementErrorBound(c.config().path);
            if (!(check.relativeError <= bound) || !(check.elementError <= elementBound)) {
                std::ostringstream m;
                m << name << ": relative error " << check.relativeError << " (bound " << bound
                  << "), max element error " << check.elementError << " x RMS (bound " << elementBound << ") ("
                  << c.config().str() << ")";
                failure = m.str();
            } else if (validation && context.validationMessageCount() != before) {
                failure = std::string(name) + ": validation: " + context.lastValidationMessage();
            }
        } catch (const std::exception& e) {
            failure = std::string(name) + ": " + e.what();
        }
        if (failure.empty())
            ++t.passed;
        else if (t.firstFailure.empty())
            t.firstFailure = failure;
    }
    return t;
}

struct SummaryRow {
    std::string device, profile, path, result, note;
};

void row(const char* key, const std::string& value) {
    std::printf("    %-16s %s\n", key, value.c_str());
}

}  // namespace

int printDevicesReport(const ReportOptions& o) {
    const DeviceProfile* only = o.profile.empty() || o.profile == "none" ? nullptr : &DeviceProfile::byName(o.profile);
    std::vector<std::optional<DeviceProfile>> profiles;
    if (o.profile.empty() || o.profile == "none") profiles.push_back(std::nullopt);
    for (const auto& p : DeviceProfile::builtin())
        if (o.profile.empty() || (only && only->name == p.name)) profiles.push_back(p);

    const ConvProblem alexnet = ConvProblem::alexnet1(8);
    std::vector<SummaryRow> summary;
    bool failed = false;
    const std::vector<DeviceInfo> devices = listDevices();
    if (devices.empty()) std::cout << "No Vulkan devices found.\n";
    for (const DeviceInfo& hw : devices) {
        if (o.device >= 0 && uint32_t(o.device) != hw.index) continue;
        std::cout << "Device " << hw.index << ": " << hw.name << " (" << hw.vendorName << ", "
                  << hw.driverName << " " << hw.driverInfo << ")\n";
        for (const auto& profile : profiles) {
            const std::string profileName = profile ? profile->name : "none";
            std::vector<std::string> notes;
            std::optional<Context> context;
            DeviceInfo e = profile ? applyProfile(hw, *profile, &notes) : hw;
            if (o.run) {
                ContextOptions options;
                options.deviceIndex = int(hw.index);
                options.profile = profile;
                options.validation = o.validation;
                context.emplace(options);
                e = context->device();
            }
            std::cout << "  profile " << profileName << ": "
                      << (profile ? profile->description : std::string("the device as it is")) << "\n";
            row("subgroup size", std::to_string(e.subgroupSize) + " (range " + std::to_string(e.minSubgroupSize) +
                                     ".." + std::to_string(e.maxSubgroupSize) + ", size control " +
                                     yesNo(e.subgroupSizeControl) + ")");
            row("limits", std::to_string(e.maxSharedMemoryBytes) + " B shared memory, " +
                              std::to_string(e.maxWorkGroupInvocations) + " invocations, " +
                              std::to_string(e.maxStorageBufferRange) + " B storage buffers, groups " +
                              std::to_string(e.maxWorkGroupCount[0]) + "x" + std::to_string(e.maxWorkGroupCount[1]) +
                              "x" + std::to_string(e.maxWorkGroupCount[2]));
            row("fp16 / bf16", yesNo(e.shaderFloat16 && e.storageBuffer16Bit) + " / " + yesNo(e.shaderBFloat16));
            row("coop. matrix", shapesOf(e));
            if (e.coopMat2Nv)
                row("coop. matrix 2", std::string("VK_NV_cooperative_matrix2 present (flexible dimensions: ") +
                                          yesNo(e.coopMat2Flexible) + ", workgroup scope: " +
                                          yesNo(e.coopMat2Workgroup) + ")");
            for (const auto& n : notes) row("note", n);
            // The cost models' data for this device class: a shipped table, or the analytical
            // fallback (src/kernels/rules/).
            const detail::DeviceRules& rules = detail::deviceRules(e);
            row("cost rules", rules.name + " (" +
                                  (e.profile.empty() ? rules.matchedBy
                                                     : std::string("a profile is another device class: no table")) +
                                  ")");
            std::string why;
            const Path fast = resolvePath(Precision::Fast, e, alexnet, &why);
            row("fast ->", std::string(toString(fast)) + " (" + why + ")");
            std::cout << "    paths, with the configuration alexnet1 N=" << alexnet.batch << " would use"
                      << (o.run ? "; --run: " + std::to_string(reportProblems().size()) + " problems each" : "")
                      << ":\n";
            // bf16 shapes are listed, not run: vkconv has no bf16 kernel.
            if (e.coopMatKhr && hasF32AccShape(e, ScalarType::BF16))
                row("bf16", "the device lists bf16 shapes; vkconv has no bf16 kernel");
            for (Path path : {Path::Fp32, Path::CoopMatF16}) {
                const PathStatus st = pathStatus(path, e, hw, alexnet);
                std::string line = st.config ? st.config->str() : "unavailable: " + st.why;
                if (st.config && !st.why.empty()) line += " (" + st.why + ")";
                std::string result = st.config ? (st.runnable ? "available" : "skipped") : "unavailable";
                if (o.run && st.runnable) {
                    const Tally t = runProblems(*context, path, o.validation);
                    result = std::to_string(t.passed) + "/" + std::to_string(t.total) + " passed";
                    line += "  [" + result + (t.firstFailure.empty() ? "" : "; " + t.firstFailure) + "]";
                    failed |= t.passed != t.total;
                }
                std::printf("      %-13s %s\n", toString(path), line.c_str());
                summary.push_back({"dev" + std::to_string(hw.index) + " sg" + std::to_string(hw.subgroupSize),
                                   profileName, toString(path), result, st.why});
            }
        }
        std::cout << "\n";
    }
    if (o.run && !summary.empty()) {
        std::cout << "Summary (--run: " << reportProblems().size()
                  << " problems per available path, each with the heuristic's configuration of the path)\n";
        std::printf("  %-12s %-15s %-13s %-12s %s\n", "device", "profile", "path", "result", "why");
        for (const auto& r : summary)
            std::printf("  %-12s %-15s %-13s %-12s %.90s\n", r.device.c_str(), r.profile.c_str(), r.path.c_str(),
                        r.result.c_str(), r.note.c_str());
    }
    return failed ? kExitCheckFailed : kExitOk;
}

}  // namespace vkconv::cli
