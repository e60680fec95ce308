#include "conv_check.hpp"

#include <atomic>
#include <cmath>
#include <optional>
#include <sstream>

#include "kernels/channels_last/channels_last_params.hpp"  // src/
#include "kernels/coopmat_packed/packed_input.hpp"   // src/: which problems the packed loader serves
#include "kernels/grouped_direct/grouped_direct.hpp"  // src/: which problems the grouped direct kernel serves
#include "runtime/tensor_impl.hpp"    // src/: the output's buffer, to add a guard region after it
#include "select/config_select.hpp"  // src/: the forced loaders' configurations
#include "vkconv/conv2d.hpp"
#include "vkconv/error.hpp"
#include "vkconv/reference.hpp"
#include "vkconv/tensor.hpp"

namespace vkconv::test {

std::string variantName(Variant variant) {
    switch (variant) {
        case Variant::Fp32: return "fp32";
        case Variant::Fast: return "fast";
        case Variant::FastFp32: return "fastfp32";
        case Variant::PackedBRegisters: return "breg";
        case Variant::Nhwc: return "nhwc";
        case Variant::NhwcTapsInner: return "nhwctaps";
        case Variant::Nchw: return "nchw";
    }
    return "?";
}

bool expectsCoopMat(Variant variant) { return variant != Variant::Fp32 && variant != Variant::FastFp32; }

namespace {

std::atomic<uint64_t> coopMatRuns{0};

bool hasShape(const DeviceInfo& d, ScalarType operand) {
    for (const auto& s : d.coopMatShapes)
        if (s.a == operand && s.b == operand && s.c == ScalarType::F32 && s.result == ScalarType::F32)
            return true;
    return false;
}

// The NCHW loader's cases (its cooperative-matrix pipelines compile slowly on lavapipe: a few
// problems, chosen to cover what the loader distinguishes) and the configuration each checks:
// the heuristic's; one with 4 subgroups, so that each thread loads several units of 4 pixels a
// K slice; or the heuristic's with the M tile cut to one fragment row a subgroup, so that the
// workgroup has more threads than units and some load none; or the heuristic's best in the
// taps-inner K order.
enum class NchwConfig { None, Heuristic, FewSubgroups, ThinTile, TapsInner };

NchwConfig nchwVariantConfigKind(const std::string& problem) {
    static const std::pair<const char*, NchwConfig> cases[] = {
        // 16-byte loads: 3 images of 16 pixels (tiles across images), C = 1 (the other channels
        // of the K slice masked), K = 1.
        {"k1_c1_1x1", NchwConfig::ThinTile},
        // 16-byte loads, 2 images, one K slice.
        {"k1x1_c16_k32", NchwConfig::FewSubgroups},
        // 16-byte loads, no bias, a partial M tile, two K slices.
        {"no_bias_1x1", NchwConfig::Heuristic},
        // Scalar loads (planes of 49 pixels), 16 K slices.
        {"k1x1_c256_k64", NchwConfig::Heuristic},
        // Scalar loads (a plane of 257 pixels), C = 33 (3 slices, the last mostly masked), partial
        // M and N tiles.
        {"gemm_m257_n129_k33", NchwConfig::FewSubgroups},
        // Stride 2: scalar loads over 2 images of 7x7 outputs (tiles across images).
        {"resnet_like_downsample", NchwConfig::Heuristic},
        // Several chunks (the chunking suite's 1 MiB ranges): 16-byte loads from each chunk's
        // offset.
        {"k1x1_chunks", NchwConfig::Heuristic},
        // Taps: 2x2 at stride 2 with the taps inside each of 2 channel slices (C = 24, the second
        // slice half masked), 35 outputs an image (tiles across images).
        {"patchify_2x2_s2", NchwConfig::TapsInner},
        // 4x4 at stride 4 over 3 channels (one slice, 16 taps), the last rows and columns of the
        // input in no window; 4 subgroups.
        {"patchify_4x4_s4_c3_ragged", NchwConfig::FewSubgroups},
        // 3x2 at stride 3x2, tap-major over 2 channel slices, no bias.
        {"patchify_3x2_s3x2_no_bias", NchwConfig::Heuristic},
        // Dilated 3x3 taps whose windows overlap (each input read by several windows).
        {"dilation3_no_pad", NchwConfig::Heuristic},
    };
    for (const auto& [name, kind] : cases)
        if (problem == name) return kind;
    return NchwConfig::None;
}

// The variants that force an A loader (and B placement or K order) through loaderConfig().
bool forcesLoader(Variant variant) {
    return variant == Variant::PackedBRegisters || variant == Variant::Nhwc ||
           variant == Variant::NhwcTapsInner || variant == Variant::Nchw;
}

// The forced-loader variants' configuration: the heuristic's best with that loader (NCHW: the
// kind of configuration its problem checks).
std::optional<KernelConfig> loaderConfig(const DeviceInfo& d, const NamedProblem& named, Variant variant) {
    const ConvProblem& p = named.problem;
    const bool packed = variant == Variant::PackedBRegisters;
    const std::string kernel = packed                      ? CoopMatPackedKernel::kName
                               : variant == Variant::Nchw ? ChannelsLastNchwKernel::kName
                                                          : ChannelsLastNhwcKernel::kName;
    const NchwConfig nchwKind = variant == Variant::Nchw ? nchwVariantConfigKind(named.name) : NchwConfig::None;
    // The channels-last kernel in each K order: the taps-inner one only where it differs (several
    // channel slices and several taps), which its candidates already are.
    const bool tapsInner = variant == Variant::NhwcTapsInner || nchwKind == NchwConfig::TapsInner;
    if (!d.coopMatKhr || (packed && !detail::packedInputSupport(p).empty())) return std::nullopt;
    if (variant == Variant::Nchw && nchwKind == NchwConfig::None) return std::nullopt;
    std::optional<KernelConfig> best = bestCandidate(Path::CoopMatF16, d, p, [&](const KernelConfig& c) {
        if (c.kernel() != kernel) return false;
        const bool taps = !packed && detail::channelsLast(c).tapsInner;
        return taps == tapsInner && (nchwKind != NchwConfig::FewSubgroups || c.coopMat()->warpsM * c.coopMat()->warpsN == 4);
    });
    if (best && nchwKind == NchwConfig::ThinTile) {
        best->bm = best->coopMat()->warpsM * best->coopMat()->mmaM;
        if (!canImplement(*best, d, p).empty()) return std::nullopt;
    }
    // Several M tiles a workgroup, a number that divides neither the tiles nor the grid, so that
    // the kernel's strided walk over the tiles and its early end are checked (the heuristic
    // gives the small test problems one tile a workgroup).
    if (best && packed) best->as<CoopMatPackedKernel>().tilesPerWorkgroup = 3;
    return best;
}

}  // namespace

uint64_t coopMatCasesRan() { return coopMatRuns.load(); }

std::optional<KernelConfig> bestCandidate(Path path, const DeviceInfo& device, const ConvProblem& problem,
                                          const std::function<bool(const KernelConfig&)>& keep) {
    std::optional<KernelConfig> best;
    double bestCost = 0;
    for (const KernelConfig& c : detail::candidateConfigs(path, device, problem)) {
        if (!keep(c)) continue;
        const double cost = detail::heuristicCost(c, device, problem);
        if (!best || cost < bestCost) best = c, bestCost = cost;
    }
    return best;
}

namespace {
constexpr uint32_t kGuardPattern = 0x7fc0dead;  // a NaN with a payload no kernel writes
}  // namespace

void poisonWithGuard(const Context& context, Tensor& out) {
    detail::TensorImpl& impl = out.impl();
    const uint64_t guardAt = (out.bytes() + 3) / 4 * 4;  // the first word past the tensor's bytes
    impl.owned = std::make_shared<detail::Buffer>(*context.impl(), guardAt + kGuardWords * 4, detail::Buffer::Kind::DeviceLocal);
    impl.buffer = impl.owned->handle();
    impl.offset = 0;
    out.fill(std::nanf(""));  // any element the kernel never writes stays NaN and fails
    const std::vector<uint32_t> guard(kGuardWords, kGuardPattern);
    detail::uploadToBuffer(*context.impl(), impl.buffer, guardAt, guard.data(), kGuardWords * 4);
}

uint64_t guardWordsChanged(const Context& context, const Tensor& out) {
    const detail::TensorImpl& impl = out.impl();
    std::vector<uint32_t> guard(kGuardWords);
    detail::downloadFromBuffer(*context.impl(), impl.buffer, (out.bytes() + 3) / 4 * 4, guard.data(), kGuardWords * 4);
    uint64_t changed = 0;
    for (uint32_t w : guard) changed += w != kGuardPattern;
    return changed;
}

bool fastExpectsCoopMat(const DeviceInfo& d, const ConvProblem& p) {
    return d.coopMatKhr && d.shaderFloat16 && d.storageBuffer16Bit && hasShape(d, ScalarType::F16) && p.gemmN() >= 8 &&
           (p.gemmN() >= 16 || !detail::groupedDirectServes(p) || detail::groupedDirectCandidates(d, p).empty());
}

std::vector<ConvCase> allCases(const std::vector<NamedProblem>& problems, const DeviceProfile* profile) {
    std::vector<ConvCase> cases;
    for (int device : testDeviceIndices())
        for (Variant variant : kAllVariants) {
            if (variant == Variant::FastFp32) continue;  // a Fast case's name where Fast runs fp32
            const DeviceInfo* d = device >= 0 ? &testDevices()[size_t(device)] : nullptr;
            const bool forced = forcesLoader(variant);
            const std::optional<DeviceInfo> seen =
                d ? std::optional<DeviceInfo>(profile ? applyProfile(*d, *profile) : *d) : std::nullopt;
            for (const auto& p : problems) {
                // The channels-last kernel compiles slowly on lavapipe (seconds a pipeline): it
                // is forced on the hand-picked problems; the random ones reach it through Fast,
                // wherever the heuristic picks it.
                if ((variant == Variant::Nhwc || variant == Variant::NhwcTapsInner) && p.name.rfind("random_", 0) == 0)
                    continue;
                if (forced && !(seen && loaderConfig(*seen, p, variant))) continue;
                // On a device with cooperative matrices, a problem the suite expects Fast to run
                // on fp32 is its own variant. (Without them, Fast cases skip, saying so, or fail
                // where VKCONV_REQUIRE_COOPMAT=1 says the device must have them.)
                const bool fallback = variant == Variant::Fast && seen && seen->coopMatKhr &&
                                      !fastExpectsCoopMat(*seen, p.problem);
                cases.push_back({device, fallback ? Variant::FastFp32 : variant, p});
            }
        }
    return cases;
}

void PrintTo(const ConvCase& c, std::ostream* os) {
    *os << caseName(c) << " (" << c.problem.problem.str() << ", seed " << c.problem.seed << ")";
}

std::string caseName(const ConvCase& c) {
    const std::string device = c.device < 0 ? "nodevice" : "dev" + std::to_string(c.device);
    return device + "_" + variantName(c.variant) + "_" + c.problem.name;
}

namespace {

// A tensor of the logical shape and format holding `nchw` (NCHW order).
Tensor tensorOf(const Context& context, const std::array<int64_t, 4>& shape, const TensorFormat& format,
                const std::vector<float>& nchw) {
    Tensor t(context, {shape.begin(), shape.end()}, format);
    t.upload(relayout(nchw.data(), nchw.size(), shape, Layout::NCHW, format.layout));
    return t;
}

}  // namespace

CheckResult checkConvWith(const Context& context, const NamedProblem& named, const ConvOptions& options,
                          const std::string& label, bool residualInPlace) {
    const ConvProblem& p = named.problem;
    // Distinct streams for input, weights and bias, all derived from the case's seed; the input
    // and the residual as their tensors hold them (the reference gets the same values).
    const std::vector<float> input =
        heldAs(randomValues(named.seed * 3 + 0, size_t(p.inputElements())), p.inputFormat.type);
    const std::vector<float> weight = randomValues(named.seed * 3 + 1, size_t(p.weightElements()));
    const std::vector<float> bias =
        p.bias ? randomValues(named.seed * 3 + 2, size_t(p.outChannels)) : std::vector<float>{};

    const std::vector<float> residual = p.epilogue.residual
                                            ? heldAs(randomValues(named.seed * 3 + 0x5eed, size_t(p.outputElements())),
                                                     p.outputFormat.type)
                                            : std::vector<float>{};

    Conv2d conv(context, p, weight, bias, options);
    Tensor in = tensorOf(context, p.inputShape(), p.inputFormat, input);
    const auto outShape = p.outputShape();
    Tensor out(context, {outShape.begin(), outShape.end()}, p.outputFormat);
    poisonWithGuard(context, out);
    if (!p.epilogue.residual) {
        conv.run(in, out);
    } else if (residualInPlace) {
        // The elements only: the guard after them stays poisoned.
        out.upload(relayout(residual.data(), residual.size(), outShape, Layout::NCHW, p.outputFormat.layout));
        conv.run(in, out, out);
    } else {
        Tensor z = tensorOf(context, outShape, p.outputFormat, residual);
        conv.run(in, out, z);
    }
    const std::vector<float> held = out.download();
    const std::vector<float> got = relayout(held.data(), held.size(), outShape, p.outputFormat.layout, Layout::NCHW);
    const std::vector<double> ref = referenceConv2d(p, input.data(), weight.data(), p.bias ? bias.data() : nullptr,
                                                    0, -1, p.epilogue.residual ? residual.data() : nullptr);

    CheckResult result;
    result.ran = true;
    result.path = conv.config().path;
    result.config = conv.config().str();
    result.describe = conv.describe();
    result.error = relativeError(got.data(), ref);
    result.bound = errorBound(result.path, p.outputFormat);
    result.elementError = maxElementError(got.data(), ref);
    result.elementBound = elementErrorBound(result.path, p.outputFormat);
    result.guardWordsChanged = guardWordsChanged(context, out);
    std::ostringstream report;
    report << "problem " << named.name << ": " << p.str() << "\n  seed " << named.seed << ", " << label
           << ", device '" << context.device().name << "'"
           << "\n  config " << result.describe << "\n  relative error " << result.error << " (bound "
           << result.bound << "), max element error " << result.elementError << " x RMS (bound "
           << result.elementBound << ")";
    if (result.guardWordsChanged)
        report << "\n  " << result.guardWordsChanged << " word(s) after the output changed";
    result.report = report.str();
    return result;
}

CheckResult checkConv(const Context& context, const NamedProblem& named, Variant variant) {
    CheckResult result;
    const ConvProblem& p = named.problem;
    const DeviceInfo& device = context.device();
    if (expectsCoopMat(variant) && !device.coopMatKhr) {
        result.skipReason = "device '" + device.name +
                            "' has no VK_KHR_cooperative_matrix: Precision::Fast would run the "
                            "fp32 path, which the fp32 instance already covers";
        return result;
    }

    ConvOptions options;
    options.precision = variant == Variant::Fp32 ? Precision::Fp32 : Precision::Fast;
    if (forcesLoader(variant)) {
        const auto config = loaderConfig(device, named, variant);
        if (!config) {
            // Registered only where one fits the device; a profile's narrowed limits (the
            // chunking suite's 1 MiB buffers) can still leave none.
            result.skipReason = "no " + variantName(variant) + " configuration fits device '" + device.name + "' for " + p.str();
            result.limitedByProfile = true;
            return result;
        }
        options.config = *config;
    }
    result = checkConvWith(context, named, options, "variant " + variantName(variant));
    // Precision::Fast chooses fp32 for a problem the matrix units do not suit (thin groups): the
    // fastfp32 variant expects that, and the result must then be right to fp32's bound, and
    // describe() must say why. A fast case that ran fp32, or a fallback without a reason, fails.
    const bool ranCoopMat = result.path != Path::Fp32;
    if (variant == Variant::FastFp32 && ranCoopMat)
        result.wrongPath = "the suite expects Precision::Fast to fall back to fp32 here (" +
                           std::to_string(p.gemmN()) + " output channel(s) per group) but it ran " +
                           result.config + ": update fastExpectsCoopMat() if the library's rule changed";
    else if (expectsCoopMat(variant) && !ranCoopMat)
        result.wrongPath = "the suite expects a cooperative-matrix kernel here (the device lists f16 shapes, " +
                           std::to_string(p.gemmN()) + " output channels per group) but it ran fp32: " + result.describe;
    else if (variant == Variant::FastFp32 && result.describe.find("fast requested, but") == std::string::npos)
        result.wrongPath = "fast precision fell back to fp32 without saying why: " + result.describe;
    if (ranCoopMat) ++coopMatRuns;
    if (!result.wrongPath.empty()) result.report += "\n  wrong path: " + result.wrongPath;
    return result;
}

}  // namespace vkconv::test
