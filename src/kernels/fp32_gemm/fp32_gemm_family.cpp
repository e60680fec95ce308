// The portable fp32 implicit GEMM (conv2d_fp32.comp): any problem on any Vulkan device.
#include "kernels/families.hpp"

#include <cstdio>
#include <sstream>

#include "kernels/common/fp32_common.hpp"
#include "kernels/common/workgroup_limits.hpp"
#include "kernels/common/device_fill.hpp"
#include "runtime/checked_math.hpp"

namespace vkconv::detail {

namespace {

class Fp32GemmFamily final : public KernelFamily {
public:
    const char* name() const override { return Fp32GemmKernel::kName; }

    bool owns(const KernelConfig& c) const override { return c.is<Fp32GemmKernel>(); }

    void addCandidates(Path path, const DeviceInfo&, const ConvProblem&, std::vector<KernelConfig>& out) const override {
        if (path != Path::Fp32) return;
        // (BM, BN, BK, TM, TN): square-ish tiles for wide layers, thin BN for few output channels per
        // group (depthwise), all with threads a multiple of BM.
        const uint32_t shapes[][5] = {
            {128, 64, 8, 8, 4}, {64, 64, 8, 4, 4},  {64, 32, 16, 4, 2}, {32, 32, 8, 2, 2},
            {128, 32, 8, 4, 4}, {128, 16, 8, 4, 2}, {64, 16, 8, 2, 2},  {64, 8, 16, 2, 2},
            {64, 4, 16, 1, 4},  {128, 4, 16, 2, 4}, {32, 16, 8, 1, 2}, {64, 128, 8, 4, 8},
            // 128 threads, for devices at the spec minimum of invocations per workgroup.
            {64, 32, 8, 4, 4},  {32, 32, 8, 4, 2},  {32, 16, 16, 2, 2},
        };
        for (const auto& s : shapes) {
            KernelConfig c;
            c.path = Path::Fp32;
            c.bm = s[0], c.bn = s[1], c.bk = s[2];
            c.params = Fp32GemmKernel{s[3], s[4]};
            out.push_back(c);
        }
    }

    std::string canImplement(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const override {
        if (std::string why = fp32SubgroupRule(c, d); !why.empty()) return why;
        if (c.bm == 0 || c.bk == 0) return "BM and BK must be >= 1";
        if (!isPowerOfTwo(c.bk)) return "BK must be a power of two";
        if (!isPowerOfTwo(c.bm)) return "BM must be a power of two";
        if (c.bn == 0 || c.bn % 4) return "BN must be a multiple of 4";
        const auto& k = c.as<Fp32GemmKernel>();
        if (k.tm == 0 || k.tn == 0 || c.bm % k.tm || c.bn % k.tn)
            return "tile " + std::to_string(c.bm) + "x" + std::to_string(c.bn) + " is not a whole number of thread tiles";
        if (threads(c) % c.bm) return "threads must be a multiple of BM (each thread gathers one row)";
        return workgroupLimits(*this, c, d, p);
    }

    uint32_t threads(const KernelConfig& c) const override {
        const auto& k = c.as<Fp32GemmKernel>();
        if (k.tm == 0) throw invalidArgument("config.tm", k.tm, "must be >= 1");
        if (k.tn == 0) throw invalidArgument("config.tn", k.tn, "must be >= 1");
        return fitU32("threads", checkedProductU64({c.bm / k.tm, c.bn / k.tn}),
                      std::to_string(c.bm / k.tm) + "*" + std::to_string(c.bn / k.tn));
    }

    uint32_t sharedMemoryBytes(const KernelConfig& c, const ConvProblem&) const override {
        using u128 = unsigned __int128;
        const u128 bytes = (u128(c.bk) * c.bm + u128(c.bk) * c.bn) * 4;
        return fitU32("shared memory bytes", bytes > u128(~0ull) ? std::nullopt : std::optional<uint64_t>(uint64_t(bytes)),
                      describe(c));
    }

    double cost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const override {
        const TileGrid grid = tileGrid(c, d, p);
        const auto& k = c.as<Fp32GemmKernel>();
        const double factor = 1.0 + 1.0 / k.tm + 1.0 / k.tn;
        return paddedGemmWork(c, grid, p) * factor * (grid.underfilled() ? grid.slots / grid.workgroups : 1.0);
    }

    PreparedKernel prepare(const KernelConfig& c, const DeviceInfo&, const ConvProblem& p,
                           const float* weight) const override {
        return prepareFp32Kernel(p, c, weight);
    }

    std::vector<std::string> shaders(const KernelConfig&) const override { return {"conv2d_fp32"}; }

    std::string describe(const KernelConfig& c) const override {
        std::ostringstream s;
        s << "fp32 " << c.bm << "x" << c.bn << "x" << c.bk << " thread " << c.as<Fp32GemmKernel>().tm << "x"
          << c.as<Fp32GemmKernel>().tn;
        if (c.subgroupSize) s << " sg" << c.subgroupSize;
        return s.str();
    }

    std::string tileKey(const KernelConfig& c) const override {
        char key[96];
        std::snprintf(key, sizeof key, "%s %ux%ux%u", name(), c.bm, c.bn, c.bk);
        return key;
    }

    uint32_t diagnosticParts() const override { return 0; }  // conv2d_fp32.comp has no DEBUG_SKIP

    NeighbourKinds neighbours(const KernelConfig& c, const DeviceInfo&) const override {
        std::vector<KernelConfig> out;  // the same tile, other thread tiles
        for (uint32_t tm : {1u, 2u, 4u, 8u})
            for (uint32_t tn : {1u, 2u, 4u, 8u}) {
                if (tm == c.as<Fp32GemmKernel>().tm && tn == c.as<Fp32GemmKernel>().tn) continue;
                KernelConfig v = c;
                v.params = Fp32GemmKernel{tm, tn};
                out.push_back(v);
            }
        return {{out, 5}};
    }
};

}  // namespace

const KernelFamily& fp32GemmFamily() {
    static const Fp32GemmFamily family;
    return family;
}

}  // namespace vkconv::detail
