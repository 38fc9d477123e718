// The command line of the augur-bench-* programs: augur's CLI conventions (apps/cli/augur_cli.hpp:
// --help on standard output with exit status 0, --version with the commit, a bad option named on
// standard error with exit status 2) and --json FILE, where the program writes its result file
// (result_file.hpp). Offline benchmark code: allocates freely.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <thread>

#include "augur/bench/result_file.hpp"
#include "augur/platform/gpu_info.hpp"
#include "augur/platform/host_info.hpp"
#include "augur_cli.hpp"

namespace augur::bench {

/// Adds --json FILE to `app`, bound to `path` (empty: no result file).
inline void addJsonOption(CLI::App& app, std::string& path) {
    app.add_option("--json", path,
                   "also write the results as JSON (docs/results/<family>.json's format; scripts/bench-tables reads it)")
        ->type_name("FILE");
}

/// Parses main()'s arguments into `app`'s variables after useConventions(app). Returns the exit status
/// when the program ends here (help or version printed: 0; a bad option, printed with its name: 2), or
/// nothing when the benchmark should run.
[[nodiscard]] inline std::optional<int> parseArguments(CLI::App& app, int argc, const char* const* argv) {
    namespace cli = apps::cli;
    const auto parsed = cli::parse(app, argc, argv);
    if (parsed.hasError()) {
        std::fprintf(stderr, "%s: %s\nRun with --help for the options.\n", app.get_name().c_str(), parsed.error().c_str());
        return cli::EXIT_USAGE;
    }
    if (*parsed == cli::Parsed::Help) {
        std::fputs(app.help().c_str(), stdout);
        return cli::EXIT_OK;
    }
    if (*parsed == cli::Parsed::Version) {
        std::puts(cli::versionLine().c_str());
        return cli::EXIT_OK;
    }
    return std::nullopt;
}

/// The device a run measured, for its result file: "NAME (sm_XY)" of CUDA device 0 when `gpu`, else
/// "CPU MODEL, N hardware threads". Init phase (queries the device, reads /proc/cpuinfo).
[[nodiscard]] inline std::string describeDevice(bool gpu) {
    if (gpu) {
        if (const auto info = platform::queryGpu(0)) {
            return std::string(info->name) + " (sm_" + std::to_string(info->computeMajor) +
                   std::to_string(info->computeMinor) + ")";
        }
    }
    return platform::cpuModel() + ", " + std::to_string(std::thread::hardware_concurrency()) + " hardware threads";
}

/// Writes `results` to `path` unless `path` is empty; prints where (stdout) or why not (stderr).
/// Returns false when the file could not be written.
inline bool writeResults(const ResultFile& results, const std::string& path) {
    if (path.empty()) {
        return true;
    }
    const auto written = results.write(path);
    if (!written) {
        std::fprintf(stderr, "%s\n", written.error().c_str());
        return false;
    }
    std::printf("\n%zu results written to %s\n", results.rows().size(), path.c_str());
    return true;
}

}  // namespace augur::bench
