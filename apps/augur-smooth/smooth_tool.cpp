// augur-smooth's logic (smooth_tool.hpp).
#include "smooth_tool.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <istream>
#include <ostream>
#include <span>
#include <sstream>

#include "augur/kernels/kf/kalman_bank.hpp"
#include "augur_cli.hpp"
#include "augur_csv.hpp"
#include "augur/kernels/kf/smoother.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"

namespace augur::apps::smooth {
namespace {

using kernels::kf::MotionModel;

const char* const STATE_NAMES[] = {"x_m", "y_m", "vx_mps", "vy_mps", "ax_mps2", "ay_mps2"};
const char* const SHORT_NAMES[] = {"x", "y", "vx", "vy", "ax", "ay"};

/// Filters one target's measurements (B = 1 history layout) and smooths them with the chosen path.
Result<void, std::string> smoothTarget(const Options& o, std::span<const Measurement> rows, std::vector<double>& mean,
                                       std::vector<double>& cov) {
    using namespace kernels::kf;
    const std::size_t steps = rows.size();
    const auto dim = static_cast<std::size_t>(stateDim(o.model));
    const auto np = static_cast<std::size_t>(packedSize(stateDim(o.model)));
    std::vector<double> fMean(steps * dim), fCov(steps * np), dt(steps, 0.0);
    for (std::size_t k = 0; k + 1 < steps; ++k) {
        dt[k] = rows[k + 1].time_s - rows[k].time_s;
    }
    const double measVar = o.measStd_m * o.measStd_m;
    const ModelParams<double> params{o.model, o.noiseDensity};
    cpu::initializeTarget<double>(o.model, {fMean.data(), fCov.data(), 1, 1}, 0, rows[0].x_m, rows[0].y_m, measVar,
                                  o.initialVelStd_mps * o.initialVelStd_mps,
                                  o.initialAccStd_mps2 * o.initialAccStd_mps2);
    const double r[2] = {measVar, measVar};
    const std::uint8_t present = 1;
    for (std::size_t k = 1; k < steps; ++k) {
        std::copy_n(fMean.begin() + static_cast<std::ptrdiff_t>((k - 1) * dim), dim,
                    fMean.begin() + static_cast<std::ptrdiff_t>(k * dim));
        std::copy_n(fCov.begin() + static_cast<std::ptrdiff_t>((k - 1) * np), np,
                    fCov.begin() + static_cast<std::ptrdiff_t>(k * np));
        const double z[2] = {rows[k].x_m, rows[k].y_m};
        cpu::step<double>(params, {fMean.data() + k * dim, fCov.data() + k * np, 1, 1},
                          {&dt[k - 1], z, r, &present, nullptr});
    }
    mean.assign(fMean.size(), 0.0);
    cov.assign(fCov.size(), 0.0);
    const FilteredHistory<double> history{fMean.data(), fCov.data(), dt.data(), steps, 1};
    if (o.backend == kernels::Backend::Cpu) {
        if (o.method == Method::Sequential) {
            cpu::smoothSequential<double>(params, history, {mean.data(), cov.data()});
        } else {
            std::vector<double> scratch(cpu::smootherScratchCount(o.model, steps, 1));
            cpu::smoothParallel<double>(params, history, {mean.data(), cov.data()}, scratch.data());
        }
        return {};
    }
    auto fail_ = [](const platform::GpuError& e) { return Result<void, std::string>(fail(platform::describe(e))); };
    auto stream = platform::Stream::create();
    auto dMean = platform::DeviceBuffer<double>::create(fMean.size());
    auto dCov = platform::DeviceBuffer<double>::create(fCov.size());
    auto dDt = platform::DeviceBuffer<double>::create(dt.size());
    auto dOutMean = platform::DeviceBuffer<double>::create(fMean.size());
    auto dOutCov = platform::DeviceBuffer<double>::create(fCov.size());
    const std::size_t scratchBytes = cuda::smootherScratchBytes(o.model, steps, 1, sizeof(double));
    auto scratch = platform::DeviceMemory::allocate(std::max<std::size_t>(scratchBytes, 1));
    for (const auto* failed : {stream.hasError() ? &stream.error() : nullptr, dMean.hasError() ? &dMean.error() : nullptr,
                               dCov.hasError() ? &dCov.error() : nullptr, dDt.hasError() ? &dDt.error() : nullptr,
                               dOutMean.hasError() ? &dOutMean.error() : nullptr,
                               dOutCov.hasError() ? &dOutCov.error() : nullptr,
                               scratch.hasError() ? &scratch.error() : nullptr}) {
        if (failed != nullptr) {
            return fail_(*failed);
        }
    }
    const auto s = stream->get();
    const FilteredHistory<double> dHistory{dMean->data(), dCov->data(), dDt->data(), steps, 1};
    const SmoothedHistory<double> dOut{dOutMean->data(), dOutCov->data()};
    platform::GpuStatus status = dMean->upload(fMean, s);
    if (status) status = dCov->upload(fCov, s);
    if (status) status = dDt->upload(dt, s);
    if (status) {
        status = o.method == Method::Sequential
                     ? cuda::smoothSequential<double>(params, dHistory, dOut, s)
                     : cuda::smoothParallel<double>(params, dHistory, dOut, scratch->get(), scratchBytes, s);
    }
    if (status) status = dOutMean->download(mean, s);
    if (status) status = dOutCov->download(cov, s);
    if (status) status = stream->synchronize();
    if (!status) {
        return fail_(status.error());
    }
    return {};
}

}  // namespace

namespace {

/// Accepted range of the four spreads and the noise density (all > 0): far beyond any physical value, and
/// small enough that their squares stay finite.
constexpr double MAX_SPREAD = 1e6;

/// Binds every option of augur-smooth to `o`.
void defineOptions(CLI::App& app, Options& o) {
    app.description(
        "Filters and RTS-smooths logged tracks: measurements CSV in, smoothed states and covariances CSV out.\n"
        "  input:  target_id,time_s,x_m,y_m (one measurement per line, optional header)\n"
        "  output: target_id,time_s, smoothed state, packed upper-triangle covariance\n"
        "Exit status: 0 done, 1 unreadable or malformed input or a result that is not finite, 2 bad option.\n"
        "Formats: docs/smoothing-tool.md");
    cli::useConventions(app);
    app.add_option("--input", o.inputPath, "Measurements CSV")->required();
    app.add_option("--output", o.outputPath, "Smoothed CSV ('-' or none: standard output)");
    cli::addChoice(app, "--model", o.model,
                   {{"cv", MotionModel::ConstantVelocity}, {"ca", MotionModel::ConstantAcceleration}},
                   "Motion model: cv (constant velocity) or ca (constant acceleration)");
    app.add_option("--noise-density", o.noiseDensity, "Process noise density q (m^2/s^3 cv, m^2/s^5 ca)")
        ->check(cli::numberIn(0.0, MAX_SPREAD, true))
        ->capture_default_str();
    app.add_option("--meas-std", o.measStd_m, "Measurement standard deviation of x and y (m)")
        ->check(cli::numberIn(0.0, MAX_SPREAD, true))
        ->capture_default_str();
    app.add_option("--init-vel-std", o.initialVelStd_mps, "Prior velocity spread at a target's first measurement (m/s)")
        ->check(cli::numberIn(0.0, MAX_SPREAD, true))
        ->capture_default_str();
    app.add_option("--init-acc-std", o.initialAccStd_mps2, "Prior acceleration spread, ca (m/s^2)")
        ->check(cli::numberIn(0.0, MAX_SPREAD, true))
        ->capture_default_str();
    cli::addChoice(app, "--backend", o.backend, {{"cpu", kernels::Backend::Cpu}, {"cuda", kernels::Backend::Cuda}},
                   "Where the smoother runs");
    cli::addChoice(app, "--method", o.method, {{"parallel", Method::Parallel}, {"sequential", Method::Sequential}},
                   "Smoother: parallel (associative scan) or sequential (RTS recursion)");
}

}  // namespace

std::string usage() { return cli::helpOf<Options>("augur-smooth", defineOptions); }

Result<Options, std::string> parseOptions(const std::vector<std::string>& args) {
    Options o;
    if (auto parsed = cli::parseInto("augur-smooth", args, o, defineOptions); !parsed) {
        return fail(std::move(parsed).error());
    }
    return o;
}

Result<std::vector<Measurement>, std::string> readMeasurements(std::istream& in) {
    std::vector<Measurement> out;
    csv::Reader reader(in);
    bool firstContent = true;
    while (reader.next()) {
        const auto& fields = reader.fields();
        Measurement m;
        const bool parsed = fields.size() == 4 && csv::parseField(fields[0], m.targetId) &&
                            csv::parseFinite(fields[1], m.time_s) && csv::parseFinite(fields[2], m.x_m) &&
                            csv::parseFinite(fields[3], m.y_m);
        if (!parsed) {
            if (firstContent && fields.size() == 4 && reader.line().find("target_id") != std::string_view::npos) {
                firstContent = false;  // the header
                continue;
            }
            return fail("line " + std::to_string(reader.lineNumber()) +
                        ": expected target_id,time_s,x_m,y_m (unsigned integer, then three finite numbers), got '" +
                        std::string(reader.line()) + "'");
        }
        firstContent = false;
        out.push_back(m);
    }
    return Result<std::vector<Measurement>, std::string>(std::move(out));
}

Result<std::vector<SmoothedRow>, std::string> smoothAll(const Options& options,
                                                        const std::vector<Measurement>& measurements) {
    if (options.backend == kernels::Backend::Cuda && !kernels::available(kernels::Backend::Cuda)) {
        return fail(std::string("--backend cuda: no CUDA device in this build or on this machine"));
    }
    std::vector<Measurement> sorted = measurements;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Measurement& a, const Measurement& b) {
        return a.targetId != b.targetId ? a.targetId < b.targetId : a.time_s < b.time_s;
    });
    const auto dim = static_cast<std::size_t>(kernels::kf::stateDim(options.model));
    const auto np = static_cast<std::size_t>(kernels::kf::packedSize(kernels::kf::stateDim(options.model)));
    std::vector<SmoothedRow> rows;
    rows.reserve(sorted.size());
    std::vector<double> mean, cov;
    for (std::size_t begin = 0; begin < sorted.size();) {
        std::size_t end = begin;
        while (end < sorted.size() && sorted[end].targetId == sorted[begin].targetId) {
            ++end;
        }
        const std::span<const Measurement> target(sorted.data() + begin, end - begin);
        auto status = smoothTarget(options, target, mean, cov);
        if (!status) {
            return fail("target " + std::to_string(sorted[begin].targetId) + ": " + status.error());
        }
        for (std::size_t k = 0; k < target.size(); ++k) {
            const auto firstBad = [](const std::vector<double>& values, std::size_t first, std::size_t count) {
                for (std::size_t i = first; i < first + count; ++i) {
                    if (!std::isfinite(values[i])) {
                        return i - first;
                    }
                }
                return count;
            };
            const std::size_t badState = firstBad(mean, k * dim, dim);
            const std::size_t badCov = firstBad(cov, k * np, np);
            if (badState < dim || badCov < np) {
                char when[32];
                std::snprintf(when, sizeof(when), "%.17g", target[k].time_s);
                return fail("target " + std::to_string(target[k].targetId) + " at time_s " + when + ": the smoothed " +
                            (badState < dim ? std::string("state ") + STATE_NAMES[badState] : std::string("covariance")) +
                            " is not finite: the positions or times are too large for double precision");
            }
            SmoothedRow row;
            row.targetId = target[k].targetId;
            row.time_s = target[k].time_s;
            row.state.assign(mean.begin() + static_cast<std::ptrdiff_t>(k * dim),
                             mean.begin() + static_cast<std::ptrdiff_t>((k + 1) * dim));
            row.cov.assign(cov.begin() + static_cast<std::ptrdiff_t>(k * np),
                           cov.begin() + static_cast<std::ptrdiff_t>((k + 1) * np));
            rows.push_back(std::move(row));
        }
        begin = end;
    }
    return Result<std::vector<SmoothedRow>, std::string>(std::move(rows));
}

void writeSmoothed(std::ostream& out, MotionModel model, const std::vector<SmoothedRow>& rows) {
    const int dim = kernels::kf::stateDim(model);
    out << "target_id,time_s";
    for (int i = 0; i < dim; ++i) {
        out << ',' << STATE_NAMES[i];
    }
    for (int i = 0; i < dim; ++i) {
        for (int j = i; j < dim; ++j) {
            out << ",cov_" << SHORT_NAMES[i] << '_' << SHORT_NAMES[j];
        }
    }
    out << '\n';
    char buffer[32];
    auto put = [&](double v) {
        std::snprintf(buffer, sizeof(buffer), "%.17g", v);
        out << ',' << buffer;
    };
    for (const auto& row : rows) {
        out << row.targetId;
        put(row.time_s);
        for (double v : row.state) {
            put(v);
        }
        for (double v : row.cov) {
            put(v);
        }
        out << '\n';
    }
}

}  // namespace augur::apps::smooth
