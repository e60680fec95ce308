// The fp32 grouped direct kernel (conv2d_grouped_direct.comp) for groups of few channels.
#include "kernels/families.hpp"

#include <cstdio>
#include <sstream>

#include "kernels/common/fp32_common.hpp"
#include "kernels/grouped_direct/grouped_direct.hpp"
#include "runtime/checked_math.hpp"

namespace vkconv::detail {

namespace {

class GroupedDirectFamily final : public KernelFamily {
public:
    const char* name() const override { return GroupedDirectKernel::kName; }

    bool owns(const KernelConfig& c) const override {
        return c.is<GroupedDirectKernel>();
    }

    // fp32 and fp16, NCHW and NHWC, read as they are by its "_io" module (conv2d_grouped_direct.comp);
    // bf16 is converted first.
    bool readsInput(const KernelConfig&, const TensorFormat& f) const override { return f.type != DataType::BF16; }

    void addCandidates(Path path, const DeviceInfo& d, const ConvProblem& p,
                       std::vector<KernelConfig>& out) const override {
        if (path != Path::Fp32) return;
        for (KernelConfig& c : groupedDirectCandidates(d, p)) out.push_back(std::move(c));
    }

    std::string canImplement(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const override {
        if (std::string why = fp32SubgroupRule(c, d); !why.empty()) return why;
        return canImplementGroupedDirect(c, d, p);
    }

    uint32_t threads(const KernelConfig& c) const override {
        return fitU32("threads", checkedProductU64({direct(c).threadsW, direct(c).threadsH, direct(c).groups}),
                      "threadsW*threadsH*groups = " + std::to_string(direct(c).threadsW) + "*" +
                          std::to_string(direct(c).threadsH) + "*" + std::to_string(direct(c).groups));
    }

    uint32_t sharedMemoryBytes(const KernelConfig& c, const ConvProblem& p) const override {
        return groupedDirectSharedBytes(c, p);
    }

    double cost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const override {
        return groupedDirectCost(c, d, p);
    }

    // The grouped direct kernel leads for the problems it serves: on every grouped layer measured it
    // took 0.2-0.6x the GEMM tile's time, while the two cost models, made for different kernels,
    // cross on tiny problems (N=1, 6x6) where launch and underfill dominate both. The GEMM tiles
    // stay in the list, for the sweep.
    int priority(const ConvProblem& p) const override { return groupedDirectServes(p) ? 1 : 0; }

    TileShape tileShape(const KernelConfig& c, const ConvProblem& p) const override {
        const GroupedDirectTile tile = groupedDirectTile(c, p);
        TileShape t;
        t.tileM = uint32_t(tile.outH * tile.outW), t.tileN = direct(c).channels;
        t.tilesPerImage = groupedDirectTilesPerImage(c, p);
        t.groupsPerWorkgroup = direct(c).groups * direct(c).groupSteps;
        return t;
    }

    PreparedKernel prepare(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p,
                           const float* weight) const override {
        return prepareGroupedDirectKernel(p, c, d, weight);
    }

    std::vector<std::string> shaders(const KernelConfig&) const override { return {"conv2d_grouped_direct"}; }

    std::string describe(const KernelConfig& c) const override {
        std::ostringstream s;
        s << "fp32 grouped-direct " << direct(c).threadsH * direct(c).rows << "x" << direct(c).threadsW * direct(c).vecW
          << " thread " << direct(c).rows << "x" << direct(c).vecW << " k" << direct(c).channels << " threads "
          << direct(c).threadsW << "x" << direct(c).threadsH;
        if (direct(c).groups != 1) s << " groups " << direct(c).groups;
        if (direct(c).groupSteps != 1) s << " serial " << direct(c).groupSteps;
        if (direct(c).fromMemory) s << " from-memory";
        if (c.subgroupSize) s << " sg" << c.subgroupSize;
        return s.str();
    }

    std::string note(const ConvProblem& p) const override { return groupedDirectNote(p); }

    std::string tileKey(const KernelConfig& c) const override {
        char key[160];
        std::snprintf(key, sizeof key, "grouped %ux%u c%u g%u", direct(c).rows * direct(c).threadsH,
                      direct(c).vecW * direct(c).threadsW, direct(c).channels, direct(c).groups);
        return key;
    }

    uint32_t diagnosticParts() const override { return 7; }  // input loads, arithmetic, stores

    NeighbourKinds neighbours(const KernelConfig& c, const DeviceInfo&) const override {
        return {{groupedDirectNeighbours(c), 5}};
    }
};

}  // namespace

const KernelFamily& groupedDirectFamily() {
    static const GroupedDirectFamily family;
    return family;
}

}  // namespace vkconv::detail
