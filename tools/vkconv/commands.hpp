// The subcommands of the vkconv tool. Each register function adds one subcommand (its flags
// and help) to the top-level app; when that subcommand is parsed, it stores in `action` what
// main() then runs, so that errors from the work itself are reported after parsing is done.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace vkconv::cli {

// Runs the parsed subcommand; returns the process exit status. May throw vkconv::Error.
using CommandAction = std::function<int()>;

// Exit statuses shared by the subcommands.
constexpr int kExitOk = 0;
constexpr int kExitCheckFailed = 1;  // ran, but the result is wrong (error above the bound, NaN)
constexpr int kExitError = 2;        // bad input or a failure before a result existed

void registerDevicesCommand(CLI::App& app, CommandAction& action);
void registerRunCommand(CLI::App& app, CommandAction& action);
void registerSweepCommand(CLI::App& app, CommandAction& action);

}  // namespace vkconv::cli
