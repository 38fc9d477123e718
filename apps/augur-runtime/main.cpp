// augur-runtime: loads a deployment file, validates it and prints what it describes.
//
// Exit status: 0 success, 2 invalid configuration (the error on stderr), 64 bad command line.
#include <cstdio>
#include <string>
#include <string_view>

#include "augur/config/loader.hpp"
#include "augur/config/schema.hpp"
#include "augur/runtime/deployment_summary.hpp"
#include "augur/runtime/version.hpp"

namespace {

constexpr int EXIT_INVALID_CONFIG = 2;
constexpr int EXIT_USAGE = 64;  // EX_USAGE of sysexits.h

constexpr const char* USAGE =
    "usage: augur-runtime --config FILE\n"
    "       augur-runtime --print-schema | --version | --help\n";

constexpr const char* HELP =
    "augur-runtime: real-time intention and motion prediction.\n"
    "\n"
    "  --config FILE    load and validate the deployment FILE (YAML) and print the deployment it\n"
    "                   describes; exit status 0, or 2 with the error (file:line:column: key: what was\n"
    "                   expected) on stderr\n"
    "  --print-schema   print the reference of every configuration key in Markdown\n"
    "                   (docs/configuration.md is this output)\n"
    "  --version        print the version and the compiled-in backends\n"
    "  --help           print this help\n"
    "\n"
    "This build validates and describes a deployment only: the cycle loop (ingest, track, intention,\n"
    "motion, publish over iceoryx) is not implemented yet, so nothing is run or published.\n"
    "Exit status: 0 success, 2 invalid configuration, 64 bad command line.\n";

int usageError(const char* problem) {
    std::fprintf(stderr, "augur-runtime: %s\n%s", problem, USAGE);
    return EXIT_USAGE;
}

int describeConfig(const std::string& path) {
    const augur::Result<augur::config::Deployment, augur::config::ConfigError> loaded =
        augur::config::loadDeployment(path);
    if (loaded.hasError()) {
        std::fprintf(stderr, "%s\n", augur::config::format(loaded.error()).c_str());
        return EXIT_INVALID_CONFIG;
    }
    std::printf("%s: valid\n%s", path.c_str(), augur::runtime::describeDeployment(loaded.value()).c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        return usageError("no option given");
    }
    const std::string_view option = argv[1];
    if (option == "--help" || option == "-h") {
        std::fputs(HELP, stdout);
        return 0;
    }
    if (option == "--version") {
        std::puts(augur::runtime::versionString());
        return 0;
    }
    if (option == "--print-schema") {
        if (argc != 2) {
            return usageError("--print-schema takes no argument");
        }
        std::fputs(augur::config::renderSchemaMarkdown().c_str(), stdout);
        return 0;
    }
    if (option == "--config") {
        if (argc != 3) {
            return usageError("--config takes exactly one FILE");
        }
        return describeConfig(argv[2]);
    }
    constexpr std::string_view CONFIG_EQUALS = "--config=";
    if (option.substr(0, CONFIG_EQUALS.size()) == CONFIG_EQUALS && argc == 2) {
        return describeConfig(std::string(option.substr(CONFIG_EQUALS.size())));
    }
    return usageError(("unknown option " + std::string(option)).c_str());
}
