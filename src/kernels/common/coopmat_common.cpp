#include "kernels/common/coopmat_common.hpp"

#include <sstream>

#include "runtime/checked_math.hpp"
#include "vkconv/error.hpp"

namespace vkconv::detail {

bool isCoopMatPath(Path path) { return path == Path::CoopMatF16 || path == Path::CoopMatBF16; }

ScalarType operandType(Path path) { return path == Path::CoopMatF16 ? ScalarType::F16 : ScalarType::BF16; }

std::vector<CoopMatShape> operandShapes(Path path, const DeviceInfo& d) {
    const ScalarType operand = operandType(path);
    std::vector<CoopMatShape> out;
    for (const auto& s : d.coopMatShapes)
        if (s.a == operand && s.b == operand && s.c == ScalarType::F32 && s.result == ScalarType::F32) out.push_back(s);
    return out;
}

std::vector<uint32_t> candidateSubgroupSizes(const DeviceInfo& d) {
    std::vector<uint32_t> sizes{d.subgroupSize};
    if (d.subgroupSizeControl)
        for (uint32_t s = d.minSubgroupSize; s <= d.maxSubgroupSize; s *= 2)
            if (s != d.subgroupSize) sizes.push_back(s);
    return sizes;
}

bool warpTilesBounded(const KernelConfig& c) {
    const uint32_t frags = (c.bm / c.warpsM / c.mmaM) * (c.bn / c.warpsN / c.mmaN);
    return !(c.bm % (c.warpsM * c.mmaM) || c.bn % (c.warpsN * c.mmaN) || frags == 0 || frags > 32);
}

std::string coopMatFieldRules(const KernelConfig& c, bool splitsK) {
    if (!splitsK && c.splitK != 1)
        return "split-K (splitK " + std::to_string(c.splitK) + ") needs the channels-last (nhwc) or NCHW loader";
    if (c.bm == 0 || c.bk == 0) return "BM and BK must be >= 1";
    // Divisors of the rules that follow: checked before any of them is used.
    if (c.mmaM == 0 || c.mmaN == 0 || c.mmaK == 0 || c.warpsM == 0 || c.warpsN == 0)
        return "the instruction shape and the subgroup counts must be >= 1";
    return "";
}

std::string coopMatDeviceSupport(const KernelConfig& c, const DeviceInfo& d) {
    if (!d.coopMatKhr) return "device has no VK_KHR_cooperative_matrix";
    // The bf16 path has its enum, bound and shape matching, but no shader yet: Debian 13's
    // glslang 15.1 lacks GL_EXT_bfloat16. Refuse it rather than run the f16 shader on bf16 data.
    if (c.path == Path::CoopMatBF16)
        return "vkconv has no bf16 kernel yet (its GLSL compiler lacks GL_EXT_bfloat16)";
    const ScalarType operand = operandType(c.path);
    if (operand == ScalarType::F16 && !(d.shaderFloat16 && d.storageBuffer16Bit))
        return "device lacks shaderFloat16 or storageBuffer16BitAccess";
    if (operand == ScalarType::BF16 && !d.shaderBFloat16) return "device lacks bf16 shader support";
    bool listed = false;
    for (const auto& s : d.coopMatShapes)
        listed |= s.m == c.mmaM && s.n == c.mmaN && s.k == c.mmaK && s.a == operand && s.b == operand &&
                  s.c == ScalarType::F32 && s.result == ScalarType::F32;
    if (!listed)
        return "device does not list the shape " + std::to_string(c.mmaM) + "x" + std::to_string(c.mmaN) + "x" +
               std::to_string(c.mmaK) + " " + toString(operand) + "->f32";
    // The kernels map subgroups to warp tiles, so the subgroup size must be guaranteed: either
    // required through subgroup size control, or the only size the device has.
    if (c.subgroupSize == 0) return "cooperative-matrix configs name their subgroup size";
    const bool required = d.subgroupSizeControl && d.computeFullSubgroups && c.subgroupSize >= d.minSubgroupSize &&
                          c.subgroupSize <= d.maxSubgroupSize;
    const bool fixed = d.minSubgroupSize == d.maxSubgroupSize && c.subgroupSize == d.subgroupSize;
    if (!required && !fixed) return "subgroup size " + std::to_string(c.subgroupSize) + " cannot be guaranteed";
    // A driver bug, not a limit: Mesa's lavapipe (seen in Mesa 26.1.6 with LP_NATIVE_VECTOR_WIDTH=512)
    // crashes inside vkCreateComputePipelines on any cooperative-matrix shader at subgroup size 16,
    // even a lone 8x8x8 f16 multiply-add. At subgroup size 4 it turns cooperativeMatrix off itself.
    if (d.vendorId == 0x10005 && d.driverName == "llvmpipe" && c.subgroupSize > 8)
        return "lavapipe crashes compiling cooperative-matrix shaders at subgroup size " +
               std::to_string(c.subgroupSize) + " (Mesa driver bug; size 8 works)";
    return "";
}

std::string coopMatTileRules(const KernelConfig& c) {
    if (c.tilesPerWorkgroup == 0) return "tilesPerWorkgroup must be >= 1";
    if (c.warpsM == 0 || c.warpsN == 0 || c.bm % (c.warpsM * c.mmaM) || c.bn % (c.warpsN * c.mmaN))
        return "tile is not a whole number of subgroup tiles";
    if (c.bk % c.mmaK) return "BK must be a multiple of the instruction's K";
    if (c.stages < 1 || c.stages > 4) return "stages must be 1..4";
    return "";
}

uint32_t coopMatThreads(const KernelConfig& c) {
    const auto threads = checkedProductU64({c.warpsM, c.warpsN, c.subgroupSize});
    if (!threads || *threads > 0xffffffffull)
        throw invalidArgument("config threads",
                              "warpsM*warpsN*subgroupSize = " + std::to_string(c.warpsM) + "*" + std::to_string(c.warpsN) +
                                  "*" + std::to_string(c.subgroupSize),
                              "does not fit 32 bits");
    return uint32_t(*threads);
}

std::string coopMatNameHead(const KernelConfig& c) {
    std::ostringstream s;
    s << toString(c.path) << " " << c.bm << "x" << c.bn << "x" << c.bk << " warps " << c.warpsM << "x" << c.warpsN
      << " mma " << c.mmaM << "x" << c.mmaN << "x" << c.mmaK << " stages " << c.stages;
    return s.str();
}

std::string coopMatNameTail(const KernelConfig& c) {
    std::string s;
    if (c.splitK != 1) s += " split-k " + std::to_string(c.splitK);
    if (c.subgroupSize) s += " sg" + std::to_string(c.subgroupSize);
    return s;
}

namespace {

std::vector<KernelConfig> stageNeighbours(const KernelConfig& c) {
    std::vector<KernelConfig> out;
    for (int delta : {-1, 1}) {
        KernelConfig v = c;
        v.stages = uint32_t(int(c.stages) + delta);
        out.push_back(v);
    }
    return out;
}

std::vector<KernelConfig> warpLayoutNeighbours(const KernelConfig& c) {
    // Same tile, other subgroup layouts; accumulator fragments per subgroup bounded as the
    // candidate lists bound them.
    std::vector<KernelConfig> out;
    for (uint32_t wm : {1u, 2u, 4u, 8u})
        for (uint32_t wn : {1u, 2u, 3u, 4u}) {
            if (wm == c.warpsM && wn == c.warpsN) continue;
            if (c.bm % (wm * c.mmaM) || c.bn % (wn * c.mmaN)) continue;
            const uint32_t frags = (c.bm / wm / c.mmaM) * (c.bn / wn / c.mmaN);
            if (frags == 0 || frags > 32) continue;
            KernelConfig v = c;
            v.warpsM = wm, v.warpsN = wn;
            out.push_back(v);
        }
    return out;
}

std::vector<KernelConfig> shapeNeighbours(const KernelConfig& c, const DeviceInfo& d, bool bRegisters) {
    std::vector<KernelConfig> out;
    for (const auto& s : operandShapes(c.path, d)) {
        if (s.m == c.mmaM && s.n == c.mmaN && s.k == c.mmaK) continue;
        KernelConfig v = c;
        v.mmaM = s.m, v.mmaN = s.n, v.mmaK = s.k;
        if (bRegisters) {  // one subgroup per MMA_N columns
            if (c.bn % s.n) continue;
            v.warpsN = c.bn / s.n;
        }
        out.push_back(v);
    }
    return out;
}

std::vector<KernelConfig> subgroupNeighbours(const KernelConfig& c, const DeviceInfo& d) {
    std::vector<KernelConfig> out;
    if (d.subgroupSizeControl)
        for (uint32_t s = d.minSubgroupSize; s && s <= d.maxSubgroupSize; s *= 2)
            if (s != c.subgroupSize) {
                KernelConfig v = c;
                v.subgroupSize = s;
                out.push_back(v);
            }
    return out;
}

}  // namespace

NeighbourKinds coopMatNeighbours(const KernelConfig& c, const DeviceInfo& d, bool bRegisters, OwnNeighbours own) {
    return {{stageNeighbours(c), 2},
            {warpLayoutNeighbours(c), 2},
            {std::move(own.tiles), 2},
            {std::move(own.splits), 1},
            {shapeNeighbours(c, d, bRegisters), 1},
            {std::move(own.alternative), 1},
            {std::move(own.prefetch), 1},
            {std::move(own.lanes), 0},
            {subgroupNeighbours(c, d), 0}};
}

}  // namespace vkconv::detail
