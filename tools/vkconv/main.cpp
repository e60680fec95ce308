// vkconv: the command-line tool. Registers the subcommands, parses, runs the chosen one, and
// turns every failure into one line on stderr ("vkconv: error: ...") and a non-zero exit.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <exception>
#include <functional>
#include <vector>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "vkconv/error.hpp"

namespace {

// Messages may carry newlines (validation-layer text, CLI11's lists); the contract is one line.
std::string oneLine(std::string s) {
    for (char& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

int reportError(const std::string& message, int status) {
    std::cout.flush();
    std::cerr << "vkconv: error: " << oneLine(message) << std::endl;
    return status;
}

std::vector<std::string> commandNames(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands(std::function<bool(const CLI::App*)>()))
        names.push_back(sub->get_name());
    return names;
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace vkconv::cli;
    try {
        CLI::App app{"vkconv: conv2d as implicit GEMM on any Vulkan 1.3 device", "vkconv"};
        app.require_subcommand(1);
        app.failure_message([](const CLI::App*, const CLI::Error& e) {
            return "vkconv: error: " + oneLine(e.what()) + "\n";
        });

        CommandAction action;
        registerDevicesCommand(app, action);
        registerRunCommand(app, action);
        registerSweepCommand(app, action);

        // CLI11 reports a mistyped command as "A subcommand is required"; name it instead.
        const auto names = commandNames(app);
        if (argc < 2)
            return reportError("no command given (commands: " + join(names) + "; --help lists them)",
                               kExitError);
        if (argv[1][0] != '-' && std::find(names.begin(), names.end(), argv[1]) == names.end())
            return reportError(std::string("unknown command '") + argv[1] + "' (commands: " +
                                   join(names) + "; --help lists them)",
                               kExitError);
        try {
            app.parse(argc, argv);
        } catch (const CLI::ParseError& e) {
            return app.exit(e);  // --help prints and exits 0; the rest print the one error line
        }
        return action ? action() : kExitError;
    } catch (const vkconv::Error& e) {
        return reportError(e.what(), kExitError);
    } catch (const std::exception& e) {
        return reportError(std::string("unexpected failure: ") + e.what(), kExitError);
    } catch (...) {
        return reportError("unexpected failure of unknown type", kExitError);
    }
}
