// The candidate set: every configuration of a path, from each kernel family in the registry's
// order, that can_implement accepts for a problem on a device. `vkconv sweep` times from it and
// the heuristic (config_select.cpp) ranks it.
#include "kernels/kernel_family.hpp"
#include "select/config_select.hpp"

namespace vkconv::detail {

namespace {

// Every configuration the path's families enumerate for the problem, before can_implement.
std::vector<KernelConfig> unfilteredCandidates(Path path, const DeviceInfo& d, const ConvProblem& p) {
    std::vector<KernelConfig> out;
    for (const KernelFamily* family : kernelFamilies()) family->addCandidates(path, d, p, out);
    return out;
}

}  // namespace

std::vector<KernelConfig> candidateConfigs(Path path, const DeviceInfo& d, const ConvProblem& p) {
    std::vector<KernelConfig> out;
    for (auto& c : unfilteredCandidates(path, d, p))
        if (canImplement(c, d, p).empty()) out.push_back(std::move(c));
    return out;
}

bool anyCandidateFits(Path path, const DeviceInfo& d, const ConvProblem& p) {
    if (path != Path::Fp32 && !d.coopMatKhr) return false;
    for (const auto& c : unfilteredCandidates(path, d, p))
        if (canImplement(c, d, p).empty()) return true;
    return false;
}

std::string firstCandidateRefusal(Path path, const DeviceInfo& d, const ConvProblem& p) {
    const auto all = unfilteredCandidates(path, d, p);
    return all.empty() ? std::string() : all.front().str() + ": " + canImplement(all.front(), d, p);
}

}  // namespace vkconv::detail
