#include "portability_cases.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "conv_check.hpp"  // the guard region after the output, bestCandidate
#include "select/config_select.hpp"  // src/: the candidate configurations and the heuristic's ranking
#include "test_devices.hpp"
#include "vkconv/error.hpp"
#include "vkconv/reference.hpp"
#include "vkconv/tensor.hpp"

namespace vkconv::test {

std::vector<NamedProblem> portabilityProblems() {
    // Chosen to cover each kind of edge case once (tiny sizes, 1x1 and 11x11 kernels, stride
    // beyond the kernel, large padding, dilation, groups and depthwise, prime sizes, partial GEMM
    // tiles, no bias) at a cost that lets the subset run under every profile and subgroup size.
    static const char* const names[] = {
        "batch1_3x3", "c1_k1_n1", "k1_c6", "input_1x1_kernel_3x3_pad1", "input_1xW", "input_Hx1",
        "output_1x1_by_stride", "k1x1_c16_k32", "k1x1_stride2", "k11x11_s4_p2", "k11x11_pad11",
        "k11x11_no_bias", "stride5x4_kernel3", "pad_larger_than_kernel", "dilation_2x3_nonsquare",
        "dilation2_stride2", "groups4_pad1", "depthwise_c32_stride2", "depthwise_multiplier2",
        "grouped_kg5_cg2", "prime_13x7_c5_k11", "kernel_2x5_stride_1x3", "no_bias_grouped",
        "gemm_m129_n65_k17", "gemm_m_crosses_images", "gemm_n97_k99", "alexnet1_227_n1_no_pad",
    };
    std::vector<NamedProblem> out;
    const auto edges = edgeCaseProblems();
    for (const char* name : names)
        for (const auto& p : edges)
            if (p.name == name) out.push_back(p);
    return out;  // a name edgeCaseProblems() no longer has is caught by the Subset test
}

std::string PathCase::label() const {
    if (nvCoopMat2) return "nv-coopmat2";
    std::ostringstream s;
    s << toString(path);
    if (mmaM) s << " " << mmaM << "x" << mmaN << "x" << mmaK;
    if (subgroupSize) s << " sg" << subgroupSize;
    return s.str();
}

void PrintTo(const PathCase& c, std::ostream* os) { *os << c.name << " (" << c.label() << ")"; }
void PrintTo(const ProfileCase& c, std::ostream* os) { *os << c.name; }

namespace {

bool isF32Acc(const CoopMatShape& s, ScalarType operand) {
    return s.a == operand && s.b == operand && s.c == ScalarType::F32 && s.result == ScalarType::F32;
}

// The subgroup sizes a cooperative-matrix kernel can be built for (canImplement's rule): every
// power of two in the range where the size can be required, else the device's only size.
std::vector<uint32_t> subgroupSizes(const DeviceInfo& d) {
    if (!(d.subgroupSizeControl && d.computeFullSubgroups) || d.minSubgroupSize == 0) return {d.subgroupSize};
    std::vector<uint32_t> out;
    for (uint32_t s = d.minSubgroupSize; s <= d.maxSubgroupSize; s *= 2) out.push_back(s);
    return out;
}

std::string deviceTag(int device) { return device < 0 ? "nodevice" : "dev" + std::to_string(device); }

void addCoopMatCases(std::vector<PathCase>& out, int index, const DeviceInfo& d, Path path) {
    const ScalarType operand = ScalarType::F16;
    const std::string tag = deviceTag(index) + "_coopmat_f16";
    PathCase unavailable;
    unavailable.device = index;
    unavailable.path = path;
    unavailable.name = tag;
    if (!d.coopMatKhr) {
        unavailable.skipReason = "device has no VK_KHR_cooperative_matrix (the extension is absent or its "
                                 "cooperativeMatrix feature is off; subgroup size " +
                                 std::to_string(d.subgroupSize) + ")";
        out.push_back(unavailable);
        return;
    }
    std::vector<const CoopMatShape*> shapes;
    for (const auto& s : d.coopMatShapes)
        if (isF32Acc(s, operand)) shapes.push_back(&s);
    if (shapes.empty()) {
        unavailable.skipReason = std::string("device lists no ") + toString(operand) + "*" +
                                 toString(operand) + "+f32->f32 cooperative-matrix shape";
        out.push_back(unavailable);
        return;
    }
    std::string lacks;
    if (!(d.shaderFloat16 && d.storageBuffer16Bit)) lacks = "device lacks shaderFloat16 or storageBuffer16BitAccess";
    for (const CoopMatShape* s : shapes) {
        const std::string shape = std::to_string(s->m) + "x" + std::to_string(s->n) + "x" + std::to_string(s->k);
        for (uint32_t sg : lacks.empty() ? subgroupSizes(d) : std::vector<uint32_t>{0}) {
            PathCase c;
            c.device = index;
            c.path = path;
            c.mmaM = s->m, c.mmaN = s->n, c.mmaK = s->k;
            c.subgroupSize = sg;
            c.skipReason = lacks;
            c.name = tag + "_" + shape + (sg ? "_sg" + std::to_string(sg) : "");
            out.push_back(c);
        }
    }
}

}  // namespace

std::vector<PathCase> allPathCases() {
    std::vector<PathCase> out;
    for (int index : testDeviceIndices()) {
        PathCase fp32;
        fp32.device = index;
        fp32.name = deviceTag(index) + "_fp32";
        out.push_back(fp32);
        if (index < 0) continue;
        const DeviceInfo& d = testDevices()[size_t(index)];
        addCoopMatCases(out, index, d, Path::CoopMatF16);
        if (d.coopMat2Nv) {  // reported, so the summary shows it was seen and not run
            PathCase nv;
            nv.device = index;
            nv.nvCoopMat2 = true;
            nv.name = deviceTag(index) + "_nv_coopmat2";
            nv.skipReason = "device has VK_NV_cooperative_matrix2, but vkconv has no path for it "
                            "(a workgroup-scope kernel was 2.6x slower on the H200)";
            out.push_back(nv);
        }
    }
    return out;
}

std::vector<ProfileCase> allProfileCases() {
    std::vector<ProfileCase> out;
    // The device as it is (Fast's own choice), the tight test profile, then the shipped ones.
    std::vector<std::string> names{"none", tightCoopMatProfile().name};
    for (const auto& p : DeviceProfile::builtin()) names.push_back(p.name);
    for (int index : testDeviceIndices())
        for (const auto& name : names) {
            std::string id = name;
            for (char& ch : id)
                if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
            out.push_back({index, name, deviceTag(index) + "_profile_" + id});
        }
    return out;
}

const DeviceProfile& tightCoopMatProfile() {
    static const DeviceProfile profile = [] {
        DeviceProfile p;
        p.name = "tight-coopmat";
        p.description = "16 KB shared memory, 128 invocations, cooperative matrices kept";
        p.maxSharedMemoryBytes = 16384;
        p.maxWorkGroupInvocations = 128;
        return p;
    }();
    return profile;
}

DeviceProfile profileFor(const ProfileCase& c) {
    if (c.profile == "none") return {};
    if (c.profile == tightCoopMatProfile().name) return tightCoopMatProfile();
    return DeviceProfile::byName(c.profile);
}

bool portabilityValidation(std::string* why) {
    const char* env = std::getenv("VKCONV_PORTABILITY_VALIDATION");
    const std::string mode = env ? env : "";
    auto say = [&](const std::string& s) {
        if (why) *why = s;
    };
    if (mode == "0" || mode == "false") {
        say("off (VKCONV_PORTABILITY_VALIDATION=0)");
        return false;
    }
    if (validationLayerInstalled()) {
        say("on: VK_LAYER_KHRONOS_validation, core + synchronization; any message fails");
        return true;
    }
    if (mode == "1" || inCi()) {
        // Required but missing: on, so that creating the Context fails and says so.
        say("required (" + std::string(mode == "1" ? "VKCONV_PORTABILITY_VALIDATION=1" : "CI") +
            ") but VK_LAYER_KHRONOS_validation is not installed");
        return true;
    }
    say("off: VK_LAYER_KHRONOS_validation is not installed (Debian: vulkan-validationlayers)");
    return false;
}

PortabilityContext portabilityContext(int device, const std::optional<DeviceProfile>& profile) {
    PortabilityContext out;
    out.validation = portabilityValidation();
    SharedContext shared = sharedContext(device, out.validation, profile);
    out.context = shared.context;
    out.creationMessages = shared.creationMessages;
    out.creationMessage = shared.creationMessage;
    return out;
}

namespace {

struct Inputs {
    std::vector<float> input, weight, bias;
    std::vector<double> reference;
};

// Inputs and reference per problem, computed once per process: every device, path, profile
// and subgroup size compares with the same double-precision answer.
const Inputs& inputsFor(const NamedProblem& named) {
    static std::mutex mutex;
    static auto* cache = new std::map<std::string, std::unique_ptr<Inputs>>();  // lives to exit
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = (*cache)[named.name + "#" + std::to_string(named.seed)];
    if (!slot) {
        const ConvProblem& p = named.problem;
        auto in = std::make_unique<Inputs>();
        in->input = randomValues(named.seed * 3 + 0, size_t(p.inputElements()));
        in->weight = randomValues(named.seed * 3 + 1, size_t(p.weightElements()));
        if (p.bias) in->bias = randomValues(named.seed * 3 + 2, size_t(p.outChannels));
        in->reference = referenceConv2d(p, in->input.data(), in->weight.data(),
                                        p.bias ? in->bias.data() : nullptr);
        slot = std::move(in);
    }
    return *slot;
}

}  // namespace

ProblemRun runProblem(const Context& context, const NamedProblem& named, const ConvOptions& options,
                      bool planOnly) {
    ProblemRun run;
    const ConvProblem& p = named.problem;
    const Inputs& data = inputsFor(named);
    const size_t before = context.validationMessageCount();
    std::ostringstream report;
    report << "problem " << named.name << ": " << p.str() << "\n  seed " << named.seed << ", device '"
           << context.device().name << "', precision " << toString(options.precision);
    {
        Conv2d conv(context, p, data.weight, data.bias, options);
        run.config = conv.config();
        run.description = conv.describe();
        report << "\n  config " << run.description;
        if (!planOnly) {
            Tensor in(context, {p.batch, p.inChannels, p.height, p.width});
            const auto outShape = p.outputShape();
            Tensor out(context, {outShape.begin(), outShape.end()});
            in.upload(data.input);
            poisonWithGuard(context, out);
            conv.run(in, out);
            const std::vector<float> got = out.download();
            run.ran = true;
            run.error = relativeError(got.data(), data.reference);
            run.bound = errorBound(run.config.path);
            run.elementError = maxElementError(got.data(), data.reference);
            run.elementBound = elementErrorBound(run.config.path);
            run.guardWordsChanged = guardWordsChanged(context, out);
            report << "\n  relative error " << run.error << " (bound " << run.bound << "), max element error "
                   << run.elementError << " x RMS (bound " << run.elementBound << ")";
            if (run.guardWordsChanged) report << "\n  " << run.guardWordsChanged << " word(s) after the output changed";
        }
    }  // destroyed before counting: destruction must not upset the layer either
    run.validationMessages = context.validationMessageCount() - before;
    if (run.validationMessages) {
        run.lastValidationMessage = context.lastValidationMessage();
        report << "\n  " << run.validationMessages << " validation message(s); last: " << run.lastValidationMessage;
    }
    run.report = report.str();
    return run;
}

std::optional<KernelConfig> configForPath(const PathCase& path, const DeviceInfo& device,
                                          const ConvProblem& problem, std::string* whyNot) {
    if (path.path == Path::Fp32) return detail::selectConfig(Path::Fp32, device, problem).config;
    const std::optional<KernelConfig> best = bestCandidate(path.path, device, problem, [&](const KernelConfig& c) {
        const CoopMatTiling* t = c.coopMat();
        return t && t->mmaM == path.mmaM && t->mmaN == path.mmaN && t->mmaK == path.mmaK &&
               c.subgroupSize == path.subgroupSize;
    });
    if (best) return best;
    if (whyNot) {
        // Why, by the example of the smallest configuration of the shape: what refuses it.
        CoopMatGatherKernel gather;
        gather.mmaM = path.mmaM, gather.mmaN = path.mmaN, gather.mmaK = path.mmaK;
        gather.warpsM = gather.warpsN = 1;
        gather.stages = 1;
        KernelConfig probe;
        probe.path = path.path;
        probe.params = gather;
        probe.bm = std::max(32u, path.mmaM), probe.bn = 4 * path.mmaN, probe.bk = 2 * path.mmaK;
        probe.subgroupSize = path.subgroupSize;
        const std::string refused = canImplement(probe, device, problem);
        *whyNot = "no " + path.label() + " configuration fits this problem" +
                  (refused.empty() ? "" : " (" + probe.str() + ": " + refused + ")");
    }
    return std::nullopt;
}

std::string profileViolation(const KernelConfig& c, const ConvProblem& p, const DeviceProfile& profile,
                             const DeviceInfo& hw) {
    // Called for every candidate of every problem (thousands on a GPU with many shapes): plain
    // string appends, and only when something is wrong.
    std::string why;
    auto add = [&](const std::string& s) { why += (why.empty() ? "" : "; ") + s; };
    auto limit = [&](const char* what, uint64_t value, std::optional<uint64_t> profileLimit, uint64_t deviceLimit) {
        if (profileLimit && value > *profileLimit)
            add(std::string(what) + " " + std::to_string(value) + " > profile's " + std::to_string(*profileLimit));
        if (value > deviceLimit)
            add(std::string(what) + " " + std::to_string(value) + " > device's " + std::to_string(deviceLimit));
    };
    auto opt = [](const auto& o) { return o ? std::optional<uint64_t>(*o) : std::nullopt; };
    limit("threads", c.threads(), opt(profile.maxWorkGroupInvocations), hw.maxWorkGroupInvocations);
    limit("shared memory", c.sharedMemoryBytes(p), opt(profile.maxSharedMemoryBytes), hw.maxSharedMemoryBytes);
    const uint64_t nTiles = uint64_t((p.gemmN() + c.bn - 1) / c.bn);
    limit("N tiles (grid Y)", nTiles,
          profile.maxWorkGroupCount ? std::optional<uint64_t>((*profile.maxWorkGroupCount)[1]) : std::nullopt,
          hw.maxWorkGroupCount[1]);
    if (c.path == Path::Fp32) return why;
    const ScalarType operand = ScalarType::F16;
    if (profile.coopMatKhr == false) add("cooperative matrix, which the profile does not have");
    if (profile.shaderFloat16 == false) add("fp16, which the profile does not have");
    const CoopMatTiling& t = *c.coopMat();
    auto listed = [&](const std::vector<CoopMatShape>& shapes) {
        for (const auto& s : shapes)
            if (s.m == t.mmaM && s.n == t.mmaN && s.k == t.mmaK && isF32Acc(s, operand)) return true;
        return false;
    };
    if (profile.coopMatShapes && !listed(*profile.coopMatShapes)) add("shape not among the profile's");
    if (!listed(hw.coopMatShapes)) add("shape not among the device's");
    // The subgroup size: inside the device's range, and inside the profile's wherever the two
    // ranges meet (where they do not, the profile cannot narrow, and applyProfile notes it).
    const uint32_t sg = c.subgroupSize;
    if (sg < hw.minSubgroupSize || sg > hw.maxSubgroupSize)
        add("subgroup size " + std::to_string(sg) + " outside the device's range");
    const uint32_t lo = std::max(hw.minSubgroupSize, profile.minSubgroupSize.value_or(0));
    const uint32_t hi = std::min(hw.maxSubgroupSize, profile.maxSubgroupSize.value_or(~0u));
    if (lo <= hi && (sg < lo || sg > hi)) add("subgroup size " + std::to_string(sg) + " outside the profile's range");
    return why;
}

}  // namespace vkconv::test
