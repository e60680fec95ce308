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
    const CoopMatTiling& t = tiling(c);
    const uint32_t frags = (c.bm / t.warpsM / t.mmaM) * (c.bn / t.warpsN / t.mmaN);
    return !(c.bm % (t.warpsM * t.mmaM) || c.bn % (t.warpsN * t.mmaN) || frags == 0 || frags > 32);
}

std::string coopMatFieldRules(const KernelConfig& c) {
    const CoopMatTiling& t = tiling(c);
    if (c.bm == 0 || c.bk == 0) return "BM and BK must be >= 1";
    // Divisors of the rules that follow: checked before any of them is used.
    if (t.mmaM == 0 || t.mmaN == 0 || t.mmaK == 0 || t.warpsM == 0 || t.warpsN == 0)
        return "the instruction shape and the subgroup counts must be >= 1";
    return "";
}

std::string coopMatDeviceSupport(const KernelConfig& c, const DeviceInfo& d) {
    const CoopMatTiling& t = tiling(c);
    if (!d.coopMatKhr) return "device has no VK_KHR_cooperative_matrix";
    const ScalarType operand = operandType(c.path);
    if (operand == ScalarType::F16 && !(d.shaderFloat16 && d.storageBuffer16Bit))
        return "device lacks shaderFloat16 or storageBuffer16BitAccess";
    if (operand == ScalarType::BF16 && !d.shaderBFloat16) return "device lacks bf16 shader support";
    bool listed = false;
    for (const auto& s : d.coopMatShapes)
        listed |= s.m == t.mmaM && s.n == t.mmaN && s.k == t.mmaK && s.a == operand && s.b == operand &&
                  s.c == ScalarType::F32 && s.result == ScalarType::F32;
    if (!listed)
        return "device does not list the shape " + std::to_string(t.mmaM) + "x" + std::to_string(t.mmaN) + "x" +
               std::to_string(t.mmaK) + " " + toString(operand) + "->f32";
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
    const CoopMatTiling& t = tiling(c);
    if (t.warpsM == 0 || t.warpsN == 0 || c.bm % (t.warpsM * t.mmaM) || c.bn % (t.warpsN * t.mmaN))
        return "tile is not a whole number of subgroup tiles";
    if (c.bk % t.mmaK) return "BK must be a multiple of the instruction's K";
    if (t.stages < 1 || t.stages > 4) return "stages must be 1..4";
    return "";
}

uint32_t coopMatThreads(const KernelConfig& c) {
    const CoopMatTiling& t = tiling(c);
    const auto threads = checkedProductU64({t.warpsM, t.warpsN, c.subgroupSize});
    if (!threads || *threads > 0xffffffffull)
        throw invalidArgument("config threads",
                              "warpsM*warpsN*subgroupSize = " + std::to_string(t.warpsM) + "*" + std::to_string(t.warpsN) +
                                  "*" + std::to_string(c.subgroupSize),
                              "does not fit 32 bits");
    return uint32_t(*threads);
}

std::string coopMatNameHead(const KernelConfig& c) {
    const CoopMatTiling& t = tiling(c);
    std::ostringstream s;
    s << toString(c.path) << " " << c.bm << "x" << c.bn << "x" << c.bk << " warps " << t.warpsM << "x" << t.warpsN
      << " mma " << t.mmaM << "x" << t.mmaN << "x" << t.mmaK << " stages " << t.stages;
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
    const CoopMatTiling& t = tiling(c);
    // Same tile, other subgroup layouts; accumulator fragments per subgroup bounded as the
    // candidate lists bound them.
    std::vector<KernelConfig> out;
    for (uint32_t wm : {1u, 2u, 4u, 8u})
        for (uint32_t wn : {1u, 2u, 3u, 4u}) {
            if (wm == t.warpsM && wn == t.warpsN) continue;
            if (c.bm % (wm * t.mmaM) || c.bn % (wn * t.mmaN)) continue;
            const uint32_t frags = (c.bm / wm / t.mmaM) * (c.bn / wn / t.mmaN);
            if (frags == 0 || frags > 32) continue;
            KernelConfig v = c;
            tiling(v).warpsM = wm, tiling(v).warpsN = wn;
            out.push_back(v);
        }
    return out;
}

std::vector<KernelConfig> shapeNeighbours(const KernelConfig& c, const DeviceInfo& d, bool bRegisters) {
    const CoopMatTiling& t = tiling(c);
    std::vector<KernelConfig> out;
    for (const auto& s : operandShapes(c.path, d)) {
        if (s.m == t.mmaM && s.n == t.mmaN && s.k == t.mmaK) continue;
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
