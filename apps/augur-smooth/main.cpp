// augur-smooth — filters and RTS-smooths logged tracks: measurements CSV in, smoothed states and
// covariances CSV out. See docs/smoothing-tool.md.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "smooth_tool.hpp"
#include "augur_version.hpp"

int main(int argc, char** argv) {
    using namespace augur::apps::smooth;
    const std::vector<std::string> args(argv + 1, argv + argc);
    const auto options = parseOptions(args);
    if (!options) {
        std::fprintf(stderr, "augur-smooth: %s\nRun with --help for the options and their ranges.\n", options.error().c_str());
        return 2;
    }
    if (options->version) {
        std::puts(augur::apps::cli::versionLine().c_str());
        return 0;
    }
    if (options->help) {
        std::fputs(usage().c_str(), stdout);
        return 0;
    }
    std::ifstream in(options->inputPath);
    if (!in) {
        std::fprintf(stderr, "augur-smooth: cannot open %s\n", options->inputPath.c_str());
        return 1;
    }
    const auto measurements = readMeasurements(in);
    if (!measurements) {
        std::fprintf(stderr, "augur-smooth: %s: %s\n", options->inputPath.c_str(), measurements.error().c_str());
        return 1;
    }
    const auto rows = smoothAll(*options, *measurements);
    if (!rows) {
        std::fprintf(stderr, "augur-smooth: %s\n", rows.error().c_str());
        return 1;
    }
    if (options->outputPath.empty() || options->outputPath == "-") {
        writeSmoothed(std::cout, options->model, *rows);
    } else {
        std::ofstream out(options->outputPath);
        if (!out) {
            std::fprintf(stderr, "augur-smooth: cannot write %s\n", options->outputPath.c_str());
            return 1;
        }
        writeSmoothed(out, options->model, *rows);
        if (!out) {
            std::fprintf(stderr, "augur-smooth: write to %s failed\n", options->outputPath.c_str());
            return 1;
        }
    }
    return 0;
}
