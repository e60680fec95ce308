// kernel-lab --device-file (offline_rank.hpp).
#include "offline_rank.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "config_filter.hpp"
#include "select/config_select.hpp"
#include "runtime/json_limits.hpp"
#include "shapes.hpp"
#include "vkconv/device_profile.hpp"
#include "vkconv/error.hpp"
#include "vkconv/kernel_config.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv::lab {

DeviceInfo loadDeviceFile(const std::string& file, int index) {
    if (index < 0) throw invalidArgument("--device-index", index, "must be >= 0");
    const std::string text = detail::readJsonFile(file, "device file", detail::kDeviceJsonLimits);
    try {
        return deviceInfoFromJson(text, size_t(index));
    } catch (const Error& e) {
        throw Error(e.kind(), "device file " + file + ": " + e.what());
    }
}

namespace {

struct NamedProblem {
    std::string name;
    ConvProblem problem;
};

// Prints one problem's ranking; false if the path has no configuration for it.
bool printRanking(const NamedProblem& np, const DeviceInfo& device, const std::string& pathName, size_t top,
                  bool oneLine, const std::string& filter) {
    const Path path = pathName.empty() ? resolvePath(Precision::Fast, device, np.problem) : pathFromString(pathName);
    const std::string label = np.name.empty() ? "" : np.name + "  ";
    try {
        const auto weighed = detail::selectConfig(path, device, np.problem).weighed;
        // Ranks (from 1) of the configurations the filter keeps, cheapest first.
        std::vector<size_t> kept;
        for (size_t i = 0; i < weighed.size() && kept.size() < top; ++i)
            if (matchesFilter(weighed[i].first.str(), filter)) kept.push_back(i + 1);
        if (oneLine) {
            const std::string shape = bench::shortProblem(np.problem);
            if (kept.empty()) {
                std::printf("%-32s %-36s none of %zu matches the filter\n", np.name.c_str(), shape.c_str(), weighed.size());
                return true;
            }
            // The pick, or with a filter its best match and that one's rank.
            const std::string rank = filter.empty() ? "" : "#" + std::to_string(kept.front()) + " ";
            std::printf("%-32s %-36s %s%s\n", np.name.c_str(), shape.c_str(), rank.c_str(),
                        weighed[kept.front() - 1].first.str().c_str());
            return true;
        }
        std::printf("%sproblem: %s  (%zu candidates)\n", label.c_str(), np.problem.str().c_str(), weighed.size());
        for (size_t rank : kept)
            std::printf("%5zu  cost %-12.6g %s\n", rank, weighed[rank - 1].second, weighed[rank - 1].first.str().c_str());
        if (kept.empty()) std::printf("  none of them matches the filter\n");
        return true;
    } catch (const Error& e) {
        if (e.kind() != Error::Kind::Unsupported) throw;
        std::printf("%-32s %-36s no configuration: %s\n", np.name.c_str(), bench::shortProblem(np.problem).c_str(),
                    e.what());
        return false;
    }
}

}  // namespace

int rankOffline(const OfflineRequest& r) {
    DeviceInfo device = loadDeviceFile(r.deviceFile, r.deviceIndex);
    if (!r.profile.empty()) device = applyProfile(device, DeviceProfile::byName(r.profile));
    std::vector<NamedProblem> problems;
    if (r.suite.empty()) {
        problems.push_back({"", r.problem});
    } else {
        const auto catalog = bench::loadShapes(bench::findShapesFile(r.shapesFile, r.argv0));
        for (const auto& s : r.suite == "all" ? catalog.shapes : bench::suiteShapes(catalog, r.suite)) {
            ConvProblem p = s.problem;
            if (r.batch >= 0) p.batch = r.batch;
            p.validate();
            problems.push_back({r.suite == "all" ? s.suite + "/" + s.name : s.name, p});
        }
    }
    const bool suite = !r.suite.empty();
    const size_t top = r.top ? r.top : suite ? 1 : 10;
    std::printf("device: %s (%s), described by %s%s; the heuristic's ranking (no tuning cache), nothing runs\n",
                device.name.c_str(), device.driverInfo.c_str(), r.deviceFile.c_str(),
                r.profile.empty() ? "" : (", profile " + r.profile).c_str());
    bool all = true;
    for (const auto& np : problems) all = printRanking(np, device, r.path, top, suite && top == 1, r.filter) && all;
    return all ? 0 : 1;
}

}  // namespace vkconv::lab
