// KernelConfig: naming, resource use, and can_implement (does a configuration fit a device and
// a problem?). Every limit comes from the DeviceInfo, never from vendor assumptions.
#include <algorithm>
#include <optional>
#include <sstream>

#include "checked_math.hpp"
#include "grouped_direct.hpp"
#include "nchw_input.hpp"
#include "nhwc_input.hpp"
#include "packed_input.hpp"
#include "split_k.hpp"
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

namespace {

// A resource count of a configuration as the 32-bit value the pipeline takes; a product that does
// not fit (a hand-edited tuning cache entry with 2^28 subgroups) is an error naming its factors.
uint32_t fitU32(const char* what, std::optional<uint64_t> value, const std::string& factors) {
    if (!value || *value > 0xffffffffull)
        throw invalidArgument(std::string("config ") + what, factors, "does not fit 32 bits");
    return static_cast<uint32_t>(*value);
}

std::string joinFactors(std::initializer_list<uint64_t> factors) {
    std::string s;
    for (uint64_t f : factors) s += (s.empty() ? "" : "*") + std::to_string(f);
    return s;
}

}  // namespace

double elementErrorBound(Path path) {
    switch (path) {
        case Path::Fp32: return 1e-4;
        case Path::CoopMatF16: return 1e-2;
        case Path::CoopMatBF16: return 8e-2;
    }
    return 0;
}

uint32_t KernelConfig::threads() const {
    using detail::checkedProductU64;
    if (groupedDirect())
        return fitU32("threads", checkedProductU64({directThreadsW, directThreadsH, directGroups}),
                      "directThreadsW*directThreadsH*directGroups = " +
                          joinFactors({directThreadsW, directThreadsH, directGroups}));
    if (path == Path::Fp32) {
        if (tm == 0) throw invalidArgument("config.tm", tm, "must be >= 1");
        if (tn == 0) throw invalidArgument("config.tn", tn, "must be >= 1");
        return fitU32("threads", checkedProductU64({bm / tm, bn / tn}), joinFactors({bm / tm, bn / tn}));
    }
    return fitU32("threads", checkedProductU64({warpsM, warpsN, subgroupSize}),
                  "warpsM*warpsN*subgroupSize = " + joinFactors({warpsM, warpsN, subgroupSize}));
}

uint32_t KernelConfig::sharedMemoryBytes(const ConvProblem& p) const {
    if (groupedDirect()) return detail::groupedDirectSharedBytes(*this, p);
    // Every term is at most a product of four 32-bit fields: 128-bit sums cannot wrap, and the
    // total must fit 32 bits.
    using u128 = unsigned __int128;
    auto total = [&](u128 bytes) {
        return fitU32("shared memory bytes", bytes > u128(~0ull) ? std::nullopt : std::optional<uint64_t>(uint64_t(bytes)),
                      std::string(toString(path)) + " " + std::to_string(bm) + "x" + std::to_string(bn) + "x" +
                          std::to_string(bk) + " stages " + std::to_string(stages));
    };
    if (path == Path::Fp32) return total((u128(bk) * bm + u128(bk) * bn) * 4);
    if (aLoader == ALoader::Nhwc) return detail::nhwcSharedMemoryBytes(*this);
    if (aLoader == ALoader::Nchw) return detail::nchwSharedMemoryBytes(*this);
    // The layouts below divide by these.
    if (bm == 0) throw invalidArgument("config.bm", bm, "must be >= 1");
    if (bk == 0) throw invalidArgument("config.bk", bk, "must be >= 1");
    if (aLoader == ALoader::Packed) {
        // shaders/packed_window.glsl: the window (which the epilogue reuses) and the bias row.
        const detail::PackedInputLayout layout = detail::packedInputLayout(p, bm, bk, mmaK);
        return total(u128(detail::packedWindowWords(layout, *this)) * 16 + u128(bn) * 4);
    }
    // Must match shaders/conv2d_coopmat.comp: A ([k][m]) and B ([k][n]) stages in 16-bit, rows
    // padded by 8 elements, plus the epilogue's fragment position table (coopmat_store_direct.glsl).
    const u128 operands = u128(stages) * bk * ((u128(bm) + 8) + (bGlobal ? 0 : u128(bn) + 8)) * 2;
    const u128 epilogue = u128(mmaM) * mmaN * 4;
    return total(operands + epilogue);
}

std::string KernelConfig::str() const {
    std::ostringstream s;
    if (groupedDirect()) {
        s << "fp32 grouped-direct " << directThreadsH * directRows << "x" << directThreadsW * directVecW
          << " thread " << directRows << "x" << directVecW << " k" << directChannels << " threads "
          << directThreadsW << "x" << directThreadsH;
        if (directGroups != 1) s << " groups " << directGroups;
        if (directGroupSteps != 1) s << " serial " << directGroupSteps;
        if (directFromMemory) s << " from-memory";
        if (debugSkip) s << " DEBUG-SKIP " << debugSkip;
        if (subgroupSize) s << " sg" << subgroupSize;
        return s.str();
    }
    s << toString(path) << " " << bm << "x" << bn << "x" << bk;
    if (path == Path::Fp32)
        s << " thread " << tm << "x" << tn;
    else
        s << " warps " << warpsM << "x" << warpsN << " mma " << mmaM << "x" << mmaN << "x" << mmaK
          << " stages " << stages;
    if (path != Path::Fp32 && aLoader == ALoader::Packed) s << " packed";
    if (path != Path::Fp32 && aLoader == ALoader::Nhwc) s << " nhwc";
    if (path != Path::Fp32 && tapsInner) s << " taps-inner";
    if (path != Path::Fp32 && fragmentPrefetch) s << " frag-prefetch";
    if (path != Path::Fp32 && aLoader == ALoader::Nchw) s << " nchw";
    if (bRegisters()) s << " breg";
    if (path != Path::Fp32 && tilesPerWorkgroup > 1) s << " tiles " << tilesPerWorkgroup;
    if (path != Path::Fp32 && aLoader == ALoader::Gather && sLanes > 1) s << " lanes " << sLanes;
    if (path != Path::Fp32 && bGlobal) s << " bglobal";
    if (path != Path::Fp32 && splitK != 1) s << " split-k " << splitK;
    if (debugSkip) s << " DEBUG-SKIP " << debugSkip;
    if (subgroupSize) s << " sg" << subgroupSize;
    return s.str();
}

namespace {

bool isPow2(uint32_t v) { return v && !(v & (v - 1)); }

std::string canImplementFp32(const KernelConfig& c) {
    if (c.tm == 0 || c.tn == 0 || c.bm % c.tm || c.bn % c.tn)
        return "tile " + std::to_string(c.bm) + "x" + std::to_string(c.bn) +
               " is not a whole number of thread tiles";
    if (c.threads() % c.bm) return "threads must be a multiple of BM (each thread gathers one row)";
    if (c.bk == 0) return "BK must be >= 1";
    return "";
}

std::string canImplementCoopMat(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) {
    if (!d.coopMatKhr) return "device has no VK_KHR_cooperative_matrix";
    // The bf16 path has its enum, bound and shape matching, but no shader yet: Debian 13's
    // glslang 15.1 lacks GL_EXT_bfloat16. Refuse it rather than run the f16 shader on bf16 data.
    if (c.path == Path::CoopMatBF16)
        return "vkconv has no bf16 kernel yet (its GLSL compiler lacks GL_EXT_bfloat16)";
    const ScalarType operand = c.path == Path::CoopMatF16 ? ScalarType::F16 : ScalarType::BF16;
    if (operand == ScalarType::F16 && !(d.shaderFloat16 && d.storageBuffer16Bit))
        return "device lacks shaderFloat16 or storageBuffer16BitAccess";
    if (operand == ScalarType::BF16 && !d.shaderBFloat16) return "device lacks bf16 shader support";
    bool listed = false;
    for (const auto& s : d.coopMatShapes)
        listed |= s.m == c.mmaM && s.n == c.mmaN && s.k == c.mmaK && s.a == operand &&
                  s.b == operand && s.c == ScalarType::F32 && s.result == ScalarType::F32;
    if (!listed)
        return "device does not list the shape " + std::to_string(c.mmaM) + "x" +
               std::to_string(c.mmaN) + "x" + std::to_string(c.mmaK) + " " + toString(operand) +
               "->f32";
    // The kernel maps subgroups to warp tiles, so the subgroup size must be guaranteed: either
    // required through subgroup size control, or the only size the device has.
    if (c.subgroupSize == 0) return "cooperative-matrix configs name their subgroup size";
    const bool required = d.subgroupSizeControl && d.computeFullSubgroups &&
                          c.subgroupSize >= d.minSubgroupSize && c.subgroupSize <= d.maxSubgroupSize;
    const bool fixed = d.minSubgroupSize == d.maxSubgroupSize && c.subgroupSize == d.subgroupSize;
    if (!required && !fixed)
        return "subgroup size " + std::to_string(c.subgroupSize) + " cannot be guaranteed";
    // A driver bug, not a limit: Mesa's lavapipe (seen in Mesa 26.1.6 with LP_NATIVE_VECTOR_WIDTH=512)
    // crashes inside vkCreateComputePipelines on any cooperative-matrix shader at subgroup size 16,
    // even a lone 8x8x8 f16 multiply-add. At subgroup size 4 it turns cooperativeMatrix off itself.
    if (d.vendorId == 0x10005 && d.driverName == "llvmpipe" && c.subgroupSize > 8)
        return "lavapipe crashes compiling cooperative-matrix shaders at subgroup size " +
               std::to_string(c.subgroupSize) + " (Mesa driver bug; size 8 works)";
    if (c.aLoader == ALoader::Gather) {
        if (c.sLanes == 0 || c.bk % c.sLanes) return "BK must be a multiple of the gather lanes";
        if (c.threads() % (c.bm * c.sLanes))
            return "threads must be a multiple of BM x lanes (each thread gathers one row)";
    }
    if (c.aLoader == ALoader::Nhwc) {
        if (std::string why = detail::nhwcCanImplement(c, d, p); !why.empty()) return why;
    }
    if (c.tapsInner && c.aLoader != ALoader::Nhwc && c.aLoader != ALoader::Nchw)
        return "taps-inner K order needs the channels-last (nhwc) or NCHW loader";
    if (c.fragmentPrefetch && c.aLoader != ALoader::Nhwc) return "fragment prefetch needs the channels-last (nhwc) loader";
    if (std::string why = detail::splitKCanImplement(c, d, p); !why.empty()) return why;
    if (c.aLoader == ALoader::Nchw) {
        if (std::string why = detail::nchwCanImplement(c, d, p); !why.empty()) return why;
    }
    if (c.aLoader == ALoader::Packed && (c.stages > 2 || c.bGlobal || c.sLanes != 1))
        return "the packed loader takes one or two stages, no bglobal, no lanes";
    if (c.tilesPerWorkgroup > 1 && c.aLoader != ALoader::Packed)
        return "several tiles per workgroup need the packed loader (its subgroups keep B in registers)";
    if (c.tilesPerWorkgroup == 0) return "tilesPerWorkgroup must be >= 1";
    if (c.bRegisters() && (c.warpsM != 1 || c.bn != c.warpsN * c.mmaN))
        return "B in registers needs warpsM = 1 and BN = warpsN x the instruction's N";
    if (c.warpsM == 0 || c.warpsN == 0 || c.bm % (c.warpsM * c.mmaM) || c.bn % (c.warpsN * c.mmaN))
        return "tile is not a whole number of subgroup tiles";
    if (c.bk % c.mmaK) return "BK must be a multiple of the instruction's K";
    if (c.stages < 1 || c.stages > 4) return "stages must be 1..4";
    return "";
}

}  // namespace

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
    // Both fp32 kernels run at any subgroup size the device can give; the cooperative-matrix
    // kernels need theirs guaranteed (canImplementCoopMat).
    if (c.path == Path::Fp32 && c.subgroupSize != 0 && c.subgroupSize != d.subgroupSize &&
        !(d.subgroupSizeControl && c.subgroupSize >= d.minSubgroupSize && c.subgroupSize <= d.maxSubgroupSize))
        return "subgroup size " + std::to_string(c.subgroupSize) + " not available";
    if (c.splitK == 0) return "splitK must be >= 1";
    if (c.splitK != 1 && (c.path == Path::Fp32 || (c.aLoader != ALoader::Nhwc && c.aLoader != ALoader::Nchw)))
        return "split-K (splitK " + std::to_string(c.splitK) + ") needs the channels-last (nhwc) or NCHW loader";
    if (c.groupedDirect()) return detail::canImplementGroupedDirect(c, d, p);
    if (c.bm == 0 || c.bk == 0) return "BM and BK must be >= 1";
    // Divisors below: checked before any of them is used.
    if (c.path != Path::Fp32 && (c.mmaM == 0 || c.mmaN == 0 || c.mmaK == 0 || c.warpsM == 0 || c.warpsN == 0))
        return "the instruction shape and the subgroup counts must be >= 1";
    // B not staged, or the packed loader (its slices are whole kernel-row pieces): BK may be any
    // multiple of the MMA's K.
    const bool anyBk = c.path != Path::Fp32 && (c.bGlobal || c.aLoader == ALoader::Packed);
    if (!anyBk && !isPow2(c.bk)) return "BK must be a power of two";
    if (c.path != Path::Fp32 && c.bGlobal && c.bn % 8) return "bglobal needs BN a multiple of 8 (16-byte rows)";
    if (c.path == Path::Fp32 || c.aLoader == ALoader::Gather)
        if (!isPow2(c.bm)) return "BM must be a power of two";
    if (c.path != Path::Fp32 && c.aLoader == ALoader::Packed) {
        if (std::string why = detail::packedInputSupport(p); !why.empty()) return why;
        // The packed input of one image (and the tail) is bound as one buffer range.
        const auto layout = detail::packedInputLayout(p, c.bm, c.bk, c.mmaK);
        const uint64_t imageBytes = (layout.imageHalves() + layout.tailHalves(c.bm)) * 2;
        if (imageBytes > std::min<uint64_t>(d.maxStorageBufferRange, 1ull << 31))
            return "one image's packed input (" + std::to_string(imageBytes) +
                   " bytes) exceeds maxStorageBufferRange " + std::to_string(d.maxStorageBufferRange);
        // Each subgroup holds K / mmaK B fragments (on NVIDIA, 27 16x16 fragments are 108
        // registers a thread); beyond 64 the kernel would spill.
        const uint64_t fragments = layout.gemmK / c.mmaK;
        if (fragments > 64)
            return "B in registers would take " + std::to_string(fragments) + " fragments a subgroup (at most 64)";
    }
    if (c.bn == 0 || c.bn % 4) return "BN must be a multiple of 4";
    std::string why = c.path == Path::Fp32 ? canImplementFp32(c) : canImplementCoopMat(c, d, p);
    if (!why.empty()) return why;
    uint32_t threads = 0, shared = 0;
    try {
        threads = c.threads();
        shared = c.sharedMemoryBytes(p);
    } catch (const Error& e) {
        return e.what();
    }
    if (threads > d.maxWorkGroupInvocations)
        return std::to_string(threads) + " threads exceed maxComputeWorkGroupInvocations " +
               std::to_string(d.maxWorkGroupInvocations);
    if (shared > d.maxSharedMemoryBytes)
        return std::to_string(shared) + " bytes of shared memory exceed " + std::to_string(d.maxSharedMemoryBytes);
    const int64_t nTiles = (p.gemmN() + c.bn - 1) / c.bn;
    if (nTiles > d.maxWorkGroupCount[1])
        return std::to_string(nTiles) + " N tiles exceed maxComputeWorkGroupCount[1]";
    return "";
}

}  // namespace vkconv
