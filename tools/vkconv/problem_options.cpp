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

void addProblemFlags(CLI::App& command, ProblemFlags& f) {
    auto add = [&](const std::string& flag, std::string& value, const std::string& help) {
        f.options[flag] = command.add_option(flag, value, help)->type_name("INT");
    };
    add("--batch", f.batch, "images N (default 256, or 8 on a CPU device)");
    add("--in-channels", f.inChannels, "input channels C (default 3)");
    add("--height", f.height, "input height H (default 224)");
    add("--width", f.width, "input width W (default 224)");
    add("--out-channels", f.outChannels, "output channels K (default 96)");
    add("--groups", f.groups, "groups; C and K must be multiples (default 1; C for depthwise)");
    f.options["--kernel"] = command.add_option("--kernel", f.kernel, "kernel size R[,S] (default 11)")
                                ->type_name("R[,S]");
    f.options["--stride"] = command.add_option("--stride", f.stride, "stride SH[,SW] (default 4)")
                                ->type_name("S[,S]");
    f.options["--padding"] = command.add_option("--padding", f.padding, "zero padding PH[,PW] (default 2)")
                                 ->type_name("P[,P]");
    f.options["--dilation"] = command.add_option("--dilation", f.dilation, "dilation DH[,DW] (default 1)")
                                  ->type_name("D[,D]");
    f.options["--no-bias"] = command.add_flag("--no-bias", f.noBias, "no bias term");
}

void applyGeometryFlags(const ProblemFlags& f, ConvProblem& p) {
    if (f.given("--stride")) std::tie(p.strideH, p.strideW) = parsePair("--stride", f.stride, "S or SH,SW");
    if (f.given("--padding")) std::tie(p.padH, p.padW) = parsePair("--padding", f.padding, "P or PH,PW");
    if (f.given("--dilation"))
        std::tie(p.dilationH, p.dilationW) = parsePair("--dilation", f.dilation, "D or DH,DW");
    if (f.given("--groups")) p.groups = parseInt("--groups", f.groups);
}

ConvProblem buildProblem(const ProblemFlags& f, int64_t defaultBatch) {
    ConvProblem p = ConvProblem::alexnet1(defaultBatch);
    if (f.given("--batch")) p.batch = parseInt("--batch", f.batch);
    if (f.given("--in-channels")) p.inChannels = parseInt("--in-channels", f.inChannels);
    if (f.given("--height")) p.height = parseInt("--height", f.height);
    if (f.given("--width")) p.width = parseInt("--width", f.width);
    if (f.given("--out-channels")) p.outChannels = parseInt("--out-channels", f.outChannels);
    if (f.given("--kernel")) std::tie(p.kernelH, p.kernelW) = parsePair("--kernel", f.kernel, "R or R,S");
    applyGeometryFlags(f, p);
    p.bias = !f.noBias;
    p.validate();
    return p;
}

}  // namespace vkconv::cli
