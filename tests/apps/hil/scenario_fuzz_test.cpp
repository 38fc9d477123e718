// Fuzzing the HIL scenario reader with mutations of the committed scenario's files (scenario.csv cut to
// its first steps, vehicles.csv): every input gives either a scenario whose frames are consistent and
// finite, or an error naming the file and line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "augur/hil/scenario.hpp"
#include "augur/testing/fuzz_loop.hpp"

namespace augur::hil {
namespace {

using augur::testing::FuzzBudget;
using augur::testing::FuzzCorpus;
namespace fs = std::filesystem;

const std::vector<std::string> CSV_TOKENS =
    augur::testing::csvTokens({"# ", "# step_s ", "# augur-scenario ", "car", "pedestrian"});
constexpr std::size_t SCENARIO_LINES = 48;  ///< the header and the first steps of the committed scenario
constexpr std::size_t SHORT_SCENARIO_LINES = 10;  ///< the header and three rows: mutations reach the last row often

std::string readText(const std::string& relative) {
    std::ifstream in(augur::testing::sourcePath(relative), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return std::move(text).str();
}

std::string firstLines(const std::string& text, std::size_t count) {
    std::size_t end = 0;
    for (std::size_t line = 0; line < count && end != std::string::npos; ++line) {
        end = text.find('\n', end == 0 ? 0 : end + 1);
    }
    return end == std::string::npos ? text : text.substr(0, end + 1);
}

void write(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(text.data(), static_cast<std::streamsize>(text.size()));
}

void expectScenarioOrError(const fs::path& directory) {
    const auto loaded = Scenario::load(directory.string());
    if (loaded.hasError()) {
        EXPECT_FALSE(loaded.error().detail.empty());
        return;
    }
    const Scenario& sut = loaded.value();
    EXPECT_TRUE(std::isfinite(sut.step_s()) && sut.step_s() > 0.0) << sut.step_s();
    std::size_t states = 0;
    for (std::size_t step = 0; step < sut.stepCount(); ++step) {
        for (const GroundTruthState& s : sut.frame(step)) {
            ASSERT_TRUE(std::isfinite(s.x_m) && std::isfinite(s.y_m) && std::isfinite(s.heading_rad) &&
                        std::isfinite(s.speed_mps) && std::isfinite(s.length_m) && std::isfinite(s.width_m))
                << "id " << s.id << " step " << step;
            ASSERT_EQ(sut.find(step, s.id), &s);
            ++states;
        }
    }
    EXPECT_EQ(states, sut.stateCount());
}

class ScenarioFuzz : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = fs::path(::testing::TempDir()) / ("augur-scenario-fuzz-" + std::to_string(::getpid()));
        fs::create_directories(m_dir);
        const std::string committed = readText("data/scenarios/intersection-4way/scenario.csv");
        m_scenario = firstLines(committed, SCENARIO_LINES);
        m_shortScenario = firstLines(committed, SHORT_SCENARIO_LINES);
        m_vehicles = readText("data/scenarios/intersection-4way/vehicles.csv");
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }
    fs::path m_dir;
    std::string m_scenario;
    std::string m_shortScenario;
    std::string m_vehicles;
};

TEST_F(ScenarioFuzz, MutatedScenarioCsvGivesConsistentFramesOrAnError) {
    write(m_dir / "vehicles.csv", m_vehicles);
    FuzzBudget budget;
    budget.iterations = 3000;
    const auto report = augur::testing::fuzzText("scenario-csv", FuzzCorpus{{m_scenario, m_shortScenario}}, budget, CSV_TOKENS,
                                                 [&](const std::string& input) {
                                                     write(m_dir / "scenario.csv", input);
                                                     expectScenarioOrError(m_dir);
                                                 });
    EXPECT_GT(report.iterations, 0U);
}

TEST_F(ScenarioFuzz, MutatedVehiclesCsvGivesConsistentFramesOrAnError) {
    write(m_dir / "scenario.csv", m_scenario);
    FuzzBudget budget;
    budget.iterations = 2000;
    const auto report = augur::testing::fuzzText("vehicles-csv", FuzzCorpus{{m_vehicles}}, budget, CSV_TOKENS,
                                                 [&](const std::string& input) {
                                                     write(m_dir / "vehicles.csv", input);
                                                     expectScenarioOrError(m_dir);
                                                 });
    EXPECT_GT(report.iterations, 0U);
}

}  // namespace
}  // namespace augur::hil
