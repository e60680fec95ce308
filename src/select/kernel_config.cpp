// KernelConfig: paths, precisions and error bounds by name, and the library-wide part of
// can_implement (a valid problem, every field in range); the rest, and a configuration's name and
// resources, are its kernel family's (src/kernels/). Every limit comes from the DeviceInfo.
#include <algorithm>
#include <optional>
#include <sstream>

#include "kernels/kernel_family.hpp"
#include "vkconv/error.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv {

const char* toString(Path path) {
    switch (path) {
        case Path::Fp32: return "fp32";
        case Path::CoopMatF16: return "coopmat-f16";
        case Path::CoopMatBF16: return "coopmat-bf16";
    }
    return "?";
}

Path pathFromString(const std::string& name) {
    for (Path p : {Path::Fp32, Path::CoopMatF16, Path::CoopMatBF16})
        if (name == toString(p)) return p;
    throw invalidArgument("path", name, "expected fp32, coopmat-f16 or coopmat-bf16");
}

const char* toString(Precision precision) {
    return precision == Precision::Fast ? "fast" : "fp32";
}

Precision precisionFromString(const std::string& name) {
    if (name == "fast") return Precision::Fast;
    if (name == "fp32") return Precision::Fp32;
    throw invalidArgument("precision", name, "expected fast or fp32");
}

double errorBound(Path path) {
    switch (path) {
        case Path::Fp32: return 1e-5;
        case Path::CoopMatF16: return 1e-3;
        case Path::CoopMatBF16: return 8e-3;
    }
    return 0;
}

double elementErrorBound(Path path) {
    switch (path) {
        case Path::Fp32: return 1e-4;
        case Path::CoopMatF16: return 1e-2;
        case Path::CoopMatBF16: return 8e-2;
    }
    return 0;
}

// What a configuration needs and how it is named: its kernel family's answer.
uint32_t KernelConfig::threads() const { return detail::familyOf(*this).threads(*this); }

uint32_t KernelConfig::sharedMemoryBytes(const ConvProblem& p) const {
    return detail::familyOf(*this).sharedMemoryBytes(*this, p);
}

std::string KernelConfig::str() const { return detail::familyOf(*this).describe(*this); }

const char* KernelConfig::kernel() const { return detail::familyOf(*this).name(); }

// Every field within a range no kernel exceeds, so that the products below (threads, shared
// memory, tiles) stay far from 2^32 and 2^64: a configuration from a hand-edited or corrupt
// tuning cache entry is refused here by name, never wrapped into a small value that fits.
std::string fieldOutOfRange(const KernelConfig& c) {
    const std::pair<const char*, std::pair<uint32_t, uint32_t>> fields[] = {
        {"bm", {c.bm, 4096}},         {"bn", {c.bn, 4096}},           {"bk", {c.bk, 4096}},
        {"tm", {c.tm, 256}},          {"tn", {c.tn, 256}},            {"warpsM", {c.warpsM, 64}},
        {"warpsN", {c.warpsN, 64}},   {"mmaM", {c.mmaM, 256}},        {"mmaN", {c.mmaN, 256}},
        {"mmaK", {c.mmaK, 256}},      {"stages", {c.stages, 16}},     {"sLanes", {c.sLanes, 64}},
        {"subgroupSize", {c.subgroupSize, 1024}},    {"splitK", {c.splitK, 64}},
        {"tilesPerWorkgroup", {c.tilesPerWorkgroup, 65536}},
        {"directThreadsW", {c.directThreadsW, 4096}}, {"directThreadsH", {c.directThreadsH, 4096}},
        {"directVecW", {c.directVecW, 64}}, {"directRows", {c.directRows, 256}},
        {"directChannels", {c.directChannels, 4096}}, {"directGroups", {c.directGroups, 4096}},
        {"directGroupSteps", {c.directGroupSteps, 4096}},
    };
    for (const auto& [name, valueMax] : fields)
        if (valueMax.first > valueMax.second)
            return std::string(name) + " = " + std::to_string(valueMax.first) + " is out of range (at most " +
                   std::to_string(valueMax.second) + ")";
    return "";
}

std::string canImplement(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    try {
        p.validate();
    } catch (const Error& e) {
        return std::string("invalid problem: ") + e.what();
    }
    if (std::string why = fieldOutOfRange(c); !why.empty()) return why;
    if (c.splitK == 0) return "splitK must be >= 1";
    return detail::familyOf(c).canImplement(c, d, p);
}

}  // namespace vkconv
