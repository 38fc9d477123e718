// Recorded replay: a fixed scene run through the CPU reference must reproduce the recorded estimates.
// A change of the model, the RNG, the resampling or the reduction changes them and fails this test
// until the recording is regenerated and reviewed:
//   AUGUR_UPDATE_RECORDINGS=1 ./augur_tests_pf --gtest_filter='RecordedReplay.*'
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "augur/kernels/pf/filter.hpp"
#include "augur/testing/testing.hpp"

namespace augur::kernels::pf {
namespace {

constexpr std::uint32_t VEHICLES = 3;
constexpr std::uint32_t PARTICLES = 500;
constexpr int STEPS = 20;
/// Host libm differences (another CPU or C library) can flip a near-tied copy index, which moves an
/// estimate by about 1/K; any change to the algorithm moves it by far more.
constexpr float TOLERANCE = 1e-2F;

std::vector<SceneVehicleInput> inputs(int step) {
    const float t = 0.2F * static_cast<float>(step);
    std::vector<SceneVehicleInput> in(VEHICLES);
    // Vehicle 0 brakes towards a stop line, vehicle 1 crosses with priority, vehicle 2 leaves at a fork.
    in[0].x_m = 10.0F * t - 0.6F * t * t;
    in[0].v_mps = std::fmax(0.0F, 10.0F - 1.2F * t);
    in[0].corridors[0].distanceToStop_m = 40.0F - in[0].x_m;
    in[0].corridors[0].mustGiveWay = 1;
    in[0].corridors[0].giveWayTo = 1;
    in[1].x_m = 40.0F;
    in[1].y_m = -30.0F + 8.0F * t;
    in[1].theta_rad = 1.5707963F;
    in[1].v_mps = 8.0F;
    in[1].corridors[0].heading_rad = 1.5707963F;
    in[1].corridors[0].goSpeed_mps = 8.0F;
    in[2].x_m = -20.0F + 9.0F * t;
    in[2].y_m = 4.0F;
    in[2].v_mps = 9.0F;
    in[2].corridorCount = 2;
    in[2].corridors[0].goSpeed_mps = 9.0F;
    in[2].corridors[1].goSpeed_mps = 9.0F;
    in[2].corridors[1].heading_rad = in[2].x_m > -10.0F ? -0.4F : 0.0F;
    return in;
}

std::vector<std::vector<float>> run() {
    FilterConfig config;
    config.particles = PARTICLES;
    config.vehicles = VEHICLES;
    config.seed = 424242;
    auto sut = cpu::ParticleFilter<SceneModel>::create(config, {});
    EXPECT_TRUE(sut.hasValue());
    EXPECT_TRUE(sut->initialize(inputs(0)));
    std::vector<std::vector<float>> rows;
    for (int k = 1; k <= STEPS; ++k) {
        EXPECT_TRUE(sut->setInputs(inputs(k)));
        sut->step();
        std::vector<float> row(sut->outputs().begin(), sut->outputs().end());
        row.push_back(sut->summary().effectiveSampleSize / static_cast<float>(PARTICLES));
        rows.push_back(std::move(row));
    }
    return rows;
}

TEST(RecordedReplay, SceneEstimatesMatchTheRecording) {
    const std::string path = augur::testing::sourcePath("tests/kernels/pf/data/scene_replay.csv");
    const auto actual = run();
    if (const char* update = std::getenv("AUGUR_UPDATE_RECORDINGS"); update != nullptr && update[0] == '1') {
        std::ofstream out(path);
        for (const auto& row : actual) {
            for (std::size_t c = 0; c < row.size(); ++c) {
                out << (c == 0 ? "" : ",") << row[c];
            }
            out << "\n";
        }
        GTEST_SKIP() << "recording rewritten: " << path;
    }
    std::ifstream in(path);
    ASSERT_TRUE(in.good()) << "missing recording " << path;
    std::string line;
    std::size_t step = 0;
    while (std::getline(in, line) && step < actual.size()) {
        std::stringstream cells(line);
        std::string cell;
        std::size_t c = 0;
        while (std::getline(cells, cell, ',')) {
            ASSERT_LT(c, actual[step].size());
            const float recorded = std::stof(cell);
            EXPECT_NEAR(actual[step][c], recorded, TOLERANCE * std::fmax(1.0F, std::fabs(recorded)))
                << "step " << step + 1 << ", column " << c;
            ++c;
        }
        EXPECT_EQ(c, actual[step].size()) << "step " << step + 1;
        ++step;
    }
    EXPECT_EQ(step, actual.size());
}

}  // namespace
}  // namespace augur::kernels::pf
