#include "kernels/common/coopmat_common.hpp"

#include <sstream>
#include <utility>

#include "runtime/checked_math.hpp"
#include "vkconv/error.hpp"

namespace vkconv::detail {

bool isCoopMatPath(Path path) { return path == Path::CoopMatF16; }

ScalarType operandType(Path) { return ScalarType::F16; }

const CoopMatTiling& tiling(const KernelConfig& c) {
    if (const CoopMatTiling* t = c.coopMat()) return *t;
    throw invalidArgument("config.params", c.kernel(), "is not a cooperative-matrix kernel's");
}

CoopMatTiling& tiling(KernelConfig& c) { return const_cast<CoopMatTiling&>(tiling(std::as_const(c))); }

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
    const uint32_t frags = (c.bm / tiling(c).warpsM / tiling(c).mmaM) * (c.bn / tiling(c).warpsN / tiling(c).mmaN);
    return !(c.bm % (tiling(c).warpsM * tiling(c).mmaM) || c.bn % (tiling(c).warpsN * tiling(c).mmaN) || frags == 0 || frags > 32);
}

std::string coopMatFieldRules(const KernelConfig& c) {
    if (c.bm == 0 || c.bk == 0) return "BM and BK must be >= 1";
    // Divisors of the rules that follow: checked before any of them is used.
    if (tiling(c).mmaM == 0 || tiling(c).mmaN == 0 || tiling(c).mmaK == 0 || tiling(c).warpsM == 0 || tiling(c).warpsN == 0)
        return "the instruction shape and the subgroup counts must be >= 1";
    return "";
}

std::string coopMatDeviceSupport(const KernelConfig& c, const DeviceInfo& d) {
    if (!d.coopMatKhr) return "device has no VK_KHR_cooperative_matrix";
    const ScalarType operand = operandType(c.path);
    if (operand == ScalarType::F16 && !(d.shaderFloat16 && d.storageBuffer16Bit))
        return "device lacks shaderFloat16 or storageBuffer16BitAccess";
    if (operand == ScalarType::BF16 && !d.shaderBFloat16) return "device lacks bf16 shader support";
    bool listed = false;
    for (const auto& s : d.coopMatShapes)
        listed |= s.m == tiling(c).mmaM && s.n == tiling(c).mmaN && s.k == tiling(c).mmaK && s.a == operand && s.b == operand &&
                  s.c == ScalarType::F32 && s.result == ScalarType::F32;
    if (!listed)
        return "device does not list the shape " + std::to_string(tiling(c).mmaM) + "x" + std::to_string(tiling(c).mmaN) + "x" +
               std::to_string(tiling(c).mmaK) + " " + toString(operand) + "->f32";
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
    if (tiling(c).warpsM == 0 || tiling(c).warpsN == 0 || c.bm % (tiling(c).warpsM * tiling(c).mmaM) || c.bn % (tiling(c).warpsN * tiling(c).mmaN))
        return "tile is not a whole number of subgroup tiles";
    if (c.bk % tiling(c).mmaK) return "BK must be a multiple of the instruction's K";
    if (tiling(c).stages < 1 || tiling(c).stages > 4) return "stages must be 1..4";
    return "";
}

uint32_t coopMatThreads(const KernelConfig& c) {
    const auto threads = checkedProductU64({tiling(c).warpsM, tiling(c).warpsN, c.subgroupSize});
    if (!threads || *threads > 0xffffffffull)
        throw invalidArgument("config threads",
                              "warpsM*warpsN*subgroupSize = " + std::to_string(tiling(c).warpsM) + "*" + std::to_string(tiling(c).warpsN) +
                                  "*" + std::to_string(c.subgroupSize),
                              "does not fit 32 bits");
    return uint32_t(*threads);
}

std::string coopMatNameHead(const KernelConfig& c) {
    std::ostringstream s;
    s << toString(c.path) << " " << c.bm << "x" << c.bn << "x" << c.bk << " warps " << tiling(c).warpsM << "x" << tiling(c).warpsN
      << " mma " << tiling(c).mmaM << "x" << tiling(c).mmaN << "x" << tiling(c).mmaK << " stages " << tiling(c).stages;
    return s.str();
}

std::string coopMatNameTail(const KernelConfig& c) {
    std::string s;
    if (c.splits() != 1) s += " split-k " + std::to_string(c.splits());
    if (c.subgroupSize) s += " sg" + std::to_string(c.subgroupSize);
    return s;
}

namespace {

std::vector<KernelConfig> stageNeighbours(const KernelConfig& c) {
    std::vector<KernelConfig> out;
    for (int delta : {-1, 1}) {
        KernelConfig v = c;
        tiling(v).stages = uint32_t(int(tiling(c).stages) + delta);
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
            if (wm == tiling(c).warpsM && wn == tiling(c).warpsN) continue;
            if (c.bm % (wm * tiling(c).mmaM) || c.bn % (wn * tiling(c).mmaN)) continue;
            const uint32_t frags = (c.bm / wm / tiling(c).mmaM) * (c.bn / wn / tiling(c).mmaN);
            if (frags == 0 || frags > 32) continue;
            KernelConfig v = c;
            tiling(v).warpsM = wm, tiling(v).warpsN = wn;
            out.push_back(v);
        }
    return out;
}

std::vector<KernelConfig> shapeNeighbours(const KernelConfig& c, const DeviceInfo& d, bool bRegisters) {
    std::vector<KernelConfig> out;
    for (const auto& s : operandShapes(c.path, d)) {
        if (s.m == tiling(c).mmaM && s.n == tiling(c).mmaN && s.k == tiling(c).mmaK) continue;
        KernelConfig v = c;
        tiling(v).mmaM = s.m, tiling(v).mmaN = s.n, tiling(v).mmaK = s.k;
        if (bRegisters) {  // one subgroup per MMA_N columns
            if (c.bn % s.n) continue;
            tiling(v).warpsN = c.bn / s.n;
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
