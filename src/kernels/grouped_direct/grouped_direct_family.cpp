#include "kernels/grouped_direct/grouped_direct_family.hpp"

#include <cstdio>
#include <sstream>

#include "kernels/fp32_gemm/fp32_gemm_family.hpp"
#include "kernels/grouped_direct/grouped_direct.hpp"
#include "runtime/checked_math.hpp"

namespace vkconv::detail {

const char* GroupedDirectFamily::name() const { return "grouped-direct"; }

bool GroupedDirectFamily::owns(const KernelConfig& c) const {
    return c.path == Path::Fp32 && c.fp32Kernel == Fp32Kernel::GroupedDirect;
}

void GroupedDirectFamily::addCandidates(Path path, const DeviceInfo& d, const ConvProblem& p,
                                        std::vector<KernelConfig>& out) const {
    if (path != Path::Fp32) return;
    for (KernelConfig& c : groupedDirectCandidates(d, p)) out.push_back(std::move(c));
}

std::string GroupedDirectFamily::canImplement(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const {
    if (std::string why = fp32SubgroupRule(c, d); !why.empty()) return why;
    return canImplementGroupedDirect(c, d, p);
}

uint32_t GroupedDirectFamily::threads(const KernelConfig& c) const {
    return fitU32("threads", checkedProductU64({c.directThreadsW, c.directThreadsH, c.directGroups}),
                  "directThreadsW*directThreadsH*directGroups = " + std::to_string(c.directThreadsW) + "*" +
                      std::to_string(c.directThreadsH) + "*" + std::to_string(c.directGroups));
}

uint32_t GroupedDirectFamily::sharedMemoryBytes(const KernelConfig& c, const ConvProblem& p) const {
    return groupedDirectSharedBytes(c, p);
}

double GroupedDirectFamily::cost(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p) const {
    return groupedDirectCost(c, d, p);
}

// The grouped direct kernel leads for the problems it serves: on every grouped layer measured it
// took 0.2-0.6x the GEMM tile's time, while the two cost models, made for different kernels,
// cross on tiny problems (N=1, 6x6) where launch and underfill dominate both. The GEMM tiles
// stay in the list, for the sweep.
int GroupedDirectFamily::priority(const ConvProblem& p) const { return groupedDirectServes(p) ? 1 : 0; }

TileShape GroupedDirectFamily::tileShape(const KernelConfig& c, const ConvProblem& p) const {
    const GroupedDirectTile direct = groupedDirectTile(c, p);
    TileShape t;
    t.tileM = uint32_t(direct.outH * direct.outW), t.tileN = c.directChannels;
    t.tilesPerImage = groupedDirectTilesPerImage(c, p);
    t.groupsPerWorkgroup = c.directGroups * c.directGroupSteps;
    return t;
}

PreparedKernel GroupedDirectFamily::prepare(const KernelConfig& c, const DeviceInfo& d, const ConvProblem& p,
                                            const float* weight) const {
    return prepareGroupedDirectKernel(p, c, d, weight);
}

std::vector<std::string> GroupedDirectFamily::shaders(const KernelConfig&) const { return {"conv2d_grouped_direct"}; }

std::string GroupedDirectFamily::describe(const KernelConfig& c) const {
    std::ostringstream s;
    s << "fp32 grouped-direct " << c.directThreadsH * c.directRows << "x" << c.directThreadsW * c.directVecW
      << " thread " << c.directRows << "x" << c.directVecW << " k" << c.directChannels << " threads "
      << c.directThreadsW << "x" << c.directThreadsH;
    if (c.directGroups != 1) s << " groups " << c.directGroups;
    if (c.directGroupSteps != 1) s << " serial " << c.directGroupSteps;
    if (c.directFromMemory) s << " from-memory";
    if (c.debugSkip) s << " DEBUG-SKIP " << c.debugSkip;
    if (c.subgroupSize) s << " sg" << c.subgroupSize;
    return s.str();
}

std::string GroupedDirectFamily::note(const ConvProblem& p) const { return groupedDirectNote(p); }

std::string GroupedDirectFamily::tileKey(const KernelConfig& c) const {
    char key[160];
    std::snprintf(key, sizeof key, "grouped %ux%u c%u g%u", c.directRows * c.directThreadsH,
                  c.directVecW * c.directThreadsW, c.directChannels, c.directGroups);
    return key;
}

NeighbourKinds GroupedDirectFamily::neighbours(const KernelConfig& c, const DeviceInfo&) const {
    return {{groupedDirectNeighbours(c), 5}};
}

}  // namespace vkconv::detail
