// The portability suite's summary: one row per device x profile x path (problems ran, passed,
// skipped, and why), printed once every test is done by a GoogleTest environment.
#include <gtest/gtest.h>

#include <cstdio>
#include <mutex>
#include <sstream>
#include <vector>

#include "portability_cases.hpp"

namespace vkconv::test {

namespace {

std::mutex ledgerMutex;
std::vector<LedgerRow>& ledger() {
    static auto* rows = new std::vector<LedgerRow>();  // read by the environment's TearDown
    return *rows;
}

// Prints the ledger once all tests are done (nothing when no portability case ran).
class PortabilitySummary : public ::testing::Environment {
public:
    void TearDown() override {
        std::lock_guard<std::mutex> lock(ledgerMutex);
        if (ledger().empty()) return;
        std::string validation;
        portabilityValidation(&validation);
        std::ostringstream s;
        s << "\n[portability] summary: problems ran / passed / skipped per device x profile x path"
          << "\n[portability] validation layer: " << validation << "\n";
        char line[512];
        std::snprintf(line, sizeof line, "%-44s %-15s %-26s %4s %6s %7s  %s\n", "device", "profile", "path",
                      "ran", "passed", "skipped", "note");
        s << line;
        for (const auto& r : ledger()) {
            if (r.pathSkipped)
                std::snprintf(line, sizeof line, "%-44.44s %-15s %-26s %4s %6s %7s  SKIPPED: %s\n", r.device.c_str(),
                              r.profile.c_str(), r.path.c_str(), "-", "-", "path", r.note.c_str());
            else
                std::snprintf(line, sizeof line, "%-44.44s %-15s %-26s %4d %6d %7d  %s\n", r.device.c_str(),
                              r.profile.c_str(), r.path.c_str(), r.ran, r.passed, r.skipped, r.note.c_str());
            s << line;
        }
        std::fputs(s.str().c_str(), stdout);
        std::fflush(stdout);
    }
};

[[maybe_unused]] ::testing::Environment* const summaryEnvironment =
    ::testing::AddGlobalTestEnvironment(new PortabilitySummary);

}  // namespace

void recordLedger(const LedgerRow& row) {
    std::lock_guard<std::mutex> lock(ledgerMutex);
    ledger().push_back(row);
}

}  // namespace vkconv::test
