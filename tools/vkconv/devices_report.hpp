// `vkconv devices --report [--run]`: per device and per profile (none, then every shipped one)
// the effective profile (limits, cooperative-matrix shapes), which paths are available and with
// what configuration alexnet1 at a small batch would run; with --run, a small problem set run on
// every available path, and a closing table of how many passed.
#pragma once

#include <string>

namespace vkconv::cli {

struct ReportOptions {
    bool run = false;     // run the problem set on every available path
    std::string profile;  // only this profile ("" : none and every shipped one)
    int device = -1;      // only this device (-1: all)
    bool validation = false;  // --run under the validation layer; any message fails the problem
};

// Prints the report; returns kExitOk, or kExitCheckFailed when --run had a failure.
int printDevicesReport(const ReportOptions& options);

}  // namespace vkconv::cli
