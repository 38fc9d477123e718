#include "augur/hil/run_record.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

namespace augur::hil {
namespace {

using FilePtr = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

struct OpenFile {
    FilePtr file;
    std::string path;
};

Result<OpenFile, RunWriteError> create(const std::string& runDir, const char* name) {
    std::error_code ec;
    std::filesystem::create_directories(runDir, ec);
    std::string path = (std::filesystem::path(runDir) / name).string();
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        return fail(RunWriteError{path + ": " + std::strerror(errno)});
    }
    return Result<OpenFile, RunWriteError>(OpenFile{FilePtr(f, &std::fclose), std::move(path)});
}

Result<void, RunWriteError> finish(OpenFile& out) {
    const bool writeFailed = std::ferror(out.file.get()) != 0;
    const bool closeFailed = std::fclose(out.file.release()) != 0;
    if (writeFailed || closeFailed) {
        return fail(RunWriteError{out.path + ": write failed"});
    }
    return {};
}

/// A value for a CSV field: commas and quotes would break the format, so they are replaced.
std::string field(std::string text) {
    for (char& c : text) {
        if (c == ',' || c == '"' || c == '\n' || c == '\r') {
            c = c == ',' ? ';' : ' ';
        }
    }
    return text;
}


}  // namespace

const char* toString(PathKind kind) noexcept {
    switch (kind) {
        case PathKind::Ego: return "ego";
        case PathKind::Truth: return "truth";
        case PathKind::Ours: return "ours";
        case PathKind::ConstantVelocity: return "cv";
        case PathKind::LaneFollowing: return "lf";
    }
    return "invalid";
}

Result<void, RunWriteError> writeRunInfo(const std::string& runDir, const RunInfo& info) {
    auto opened = create(runDir, "run.csv");
    if (!opened) {
        return fail(opened.error());
    }
    std::FILE* f = opened->file.get();
    std::fprintf(f, "key,value\nformat,%s\n", RUN_FORMAT);
    const std::pair<const char*, const std::string*> texts[] = {
        {"scenario", &info.scenario}, {"scenario_dir", &info.scenarioDir}, {"map", &info.mapPath},
        {"backend", &info.backend},   {"device", &info.device},            {"date", &info.date},
        {"command", &info.command}};
    for (const auto& [key, value] : texts) {
        std::fprintf(f, "%s,%s\n", key, field(*value).c_str());
    }
    std::fprintf(f, "deadline_us,%.1f\nspeed_factor,%g\n", info.deadline_us, info.speedFactor);
    if (info.maxDeadlineMisses) {
        std::fprintf(f, "threshold_deadline_misses,%llu\n", static_cast<unsigned long long>(*info.maxDeadlineMisses));
    }
    if (info.maxAde4s_m) {
        std::fprintf(f, "threshold_ade_4s_m,%g\n", *info.maxAde4s_m);
    }
    for (const auto& [key, value] : info.extra) {
        std::fprintf(f, "%s,%s\n", field(key).c_str(), field(value).c_str());
    }
    return finish(opened.value());
}

Result<void, RunWriteError> writeCycles(const std::string& runDir, std::span<const CycleRecord> cycles) {
    auto opened = create(runDir, "cycles.csv");
    if (!opened) {
        return fail(opened.error());
    }
    std::FILE* f = opened->file.get();
    std::fprintf(f, "cycle,t_s,latency_us,mode,stale,had_input\n");
    for (const CycleRecord& c : cycles) {
        std::fprintf(f, "%llu,%.4f,%.1f,%u,%d,%d\n", static_cast<unsigned long long>(c.cycle), c.t_s, c.latency_us,
                     static_cast<unsigned>(c.mode), c.stale ? 1 : 0, c.hadInput ? 1 : 0);
    }
    return finish(opened.value());
}

namespace {

constexpr const char* HORIZON_COLUMNS =
    "horizon_s,samples,ade_m,fde_m,min_ade_m,min_fde_m,weighted_ade_m,weighted_fde_m,miss_rate,brier\n";

/// One horizon_errors row per horizon of each method, after `prefix` (a group column and its comma, or "").
void writeMethodRows(std::FILE* f, const std::string& prefix, std::span<const HorizonErrors> ours,
                     std::span<const HorizonErrors> lf, std::span<const HorizonErrors> cv) {
    const std::pair<const char*, std::span<const HorizonErrors>> methods[] = {{"ours", ours}, {"lf", lf}, {"cv", cv}};
    for (const auto& [method, rows] : methods) {
        for (const HorizonErrors& h : rows) {
            std::fprintf(f, "%s%s,%g,%zu,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n", prefix.c_str(), method, h.horizon_s,
                         h.samples, h.ade_m, h.fde_m, h.minAde_m, h.minFde_m, h.weightedAde_m, h.weightedFde_m,
                         h.missRate, h.brier);
        }
    }
}

}  // namespace

Result<void, RunWriteError> writeHorizonErrors(const std::string& runDir, std::span<const HorizonErrors> ours,
                                               std::span<const HorizonErrors> cv, std::span<const HorizonErrors> lf) {
    auto opened = create(runDir, "horizon_errors.csv");
    if (!opened) {
        return fail(opened.error());
    }
    std::FILE* f = opened->file.get();
    std::fprintf(f, "method,%s", HORIZON_COLUMNS);
    writeMethodRows(f, "", ours, lf, cv);
    return finish(opened.value());
}

Result<void, RunWriteError> writeHorizonErrorsByMode(const std::string& runDir, std::span<const ModeHorizonErrors> modes) {
    auto opened = create(runDir, "horizon_errors_by_mode.csv");
    if (!opened) {
        return fail(opened.error());
    }
    std::FILE* f = opened->file.get();
    std::fprintf(f, "mode,method,%s", HORIZON_COLUMNS);
    for (const ModeHorizonErrors& m : modes) {
        writeMethodRows(f, std::string(toString(m.mode)) + ",", m.ours, m.lf, m.cv);
    }
    return finish(opened.value());
}

Result<void, RunWriteError> writeHorizonErrorsByClass(const std::string& runDir, std::span<const ClassHorizonErrors> classes) {
    auto opened = create(runDir, "horizon_errors_by_class.csv");
    if (!opened) {
        return fail(opened.error());
    }
    std::FILE* f = opened->file.get();
    std::fprintf(f, "motion,method,%s", HORIZON_COLUMNS);
    for (const ClassHorizonErrors& c : classes) {
        writeMethodRows(f, std::string(toString(c.motion)) + ",", c.ours, c.lf, c.cv);
    }
    return finish(opened.value());
}

Result<void, RunWriteError> writePredictionSamples(const std::string& runDir, std::span<const PredictionSample> samples) {
    auto opened = create(runDir, "prediction_samples.csv");
    if (!opened) {
        return fail(opened.error());
    }
    std::FILE* f = opened->file.get();
    std::fprintf(f, "t0_s,mode,true_id,track_id,true_speed_mps,perceived_speed_mps,heading_change_rad,corridors,"
                    "intention_corridors,stop_probability,track_speed_mps,most_likely_probability,most_likely_corridor,best_corridor");
    const char* columns[] = {"fde_ours", "fde_min", "fde_weighted", "fde_cv", "ade_ours", "ade_cv", "fde_lf", "fde_lf_min"};
    for (const char* column : columns) {
        for (const double h : REPORT_HORIZONS_S) {
            std::fprintf(f, ",%s_%gs_m", column, h);
        }
    }
    std::fprintf(f, ",along_ours_m,across_ours_m,along_cv_m,across_cv_m,motion,brier_ours,brier_lf,lf_modes\n");
    for (const PredictionSample& s : samples) {
        std::fprintf(f, "%.2f,%s,%u,%u,%.3f,%.3f,%.4f,%u,%u,%.4f,%.3f,%.4f,%u,%u", s.t0_s, toString(s.mode), s.trueId,
                     s.trackId, s.trueSpeed_mps, s.perceivedSpeed_mps, s.headingChange_rad, s.corridors,
                     s.intentionCorridors, s.stopProbability, s.trackSpeed_mps, s.mostLikelyProbability,
                     s.mostLikelyCorridor, s.bestCorridor);
        const double* values[] = {s.fdeOurs_m, s.fdeMin_m, s.fdeWeighted_m, s.fdeCv_m,
                                  s.adeOurs_m, s.adeCv_m,    s.fdeLf_m,       s.fdeLfMin_m};
        for (const double* v : values) {
            for (std::size_t h = 0; h < PredictionSample::HORIZONS; ++h) {
                std::fprintf(f, ",%.3f", v[h]);
            }
        }
        std::fprintf(f, ",%.3f,%.3f,%.3f,%.3f,%s,%.4f,%.4f,%u\n", s.alongOurs_m, s.acrossOurs_m, s.alongCv_m, s.acrossCv_m,
                     toString(s.motion), s.brierOurs, s.brierLf, s.lfModes);
    }
    return finish(opened.value());
}

Result<void, RunWriteError> writeMetrics(const std::string& runDir, std::span<const MetricRecord> metrics) {
    auto opened = create(runDir, "metrics.csv");
    if (!opened) {
        return fail(opened.error());
    }
    std::FILE* f = opened->file.get();
    std::fprintf(f, "name,value,unit\n");
    for (const MetricRecord& m : metrics) {
        std::fprintf(f, "%s,%.6g,%s\n", field(m.name).c_str(), m.value, field(m.unit).c_str());
    }
    return finish(opened.value());
}

Result<void, RunWriteError> writeSnapshot(const std::string& runDir, const OccupancyGrid& grid, std::uint32_t frame,
                                          double t_s, double horizon_s, std::span<const SnapshotPath> paths) {
    AUGUR_ASSERT(frame < grid.frameCount && grid.frameCount <= MAX_GRID_FRAMES && grid.widthCells <= MAX_GRID_SIDE_CELLS &&
                     grid.heightCells <= MAX_GRID_SIDE_CELLS,
                 "writeSnapshot: frame or grid size out of range");
    auto gridFile = create(runDir, "snapshot_grid.csv");
    if (!gridFile) {
        return fail(gridFile.error());
    }
    std::FILE* f = gridFile->file.get();
    std::fprintf(f, "# t_s %.3f\n# horizon_s %g\n# frame %u\n# origin_x_m %.3f\n# origin_y_m %.3f\n# resolution_m %g\n",
                 t_s, horizon_s, frame, static_cast<double>(grid.originX_m), static_cast<double>(grid.originY_m),
                 static_cast<double>(grid.resolution_m));
    std::fprintf(f, "# width_cells %u\n# height_cells %u\n", grid.widthCells, grid.heightCells);
    for (std::uint32_t row = 0; row < grid.heightCells; ++row) {
        for (std::uint32_t col = 0; col < grid.widthCells; ++col) {
            const double p = static_cast<double>(grid.cells[frame][row * grid.widthCells + col]) / 65535.0;
            std::fprintf(f, col == 0 ? "%.4f" : ",%.4f", p);
        }
        std::fputc('\n', f);
    }
    auto done = finish(gridFile.value());
    if (!done) {
        return done;
    }
    auto pathFile = create(runDir, "snapshot_paths.csv");
    if (!pathFile) {
        return fail(pathFile.error());
    }
    f = pathFile->file.get();
    std::fprintf(f, "kind,vehicle_id,candidate,probability,step,x_m,y_m\n");
    for (const SnapshotPath& p : paths) {
        const std::size_t firstStep = p.kind == PathKind::Ego ? 0 : 1;
        for (std::size_t k = 0; k < p.points.size(); ++k) {
            std::fprintf(f, "%s,%u,%u,%.4f,%zu,%.3f,%.3f\n", toString(p.kind), p.vehicleId, p.candidate, p.probability,
                         k + firstStep, p.points[k].x_m, p.points[k].y_m);
        }
    }
    return finish(pathFile.value());
}

std::vector<MetricRecord> trackingMetrics(const TrackingSummary& s) {
    return {{"position_rmse", s.positionRmse_m, "m"},
            {"velocity_rmse", s.velocityRmse_mps, "m/s"},
            {"mean_ospa", s.meanOspa_m, "m"},
            {"mean_gospa", s.meanGospa_m, "m"},
            {"tracking_cycles", static_cast<double>(s.cycles), "cycles"},
            {"associated_pairs", static_cast<double>(s.associatedPairs), "pairs"},
            {"missed_objects", static_cast<double>(s.missed), "object-cycles"},
            {"false_tracks", static_cast<double>(s.falseTracks), "track-cycles"}};
}

std::vector<MetricRecord> latencyMetrics(const LatencySummary& s) {
    return {{"cycles", static_cast<double>(s.cycles), "cycles"},
            {"latency_p50", s.p50_us, "us"},
            {"latency_p99", s.p99_us, "us"},
            {"latency_max", s.max_us, "us"},
            {"deadline_misses", static_cast<double>(s.deadlineMisses), "cycles"}};
}

std::vector<MetricRecord> occupancyMetrics(const OccupancyHitCounter& c, double threshold) {
    return {{"occupancy_hit_rate", c.hitRate(), ""},
            {"occupancy_threshold", threshold, ""},
            {"occupancy_scored", static_cast<double>(c.hits + c.misses), "positions"},
            {"occupancy_outside_grid", static_cast<double>(c.outside), "positions"}};
}

std::vector<MetricRecord> rejectionMetrics(std::span<const std::uint64_t, REJECT_REASON_COUNT> rejections) {
    std::vector<MetricRecord> out;
    for (std::size_t r = 1; r < REJECT_REASON_COUNT; ++r) {
        out.push_back({std::string("rejected_") + toString(static_cast<RejectReason>(r)), static_cast<double>(rejections[r]),
                       "lists"});
    }
    return out;
}

}  // namespace augur::hil
