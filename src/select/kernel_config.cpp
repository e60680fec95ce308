// KernelConfig: paths, precisions and error bounds by name, and the library-wide part of
// can_implement (a valid problem, every field in range); the rest, and a configuration's name and
// resources, are its kernel family's (src/kernels/). Every limit comes from the DeviceInfo.
#include <algorithm>
#include <optional>
#include <sstream>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "kernels/kernel_family.hpp"
#include "vkconv/error.hpp"
#include "vkconv/kernel_config.hpp"

namespace vkconv {

const char* toString(Path path) {
    switch (path) {
        case Path::Fp32: return "fp32";
        case Path::CoopMatF16: return "coopmat-f16";
    }
    return "?";
}

Path pathFromString(const std::string& name) {
    for (Path p : {Path::Fp32, Path::CoopMatF16})
        if (name == toString(p)) return p;
    // No bf16 kernel yet: named, so that an old configuration or a hopeful caller learns why.
    if (name == "coopmat-bf16") throw invalidArgument("path", name, "vkconv has no bf16 kernel; expected fp32 or coopmat-f16");
    throw invalidArgument("path", name, "expected fp32 or coopmat-f16");
}

const char* toString(Precision precision) {
    return precision == Precision::Fast ? "fast" : precision == Precision::Precise ? "precise" : "fp32";
}

Precision precisionFromString(const std::string& name) {
    if (name == "fast") return Precision::Fast;
    if (name == "fp32") return Precision::Fp32;
    if (name == "precise") return Precision::Precise;
    throw invalidArgument("precision", name, "expected fast, fp32 or precise");
}

double errorBound(Path path) {
    switch (path) {
        case Path::Fp32: return 1e-5;
        case Path::CoopMatF16: return 1e-3;
    }
    return 0;
}

double elementErrorBound(Path path) {
    switch (path) {
        case Path::Fp32: return 1e-4;
        case Path::CoopMatF16: return 1e-2;
    }
    return 0;
}

double errorBound(Path path, const TensorFormat& output) {
    if (output.type == DataType::BF16) return 8e-3;  // bfloat16's rounding, 2^-9 of each value
    return output.type == DataType::F16 ? std::max(errorBound(path), errorBound(Path::CoopMatF16)) : errorBound(path);
}

double elementErrorBound(Path path, const TensorFormat& output) {
    if (output.type == DataType::BF16) return 4e-2;
    return output.type == DataType::F16 ? std::max(elementErrorBound(path), elementErrorBound(Path::CoopMatF16))
                                        : elementErrorBound(path);
}

// What a configuration needs and how it is named: its kernel family's answer.
uint32_t KernelConfig::threads() const { return detail::familyOf(*this).threads(*this); }

uint32_t KernelConfig::sharedMemoryBytes(const ConvProblem& p) const {
    return detail::familyOf(*this).sharedMemoryBytes(*this, p);
}

std::string KernelConfig::str() const { return detail::familyOf(*this).describe(*this); }

const char* KernelConfig::kernel() const {
    return std::visit([](const auto& k) { return std::decay_t<decltype(k)>::kName; }, params);
}

const CoopMatTiling* KernelConfig::coopMat() const {
    return std::visit(
        [](const auto& k) -> const CoopMatTiling* {
            if constexpr (std::is_base_of_v<CoopMatTiling, std::decay_t<decltype(k)>>) return &k;
            return nullptr;
        },
        params);
}

CoopMatTiling* KernelConfig::coopMat() { return const_cast<CoopMatTiling*>(std::as_const(*this).coopMat()); }

uint32_t KernelConfig::splits() const {
    return std::visit(
        [](const auto& k) -> uint32_t {
            if constexpr (std::is_base_of_v<ChannelsLastTiling, std::decay_t<decltype(k)>>) return k.splitK;
            return 1;
        },
        params);
}

void KernelConfig::throwOtherKernel(const char* wanted) const {
    throw invalidArgument("config.params", kernel(), std::string("is not the ") + wanted + " kernel's");
}

namespace {

using Limits = std::vector<std::pair<const char*, std::pair<uint32_t, uint32_t>>>;

void addLimits(const Fp32GemmKernel& k, Limits& l) { l.insert(l.end(), {{"tm", {k.tm, 256}}, {"tn", {k.tn, 256}}}); }

void addLimits(const GroupedDirectKernel& k, Limits& l) {
    l.insert(l.end(), {{"threadsW", {k.threadsW, 4096}}, {"threadsH", {k.threadsH, 4096}},
                       {"vecW", {k.vecW, 64}}, {"rows", {k.rows, 256}}, {"channels", {k.channels, 4096}},
                       {"groups", {k.groups, 4096}}, {"groupSteps", {k.groupSteps, 4096}}});
}

void addCoopMatLimits(const CoopMatTiling& k, Limits& l) {
    l.insert(l.end(), {{"warpsM", {k.warpsM, 64}}, {"warpsN", {k.warpsN, 64}}, {"mmaM", {k.mmaM, 256}},
                       {"mmaN", {k.mmaN, 256}}, {"mmaK", {k.mmaK, 256}}, {"stages", {k.stages, 16}}});
}

void addLimits(const CoopMatGatherKernel& k, Limits& l) {
    addCoopMatLimits(k, l);
    l.push_back({"sLanes", {k.sLanes, 64}});
}

void addLimits(const CoopMatPackedKernel& k, Limits& l) {
    addCoopMatLimits(k, l);
    l.push_back({"tilesPerWorkgroup", {k.tilesPerWorkgroup, 65536}});
}

void addLimits(const ChannelsLastTiling& k, Limits& l) {
    addCoopMatLimits(k, l);
    l.push_back({"splitK", {k.splitK, 64}});
}

}  // namespace

// Every field within a range no kernel exceeds, so that the products below (threads, shared
// memory, tiles) stay far from 2^32 and 2^64: a configuration from a hand-edited or corrupt
// tuning cache entry is refused here by name, never wrapped into a small value that fits.
std::string fieldOutOfRange(const KernelConfig& c) {
    Limits fields{{"bm", {c.bm, 4096}}, {"bn", {c.bn, 4096}}, {"bk", {c.bk, 4096}},
                  {"subgroupSize", {c.subgroupSize, 1024}}};
    std::visit([&](const auto& k) { addLimits(k, fields); }, c.params);
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
    if (c.splits() == 0) return "splitK must be >= 1";
    if ((c.coopMat() != nullptr) != (c.path != Path::Fp32))
        return std::string("path ") + toString(c.path) + " does not run the " + c.kernel() + " kernel";
    // Every kernel writes fp16 outputs, and reads fp16 inputs, through 16-bit storage.
    if ((p.inputFormat.type != DataType::F32 || p.outputFormat.type != DataType::F32) && !d.storageBuffer16Bit)
        return "16-bit tensors need storageBuffer16BitAccess, which the device lacks";
    // No kernel multiplies bf16: bf16 tensors run through the fp32 kernels.
    if ((p.inputFormat.type == DataType::BF16 || p.outputFormat.type == DataType::BF16) && c.path != Path::Fp32)
        return "bf16 tensors run through fp32 arithmetic (no bf16 kernel yet)";
    return detail::familyOf(c).canImplement(c, d, p);
}

}  // namespace vkconv
