#include "kernels/common/workgroup_limits.hpp"

#include "vkconv/error.hpp"

namespace vkconv::detail {

std::string workgroupLimits(const KernelFamily& family, const KernelConfig& c, const DeviceInfo& d,
                            const ConvProblem& p) {
    uint32_t threads = 0, shared = 0;
    try {
        threads = family.threads(c);
        shared = family.sharedMemoryBytes(c, p);
    } catch (const Error& e) {
        return e.what();
    }
    if (threads > d.maxWorkGroupInvocations)
        return std::to_string(threads) + " threads exceed maxComputeWorkGroupInvocations " +
               std::to_string(d.maxWorkGroupInvocations);
    if (shared > d.maxSharedMemoryBytes)
        return std::to_string(shared) + " bytes of shared memory exceed " + std::to_string(d.maxSharedMemoryBytes);
    const int64_t nTiles = (p.gemmN() + c.bn - 1) / c.bn;
    if (nTiles > d.maxWorkGroupCount[1]) return std::to_string(nTiles) + " N tiles exceed maxComputeWorkGroupCount[1]";
    return "";
}

}  // namespace vkconv::detail
