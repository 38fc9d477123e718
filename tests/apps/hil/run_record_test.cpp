// Recorded-run files: what the C++ side writes, read back as text, and read by the report writer
// (the Python report must accept exactly what the bench writes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "augur/hil/run_record.hpp"
#include "augur/testing/testing.hpp"

namespace augur::hil {
namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> readLines(const fs::path& path) {
    std::vector<std::string> lines;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    return lines;
}

class RunRecord : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("augur_run_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }

    [[nodiscard]] std::string dir() const { return m_dir.string(); }

    fs::path m_dir;
};

RunInfo runInfo() {
    RunInfo info;
    info.scenario = "intersection";
    info.scenarioDir = testing::sourcePath("data/scenarios/intersection-4way");
    info.mapPath = testing::sourcePath("data/scenarios/intersection-4way/map.net.xml");
    info.backend = "cpu";
    info.device = "test host, 2 cores";
    info.date = "2026-01-01T00:00:00Z";
    info.command = "augur-hil --scenario x, with a comma";
    info.maxDeadlineMisses = 0;
    info.maxAde4s_m = 2.5;
    info.extra = {{"ego_id", "2"}, {"perception_seed", "7"}};
    return info;
}

TEST_F(RunRecord, WritesRunInfoAsKeyValueRowsWithoutBreakingTheCsv) {
    ASSERT_TRUE(writeRunInfo(dir(), runInfo()));
    const auto lines = readLines(m_dir / "run.csv");
    ASSERT_EQ(lines.size(), 15U);
    EXPECT_EQ(lines[0], "key,value");
    EXPECT_EQ(lines[1], "format,augur-hil-run 1");
    EXPECT_EQ(lines[8], "command,augur-hil --scenario x; with a comma");
    EXPECT_EQ(lines[9], "deadline_us,200000.0");
    EXPECT_EQ(lines[11], "threshold_deadline_misses,0");
    EXPECT_EQ(lines[12], "threshold_ade_4s_m,2.5");
    EXPECT_EQ(lines[14], "perception_seed,7");
}

TEST_F(RunRecord, OmitsThresholdsThatAreNotSet) {
    RunInfo info = runInfo();
    info.maxDeadlineMisses.reset();
    info.maxAde4s_m.reset();
    ASSERT_TRUE(writeRunInfo(dir(), info));
    EXPECT_EQ(readFile(m_dir / "run.csv").find("threshold"), std::string::npos);
}

TEST_F(RunRecord, WritesCyclesErrorsAndMetricsRows) {
    const std::vector<CycleRecord> cycles = {{0, 0.0, 1234.5, RuntimeMode::Nominal, false, true},
                                             {1, 0.2, 250000.0, RuntimeMode::ConstantVelocity, true, false}};
    ASSERT_TRUE(writeCycles(dir(), cycles));
    EXPECT_EQ(readLines(m_dir / "cycles.csv"),
              (std::vector<std::string>{"cycle,t_s,latency_us,mode,stale,had_input", "0,0.0000,1234.5,0,0,1",
                                        "1,0.2000,250000.0,2,1,0"}));

    HorizonErrors h;
    h.horizon_s = 4.0;
    h.samples = 12;
    h.ade_m = 1.5;
    h.fde_m = 3.25;
    h.minAde_m = 1.0;
    h.minFde_m = 2.0;
    h.weightedAde_m = 1.25;
    h.weightedFde_m = 3.0;
    h.missRate = 0.5;
    h.brier = 0.25;
    const std::vector<HorizonErrors> ours = {h};
    ASSERT_TRUE(writeHorizonErrors(dir(), ours, {}));
    const auto errorLines = readLines(m_dir / "horizon_errors.csv");
    ASSERT_EQ(errorLines.size(), 2U);
    EXPECT_EQ(errorLines[1], "ours,4,12,1.5000,3.2500,1.0000,2.0000,1.2500,3.0000,0.5000,0.2500");

    const std::vector<ModeHorizonErrors> byMode = {{RuntimeMode::ReducedParticles, ours, ours, ours}};
    ASSERT_TRUE(writeHorizonErrorsByMode(dir(), byMode));
    const std::string row = ",4,12,1.5000,3.2500,1.0000,2.0000,1.2500,3.0000,0.5000,0.2500";
    const std::string mode = toString(RuntimeMode::ReducedParticles);
    EXPECT_EQ(readLines(m_dir / "horizon_errors_by_mode.csv"),
              (std::vector<std::string>{
                  "mode,method,horizon_s,samples,ade_m,fde_m,min_ade_m,min_fde_m,weighted_ade_m,weighted_fde_m,miss_rate,brier",
                  mode + ",ours" + row, mode + ",lf" + row, mode + ",cv" + row}));

    const std::vector<ClassHorizonErrors> byClass = {{MotionClass::Turning, ours, ours, {}}};
    ASSERT_TRUE(writeHorizonErrorsByClass(dir(), byClass));
    EXPECT_EQ(readLines(m_dir / "horizon_errors_by_class.csv"),
              (std::vector<std::string>{
                  "motion,method,horizon_s,samples,ade_m,fde_m,min_ade_m,min_fde_m,weighted_ade_m,weighted_fde_m,miss_rate,brier",
                  "turning,ours" + row, "turning,cv" + row}));

    std::uint64_t rejections[REJECT_REASON_COUNT] = {};
    rejections[static_cast<std::size_t>(RejectReason::Stale)] = 3;
    const auto metrics = rejectionMetrics(rejections);
    ASSERT_EQ(metrics.size(), REJECT_REASON_COUNT - 1);  // "accepted" is not a rejection
    ASSERT_TRUE(writeMetrics(dir(), metrics));
    EXPECT_NE(readFile(m_dir / "metrics.csv").find("rejected_stale,3,lists\n"), std::string::npos);
}

TEST_F(RunRecord, WritesOnePredictionSampleRowPerSampleWithAColumnPerHorizon) {
    PredictionSample sample;
    sample.t0_s = 12.5;
    sample.mode = RuntimeMode::Nominal;
    sample.trueId = 7;
    sample.trackId = 1000007;
    sample.trueSpeed_mps = 9.5;
    sample.corridors = 3;
    sample.mostLikelyProbability = 0.5;
    for (std::size_t h = 0; h < PredictionSample::HORIZONS; ++h) {
        sample.fdeOurs_m[h] = static_cast<double>(h + 1);
    }
    sample.fdeCv_m[3] = std::numeric_limits<double>::quiet_NaN();  // a horizon the truth does not reach
    const std::vector<PredictionSample> samples = {sample, sample};

    ASSERT_TRUE(writePredictionSamples(dir(), samples));

    const auto lines = readLines(m_dir / "prediction_samples.csv");
    ASSERT_EQ(lines.size(), 3U);
    const auto columns = [](const std::string& line) { return std::count(line.begin(), line.end(), ',') + 1; };
    // per-sample fields, eight errors at four horizons, four splits, motion class, two Brier scores, LF modes
    constexpr std::ptrdiff_t COLUMNS = 14 + 8 * 4 + 4 + 4;
    EXPECT_EQ(columns(lines[0]), COLUMNS);
    EXPECT_EQ(columns(lines[1]), COLUMNS);
    EXPECT_EQ(lines[0].rfind("t0_s,mode,true_id,track_id,", 0), 0U);
    EXPECT_NE(lines[0].find(",fde_ours_1s_m,fde_ours_2s_m,fde_ours_3s_m,fde_ours_4s_m,"), std::string::npos);
    EXPECT_EQ(lines[1].rfind(std::string("12.50,") + toString(RuntimeMode::Nominal) + ",7,1000007,9.500,", 0), 0U);
    EXPECT_NE(lines[1].find(",1.000,2.000,3.000,4.000,"), std::string::npos);
    EXPECT_NE(lines[1].find("nan"), std::string::npos);
}

TEST_F(RunRecord, WritesTheGridFrameAsProbabilitiesRowByRow) {
    auto grid = std::make_unique<OccupancyGrid>();
    grid->originX_m = -2.0F;
    grid->originY_m = -1.0F;
    grid->resolution_m = 0.5F;
    grid->widthCells = 3;
    grid->heightCells = 2;
    grid->frameCount = 2;
    grid->cells[1][0 * 3 + 2] = 65535;  // row 0 (lowest y), col 2
    grid->cells[1][1 * 3 + 0] = 16384;  // row 1, col 0: 0.2500
    const std::vector<SnapshotPath> paths = {{PathKind::Ego, 5, 0, 1.0, {{1.0, 2.0}}},
                                             {PathKind::Ours, 7, 1, 0.25, {{3.0, 4.0}, {5.0, 6.0}}}};
    ASSERT_TRUE(writeSnapshot(dir(), *grid, 1, 12.5, 2.0, paths));
    const auto gridLines = readLines(m_dir / "snapshot_grid.csv");
    ASSERT_EQ(gridLines.size(), 10U);
    EXPECT_EQ(gridLines[0], "# t_s 12.500");
    EXPECT_EQ(gridLines[2], "# frame 1");
    EXPECT_EQ(gridLines[8], "0.0000,0.0000,1.0000");
    EXPECT_EQ(gridLines[9], "0.2500,0.0000,0.0000");
    EXPECT_EQ(readLines(m_dir / "snapshot_paths.csv"),
              (std::vector<std::string>{"kind,vehicle_id,candidate,probability,step,x_m,y_m", "ego,5,0,1.0000,0,1.000,2.000",
                                        "ours,7,1,0.2500,1,3.000,4.000", "ours,7,1,0.2500,2,5.000,6.000"}));
}

TEST_F(RunRecord, ReportsAFileThatCannotBeCreated) {
    std::ofstream(m_dir.string() + "_blocker") << "a file where the run directory should be";
    const auto sut = writeCycles(m_dir.string() + "_blocker", {});
    fs::remove(m_dir.string() + "_blocker");
    ASSERT_FALSE(sut);
    EXPECT_NE(sut.error().detail.find("cycles.csv"), std::string::npos);
}

TEST_F(RunRecord, TheReportWriterReadsWhatTheBenchWrites) {
    ASSERT_TRUE(writeRunInfo(dir(), runInfo()));
    std::vector<CycleRecord> cycles;
    std::vector<double> latency;
    for (std::uint64_t c = 0; c < 50; ++c) {
        const double us = c == 20 ? 210'000.0 : 15'000.0 + 100.0 * static_cast<double>(c);
        cycles.push_back({c, 0.2 * static_cast<double>(c), us, c > 20 && c < 30 ? RuntimeMode::ReducedParticles : RuntimeMode::Nominal,
                          c == 20, true});
        latency.push_back(us);
    }
    ASSERT_TRUE(writeCycles(dir(), cycles));
    PredictionAccumulator ours(0.1, REPORT_HORIZONS_S);
    PredictionAccumulator cv(0.1, REPORT_HORIZONS_S);
    std::vector<Point2> truth;
    std::vector<Point2> straight;
    std::vector<Point2> offset;
    for (int k = 1; k <= 40; ++k) {
        truth.push_back({static_cast<double>(k), 0.0});
        straight.push_back({static_cast<double>(k), 1.0});   // 1 m off
        offset.push_back({static_cast<double>(k), 3.0});     // 3 m off
    }
    const std::vector<std::span<const Point2>> candidates = {straight, offset};
    const std::vector<double> probabilities = {0.5, 0.5};
    ours.add(truth, candidates, probabilities);
    const std::vector<std::span<const Point2>> cvOnly = {offset};
    const std::vector<double> one = {1.0};
    cv.add(truth, cvOnly, one);
    ASSERT_TRUE(writeHorizonErrors(dir(), ours.results(), cv.results()));
    std::vector<MetricRecord> metrics = latencyMetrics(summarizeLatency(latency, 200'000.0));
    TrackingAccumulator tracking(10.0, 2.0);
    const std::vector<KinematicState> t = {{0, 0, 1, 0}};
    const std::vector<KinematicState> e = {{0.3, 0.4, 1, 0}};
    tracking.addCycle(t, e);
    for (auto& m : trackingMetrics(tracking.summary())) {
        metrics.push_back(m);
    }
    ASSERT_TRUE(writeMetrics(dir(), metrics));
    auto grid = std::make_unique<OccupancyGrid>();
    grid->originX_m = -10.0F;
    grid->originY_m = -10.0F;
    grid->resolution_m = 0.5F;
    grid->widthCells = 40;
    grid->heightCells = 40;
    grid->frameCount = 1;
    grid->cells[0][20 * 40 + 22] = 40000;
    const std::vector<SnapshotPath> paths = {{PathKind::Ego, 1, 0, 1.0, {{0.0, 0.0}}},
                                             {PathKind::Truth, 2, 0, 1.0, {{1.0, 0.0}, {2.0, 0.0}}}};
    ASSERT_TRUE(writeSnapshot(dir(), *grid, 0, 3.0, 1.0, paths));

    const std::string command = std::string(AUGUR_PYTHON3) + " " + testing::sourcePath("apps/augur-hil/report/hil_report.py") +
                                " " + dir() + " > " + (m_dir / "report.log").string() + " 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << readFile(m_dir / "report.log");
    const std::string summary = readFile(m_dir / "report" / "summary.md");
    // Ours / lane following (not written) / CV: weighted ADE and FDE, most likely FDE, minFDE, miss rate, Brier
    // (ours: the 1 m corridor is the one taken, at probability 0.5; CV: 3 m off, none taken).
    EXPECT_NE(summary.find("| 4 | 1 | 2.00 / — / 3.00 | 2.00 / — / 3.00 | 1.00 / — / 3.00 | 1.00 / — / 3.00 | "
                           "0.00 / — / 1.00 | 0.50 / — / 2.00 |"),
              std::string::npos)
        << summary;
    EXPECT_NE(summary.find("| position_rmse | 0.5 | m |"), std::string::npos) << summary;
    EXPECT_NE(summary.find("- FAIL: deadline misses: 1 (allowed: at most 0)"), std::string::npos) << summary;
    EXPECT_NE(summary.find("- pass: ADE at 4 s: 1.000 m (allowed: at most 2.5 m)"), std::string::npos) << summary;
    for (const char* png : {"latency.png", "errors_vs_horizon.png", "occupancy_snapshot.png"}) {
        EXPECT_GT(fs::file_size(m_dir / "report" / png), 10'000U) << png;
    }
}

}  // namespace
}  // namespace augur::hil
