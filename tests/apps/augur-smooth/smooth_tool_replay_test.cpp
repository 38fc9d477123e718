// Recorded replay of augur-smooth: the shipped measurement log (data/measurements.csv) filtered and
// smoothed with the CV and CA models must reproduce the recorded outputs (data/smoothed_*.csv). A change
// of the filter, the smoother or the output format fails here until the recordings are regenerated with
//   augur-smooth --input data/measurements.csv --output data/smoothed_cv.csv
//   augur-smooth --input data/measurements.csv --model ca --noise-density 0.2 --output data/smoothed_ca.csv
// and the difference is reviewed.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "augur/testing/testing.hpp"
#include "smooth_tool.hpp"

namespace augur::apps::smooth {
namespace {

// Relative tolerance: the recordings hold 17 significant digits; different compilers and vector units
// (x86-64, aarch64) may change the last bits, a behavioural change moves far more.
constexpr double TOLERANCE = 1e-9;

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        out.push_back(line);
    }
    return out;
}

std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    std::string field;
    while (std::getline(in, field, ',')) {
        out.push_back(field);
    }
    return out;
}

void expectReplayMatchesRecording(const Options& options, const std::string& recording) {
    std::ifstream measurementsFile(testing::sourcePath("tests/apps/augur-smooth/data/measurements.csv"));
    std::ifstream recordingFile(testing::sourcePath("tests/apps/augur-smooth/data/" + recording));
    ASSERT_TRUE(measurementsFile && recordingFile);
    const auto measurements = readMeasurements(measurementsFile);
    ASSERT_TRUE(measurements.hasValue()) << measurements.error();
    const auto rows = smoothAll(options, *measurements);
    ASSERT_TRUE(rows.hasValue()) << rows.error();
    std::ostringstream produced;
    writeSmoothed(produced, options.model, *rows);
    std::stringstream expected;
    expected << recordingFile.rdbuf();

    const auto got = lines(produced.str());
    const auto want = lines(expected.str());
    ASSERT_EQ(got.size(), want.size());
    EXPECT_EQ(got[0], want[0]);  // header
    for (std::size_t i = 1; i < want.size(); ++i) {
        const auto g = fields(got[i]);
        const auto w = fields(want[i]);
        ASSERT_EQ(g.size(), w.size()) << "line " << i + 1;
        EXPECT_EQ(g[0], w[0]) << "line " << i + 1;  // target id
        EXPECT_EQ(g[1], w[1]) << "line " << i + 1;  // time
        for (std::size_t c = 2; c < w.size(); ++c) {
            const double gv = std::stod(g[c]);
            const double wv = std::stod(w[c]);
            ASSERT_NEAR(gv, wv, TOLERANCE * (1.0 + std::abs(wv))) << "line " << i + 1 << ", column " << c + 1;
        }
    }
}

TEST(SmoothToolReplay, ConstantVelocityReproducesRecording) {
    Options options;
    options.inputPath = "data/measurements.csv";
    expectReplayMatchesRecording(options, "smoothed_cv.csv");
}

TEST(SmoothToolReplay, ConstantAccelerationReproducesRecording) {
    Options options;
    options.inputPath = "data/measurements.csv";
    options.model = kernels::kf::MotionModel::ConstantAcceleration;
    options.noiseDensity = 0.2;
    expectReplayMatchesRecording(options, "smoothed_ca.csv");
}

TEST(SmoothToolReplay, SequentialSmootherReproducesTheSameRecording) {
    Options options;
    options.inputPath = "data/measurements.csv";
    options.method = Method::Sequential;
    expectReplayMatchesRecording(options, "smoothed_cv.csv");
}

}  // namespace
}  // namespace augur::apps::smooth
