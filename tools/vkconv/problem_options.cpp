// Problem flags: registration, and turning them into a validated ConvProblem.
#include "problem_options.hpp"

#include <cerrno>
#include <cstdlib>
#include <tuple>

#include "vkconv/error.hpp"

namespace vkconv::cli {

namespace {

const char* const kShapeFlags[] = {"--batch", "--in-channels", "--height", "--width",
                                   "--out-channels", "--kernel"};
// What a problem of the user's own must give (PyTorch's conv2d has no default for them).
const char* const kRequiredFlags[] = {"--in-channels", "--height", "--width", "--out-channels", "--kernel"};
const char* const kOwnProblemFlags[] = {"--in-channels", "--height", "--width", "--out-channels", "--kernel",
                                        "--stride", "--padding", "--dilation", "--groups", "--no-bias"};

int64_t parseInt(const std::string& flag, const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE)
        throw invalidArgument(flag, "'" + text + "'", "expected an integer");
    return v;
}

// "A" or "A,B" -> {A, B} (A twice for one value). Range checks are left to
// ConvProblem::validate(), which names the field; this only rejects text that is not integers.
std::pair<int64_t, int64_t> parsePair(const std::string& flag, const std::string& text,
                                      const char* form) {
    const auto bad = [&] {
        return invalidArgument(flag, "'" + text + "'", std::string("expected ") + form + " (integers)");
    };
    const size_t comma = text.find(',');
    if (comma != std::string::npos && text.find(',', comma + 1) != std::string::npos) throw bad();
    try {
        const int64_t first = parseInt(flag, text.substr(0, comma));
        return {first, comma == std::string::npos ? first : parseInt(flag, text.substr(comma + 1))};
    } catch (const Error&) {
        throw bad();
    }
}

std::string joined(const std::vector<std::string>& items) {
    std::string s;
    for (size_t i = 0; i < items.size(); ++i)
        s += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
    return s;
}

}  // namespace

bool ProblemFlags::given(const std::string& flag) const {
    auto it = options.find(flag);
    return it != options.end() && it->second->count() > 0;
}

std::vector<std::string> ProblemFlags::givenShapeFlags() const {
    std::vector<std::string> out;
    for (const char* flag : kShapeFlags)
        if (given(flag)) out.push_back(flag);
    return out;
}

std::vector<std::string> ProblemFlags::givenOwnProblemFlags() const {
    std::vector<std::string> out;
    for (const char* flag : kOwnProblemFlags)
        if (given(flag)) out.push_back(flag);
    return out;
}

void addProblemFlags(CLI::App& command, ProblemFlags& f, const std::string& batchHelp) {
    auto add = [&](const std::string& flag, std::string& value, const std::string& help, const char* type) {
        f.options[flag] = command.add_option(flag, value, help)->type_name(type);
    };
    add("--batch", f.batch, "images N (" + batchHelp + ")", "INT");
    add("--in-channels", f.inChannels, "input channels C (required for a problem of your own)", "INT");
    add("--height", f.height, "input height H (required for a problem of your own)", "INT");
    add("--width", f.width, "input width W (required for a problem of your own)", "INT");
    add("--out-channels", f.outChannels, "output channels K (required for a problem of your own)", "INT");
    add("--kernel", f.kernel, "kernel size R[,S] (required for a problem of your own)", "R[,S]");
    add("--stride", f.stride, "stride SH[,SW] (default 1, as in torch)", "S[,S]");
    add("--padding", f.padding, "zero padding PH[,PW] (default 0, as in torch)", "P[,P]");
    add("--dilation", f.dilation, "dilation DH[,DW] (default 1, as in torch)", "D[,D]");
    add("--groups", f.groups, "groups; C and K must be multiples (default 1; C for depthwise)", "INT");
    f.options["--no-bias"] = command.add_flag("--no-bias", f.noBias, "no bias term (default: bias on, as in torch)");
    add("--dtype", f.dtype,
        "element type of input, output and residual: f32, f16 or bf16 (default f32; bf16 runs through fp32 "
        "arithmetic, and a bf16 result is written to .npy as its float32 values)",
        "f32|f16|bf16");
    add("--layout", f.layout,
        "memory layout of input, output and residual: nchw, or nhwc (channels last; .npy files then (N, H, W, C)) "
        "(default nchw)",
        "nchw|nhwc");
    f.options["--bf16-bits"] = command.add_flag(
        "--bf16-bits", f.bf16Bits,
        "NumPy mode with --dtype bf16: read '<u2' files as bfloat16 bit patterns and write the result so "
        "(NumPy has no bfloat16; without it a bf16 result is written as its float32 values)");
    add("--activation", f.activation,
        "fused activation: identity, relu, relu6, clamp, leaky_relu, sigmoid, silu, gelu, gelu_tanh, hardswish "
        "(default identity)",
        "NAME");
    add("--alpha", f.alpha, "scale of the conv's sums in the epilogue act(alpha*conv + bias + beta*z) (default 1)", "A");
    add("--beta", f.beta, "scale of the residual z (default 1; needs --residual)", "B");
    add("--clamp", f.clamp, "bounds of --activation clamp (default 0,6)", "LO,HI");
    add("--slope", f.slope, "negative slope of --activation leaky_relu (default 0.01)", "S");
    f.options["--residual"] =
        command.add_option("--residual", f.residual, "add a residual z of the output's shape: random values, or FILE (.npy)")
            ->expected(0, 1)
            ->type_name("[FILE]");
}

namespace {

float parseFloat(const std::string& flag, const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const float v = std::strtof(text.c_str(), &end);
    if (text.empty() || *end != '\0' || errno == ERANGE)
        throw invalidArgument(flag, "'" + text + "'", "expected a number");
    return v;
}

}  // namespace

void applyTensorFlags(const ProblemFlags& f, ConvProblem& p) {
    if (f.given("--dtype")) p.inputFormat.type = p.outputFormat.type = dataTypeFromString(f.dtype, "--dtype");
    if (f.given("--layout")) p.inputFormat.layout = p.outputFormat.layout = layoutFromString(f.layout, "--layout");
    Epilogue& e = p.epilogue;
    if (f.given("--activation")) e.activation = activationFromString(f.activation, "--activation");
    if (f.given("--alpha")) e.alpha = parseFloat("--alpha", f.alpha);
    e.residual = f.given("--residual");
    if (f.given("--beta")) {
        if (!e.residual) throw invalidArgument("--beta", f.beta, "scales the residual: give --residual too");
        e.beta = parseFloat("--beta", f.beta);
    }
    if (f.given("--clamp")) {
        if (e.activation != Activation::Clamp) throw invalidArgument("--clamp", f.clamp, "needs --activation clamp");
        const size_t comma = f.clamp.find(',');
        if (comma == std::string::npos) throw invalidArgument("--clamp", f.clamp, "expected LO,HI");
        e.lower = parseFloat("--clamp", f.clamp.substr(0, comma));
        e.upper = parseFloat("--clamp", f.clamp.substr(comma + 1));
        if (!(e.lower <= e.upper)) throw invalidArgument("--clamp", f.clamp, "expected LO <= HI");
    }
    if (f.given("--slope")) {
        if (e.activation != Activation::LeakyRelu) throw invalidArgument("--slope", f.slope, "needs --activation leaky_relu");
        e.slope = parseFloat("--slope", f.slope);
    }
    e.validate();
}

void applyGeometryFlags(const ProblemFlags& f, ConvProblem& p) {
    if (f.given("--stride")) std::tie(p.strideH, p.strideW) = parsePair("--stride", f.stride, "S or SH,SW");
    if (f.given("--padding")) std::tie(p.padH, p.padW) = parsePair("--padding", f.padding, "P or PH,PW");
    if (f.given("--dilation"))
        std::tie(p.dilationH, p.dilationW) = parsePair("--dilation", f.dilation, "D or DH,DW");
    if (f.given("--groups")) p.groups = parseInt("--groups", f.groups);
}

int64_t batchOr(const ProblemFlags& f, int64_t fallback) {
    if (!f.given("--batch")) return fallback;
    const int64_t batch = parseInt("--batch", f.batch);
    if (batch < 1) throw invalidArgument("--batch", batch, "must be >= 1");
    return batch;
}

ConvProblem buildProblem(const ProblemFlags& f, int64_t defaultBatch) {
    if (!f.ownProblem()) {
        ConvProblem p = ConvProblem::alexnet1(batchOr(f, defaultBatch));
        applyTensorFlags(f, p);
        p.validate();
        return p;
    }
    std::vector<std::string> missing;
    for (const char* flag : kRequiredFlags)
        if (!f.given(flag)) missing.push_back(flag);
    if (!missing.empty())
        throw invalidArgument(missing.front(), "missing",
                              "a problem of your own (" + joined(f.givenOwnProblemFlags()) + " given) also needs " +
                                  joined(missing) +
                                  "; stride, padding, dilation and groups default to 1, 0, 1, 1 as in torch; "
                                  "without any problem flag alexnet1 runs");
    ConvProblem p;  // PyTorch's defaults: stride 1, padding 0, dilation 1, groups 1, bias on
    p.batch = batchOr(f, defaultBatch);
    p.inChannels = parseInt("--in-channels", f.inChannels);
    p.height = parseInt("--height", f.height);
    p.width = parseInt("--width", f.width);
    p.outChannels = parseInt("--out-channels", f.outChannels);
    std::tie(p.kernelH, p.kernelW) = parsePair("--kernel", f.kernel, "R or R,S");
    applyGeometryFlags(f, p);
    p.bias = !f.noBias;
    applyTensorFlags(f, p);
    p.validate();
    return p;
}

void requireOnlyBatch(const ProblemFlags& f, const std::string& what) {
    const auto own = f.givenOwnProblemFlags();
    if (!own.empty())
        throw invalidArgument(own.front(), "given", what + " sets the problem; only --batch applies with it");
}

std::string describeProblemSource(const ProblemFlags& f) {
    if (!f.ownProblem())
        return std::string("alexnet1: no problem flag") + (f.given("--batch") ? " but --batch" : "") + " given";
    const std::pair<const char*, const char*> defaults[] = {
        {"--stride", "stride 1"}, {"--padding", "padding 0"}, {"--dilation", "dilation 1"}, {"--groups", "groups 1"}};
    std::vector<std::string> defaulted;
    for (const auto& [flag, value] : defaults)
        if (!f.given(flag)) defaulted.push_back(value);
    if (!f.noBias) defaulted.push_back("bias on");
    return "your flags" + (defaulted.empty() ? std::string() : "; torch's defaults: " + joined(defaulted));
}

void checkShapeFlagsAgree(const ProblemFlags& f, const ConvProblem& p, const std::string& source) {
    auto check = [&](const char* flag, const std::string& text, int64_t actual) {
        if (!f.given(flag)) return;
        const int64_t v = parseInt(flag, text);
        if (v != actual)
            throw invalidArgument(flag, v, "contradicts " + source + ", which gives " + std::to_string(actual));
    };
    check("--batch", f.batch, p.batch);
    check("--in-channels", f.inChannels, p.inChannels);
    check("--height", f.height, p.height);
    check("--width", f.width, p.width);
    check("--out-channels", f.outChannels, p.outChannels);
    if (f.given("--kernel")) {
        const auto [r, s] = parsePair("--kernel", f.kernel, "R or R,S");
        if (r != p.kernelH || s != p.kernelW)
            throw invalidArgument("--kernel", f.kernel,
                                  "contradicts " + source + ", which gives " + std::to_string(p.kernelH) + "," +
                                      std::to_string(p.kernelW));
    }
}

void addSeedOption(CLI::App& command, uint64_t& seed) {
    command
        .add_option_function<std::string>(
            "--seed",
            [&seed](const std::string& text) {
                const bool digits = !text.empty() && text.size() <= 20 &&
                                    text.find_first_not_of("0123456789") == std::string::npos;
                errno = 0;
                const unsigned long long v = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
                if (!digits || errno == ERANGE)
                    throw invalidArgument("--seed", text, "expected a whole number from 0 to 18446744073709551615");
                seed = v;
            },
            "seed of the random inputs (default 1)")
        ->type_name("INT");
}

}  // namespace vkconv::cli
