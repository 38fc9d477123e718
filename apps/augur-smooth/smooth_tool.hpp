// augur-smooth's logic, separate from main() so that tests can drive it: options, the measurement CSV
// reader, filtering + smoothing of every target, and the smoothed-state CSV writer. Formats:
// docs/smoothing-tool.md. Offline tool: allocates freely, reports errors as messages.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/kernels/backend.hpp"
#include "augur/kernels/kf/motion_model.hpp"

namespace augur::apps::smooth {

enum class Method { Parallel, Sequential };

struct Options {
    std::string inputPath;
    std::string outputPath;
    kernels::kf::MotionModel model{kernels::kf::MotionModel::ConstantVelocity};
    double noiseDensity{0.5};       ///< q: m²/s³ (CV) or m²/s⁵ (CA)
    double measStd_m{0.5};          ///< standard deviation of x and y measurements
    double initialVelStd_mps{5.0};  ///< prior velocity spread at a target's first measurement
    double initialAccStd_mps2{2.0}; ///< prior acceleration spread (CA)
    kernels::Backend backend{kernels::Backend::Cpu};
    Method method{Method::Parallel};
    bool help{false};
    bool version{false};  ///< --version was given: print the version line and exit 0
};

/// Parses command-line arguments (argv[0] excluded). Errors name the offending argument.
[[nodiscard]] Result<Options, std::string> parseOptions(const std::vector<std::string>& args);

/// The usage text.
[[nodiscard]] std::string usage();

struct Measurement {
    std::uint64_t targetId{0};
    double time_s{0.0};
    double x_m{0.0};
    double y_m{0.0};
};

/// Reads `target_id,time_s,x_m,y_m` rows (an optional header line, blank lines and lines starting with
/// '#' are skipped). Errors carry the line number.
[[nodiscard]] Result<std::vector<Measurement>, std::string> readMeasurements(std::istream& in);

/// One smoothed step of one target: state (stateDim values) and packed covariance.
struct SmoothedRow {
    std::uint64_t targetId{0};
    double time_s{0.0};
    std::vector<double> state;
    std::vector<double> cov;
};

/// Filters and smooths every target (rows grouped by target id in ascending order, each target's rows in
/// time order; equal times keep their input order). The filter starts at a target's first measurement.
[[nodiscard]] Result<std::vector<SmoothedRow>, std::string> smoothAll(const Options& options,
                                                                      const std::vector<Measurement>& measurements);

/// Writes the header and one line per row, full double precision.
void writeSmoothed(std::ostream& out, kernels::kf::MotionModel model, const std::vector<SmoothedRow>& rows);

}  // namespace augur::apps::smooth
