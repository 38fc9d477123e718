// Loading valid files: defaults, explicit values, lists, boundaries, path resolution.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "augur/config/loader.hpp"
#include "augur/core/transport_name.hpp"
#include "config_test_support.hpp"

namespace augur::config {
namespace {

using testing::loadMinimalWith;
using testing::loadText;
using testing::MINIMAL;

TEST(DeploymentLoader, MinimalFileTakesEveryDefault) {
    Deployment expected{};
    expected.map.path = "town.net.xml";
    expected.map.format = MapFormat::Sumo;

    const auto sut = loadText(MINIMAL);

    ASSERT_TRUE(sut.hasValue()) << format(sut.error());
    EXPECT_TRUE(sut.value() == expected);
}

TEST(DeploymentLoader, ExplicitValuesReachTheirFields) {
    constexpr std::uint32_t PERIOD_MS = 100;
    constexpr std::uint32_t DEADLINE_MS = 90;
    constexpr double INTENTION_BUDGET_MS = 30.0;
    constexpr double THRESHOLD = 0.25;
    constexpr double RADIUS_M = 7.5;
    const std::string yaml = "runtime:\n"
                             "  cycle_period_ms: 100\n"
                             "  deadline_ms: 90\n"
                             "  backend: cpu\n"
                             "  lock_memory: true\n"
                             "  stage_budgets_ms:\n"
                             "    track: 10\n"
                             "    intention: 30\n"
                             "    motion: 10\n"
                             "intention:\n"
                             "  resampling: differential_evolution\n"
                             "  resample_threshold: 0.25\n"
                             "flocks:\n"
                             "  radius_m: 7.5\n"
                             "transport:\n"
                             "  health:\n"
                             "    service: \"monitor-1\"\n";

    const auto sut = loadMinimalWith(yaml);

    ASSERT_TRUE(sut.hasValue()) << format(sut.error());
    const Deployment& d = sut.value();
    EXPECT_EQ(d.runtime.cyclePeriod_ms, PERIOD_MS);
    EXPECT_EQ(d.runtime.deadline_ms, DEADLINE_MS);
    EXPECT_EQ(d.runtime.backend, Backend::Cpu);
    EXPECT_TRUE(d.runtime.lockMemory);
    EXPECT_EQ(d.runtime.stageBudget_ms[static_cast<std::size_t>(Stage::Intention)], INTENTION_BUDGET_MS);
    EXPECT_EQ(d.intention.resampling, Resampling::DifferentialEvolution);
    EXPECT_EQ(d.intention.resampleThreshold, THRESHOLD);
    EXPECT_EQ(d.flocks.radius_m, RADIUS_M);
    EXPECT_EQ(d.transport.health.service, "monitor-1");
    EXPECT_EQ(d.transport.health.event, TransportConfig{}.health.event);  // untouched sibling keeps its default
}

TEST(DeploymentLoader, IceoryxNamesOfEveryAllowedCharacterAreAccepted) {
    const std::string appName = "Augur-main_2.0:x";
    const std::string longest(TRANSPORT_NAME_MAX_CHARS, 'e');
    const std::string yaml = "transport:\n  application_name: " + appName + "\n  health:\n    event: " + longest + "\n";

    const auto sut = loadMinimalWith(yaml);

    ASSERT_TRUE(sut.hasValue()) << format(sut.error());
    EXPECT_EQ(sut.value().transport.applicationName, appName);
    EXPECT_EQ(sut.value().transport.health.event, longest);
}

TEST(DeploymentLoader, MapFileLimitAndPinReachTheirFields) {
    constexpr std::uint64_t MAX_BYTES = 4096;
    const std::string pin(64, 'A');
    const std::string yaml = std::string(MINIMAL) + "  max_bytes: 4096\n  sha256: " + pin + "\n";

    const auto sut = loadText(yaml);

    ASSERT_TRUE(sut.hasValue()) << format(sut.error());
    EXPECT_EQ(sut.value().map.maxBytes, MAX_BYTES);
    EXPECT_EQ(sut.value().map.sha256, pin);
}

// yaml-cpp 0.7's LoadAll never returns on these (found by the fuzz test); the loader must not hang.
TEST(DeploymentLoader, TokenNoValueStartsWithIsASyntaxErrorAtItsLine) {
    constexpr std::int32_t COMMA_LINE = 2;
    const std::string texts[] = {"# comment\n, at most 1.\n" + std::string(MINIMAL), "\n,\n"};
    for (const std::string& text : texts) {
        const auto sut = loadText(text);
        ASSERT_TRUE(sut.hasError()) << text;
        EXPECT_EQ(sut.error().kind, ConfigErrorKind::SyntaxError) << text;
        EXPECT_EQ(sut.error().line, COMMA_LINE) << format(sut.error());
    }
}

TEST(DeploymentLoader, CpuAffinityTakesZeroOneOrManyCores) {
    const auto none = loadMinimalWith("runtime:\n  cpu_affinity: []\n");
    const auto one = loadMinimalWith("runtime:\n  cpu_affinity: [3]\n");
    const auto many = loadMinimalWith("runtime:\n  cpu_affinity:\n    - 0\n    - 2\n    - 5\n");

    ASSERT_TRUE(none.hasValue()) << format(none.error());
    ASSERT_TRUE(one.hasValue()) << format(one.error());
    ASSERT_TRUE(many.hasValue()) << format(many.error());
    EXPECT_TRUE(none.value().runtime.cpuAffinity.empty());
    EXPECT_EQ(one.value().runtime.cpuAffinity, (std::vector<std::int32_t>{3}));
    EXPECT_EQ(many.value().runtime.cpuAffinity, (std::vector<std::int32_t>{0, 2, 5}));
}

TEST(DeploymentLoader, SectionWithEveryKeyCommentedOutIsEmpty) {
    const auto sut = loadMinimalWith("runtime:\n  # cycle_period_ms: 100\ngrid:\n");

    ASSERT_TRUE(sut.hasValue()) << format(sut.error());
    EXPECT_TRUE(sut.value().runtime == RuntimeConfig{});
}

TEST(DeploymentLoader, WholeNumberIsAcceptedWhereANumberIsExpected) {
    constexpr double HORIZON_S = 2.0;

    const auto sut = loadMinimalWith("motion:\n  horizon_s: 2\n");

    ASSERT_TRUE(sut.hasValue()) << format(sut.error());
    EXPECT_EQ(sut.value().motion.horizon_s, HORIZON_S);
}

TEST(DeploymentLoader, RangeEndsAndCompiledLimitsThemselvesAreAccepted) {
    const std::string yaml = "intention:\n"
                             "  resample_threshold: 1\n"
                             "  de:\n"
                             "    crossover: 0\n"
                             "runtime:\n"
                             "  rt_priority: 99\n"
                             "capacities:\n"
                             "  max_objects: 128\n"
                             "  max_corridors_per_vehicle: 8\n"
                             "grid:\n"
                             "  width_cells: 128\n"
                             "  frame_interval_s: 0.5\n";  // 4 s / 0.5 s = 8 frames = MAX_GRID_FRAMES

    const auto sut = loadMinimalWith(yaml);

    ASSERT_TRUE(sut.hasValue()) << format(sut.error());
    EXPECT_EQ(sut.value().intention.resampleThreshold, 1.0);
    EXPECT_EQ(sut.value().capacities.maxObjects, MAX_OBJECTS);
    EXPECT_EQ(gridFrames(sut.value().grid, sut.value().motion), MAX_GRID_FRAMES);
}

TEST(DeploymentLoader, StageBudgetsSummingExactlyToTheDeadlineAreAccepted) {
    const std::string yaml = "runtime:\n"
                             "  deadline_ms: 70\n"
                             "  stage_budgets_ms: {ingest: 10, track: 10, relations: 10, intention: 10,"
                             " motion: 10, platoons: 10, publish: 10}\n";

    const auto sut = loadMinimalWith(yaml);

    ASSERT_TRUE(sut.hasValue()) << format(sut.error());
    EXPECT_EQ(stageBudgetSum_ms(sut.value().runtime), 70.0);
}

TEST(DeploymentLoader, HorizonOfTheCompiledMaximumStepsIsAccepted) {
    const auto sut = loadMinimalWith("motion:\n  horizon_s: 2.0\n  step_s: 0.05\n");

    ASSERT_TRUE(sut.hasValue()) << format(sut.error());
    EXPECT_EQ(horizonSteps(sut.value().motion), MAX_HORIZON_STEPS);
}

TEST(DeploymentLoader, CpuCellsAboveTheChainBeforeThemTakeThatChainsCells) {
    const auto defaults = loadMinimalWith("");
    const auto above = loadMinimalWith("motion:\n  position_cells: 80\n  speed_cells: 8\n  cpu:\n    speed_cells: 9\n");

    ASSERT_TRUE(defaults.hasValue()) << format(defaults.error());
    ASSERT_TRUE(above.hasValue()) << format(above.error());
    const CpuChainCells sized = cpuChainCells(defaults.value().motion);  // 200 x 20, then 100 x 10, then 50 x 5
    EXPECT_EQ(sized.fullPosition, 100U);
    EXPECT_EQ(sized.fullSpeed, 10U);
    EXPECT_EQ(sized.coarsePosition, 50U);
    EXPECT_EQ(sized.coarseSpeed, 5U);
    const CpuChainCells clamped = cpuChainCells(above.value().motion);  // 80 x 8: the full chain is the chain
    EXPECT_EQ(clamped.fullPosition, 80U);
    EXPECT_EQ(clamped.fullSpeed, 8U);
    EXPECT_EQ(clamped.coarsePosition, 50U);
    EXPECT_EQ(clamped.coarseSpeed, 8U) << "9 speed cells above the full chain's 8";
}

TEST(DeploymentLoader, RelativeMapPathIsResolvedAgainstTheFilesFolder) {
    const std::filesystem::path folder = std::filesystem::temp_directory_path() / "augur_config_loader_test";
    std::filesystem::create_directories(folder);
    const std::filesystem::path file = folder / "deployment.yaml";
    std::ofstream(file) << MINIMAL;

    const auto sut = loadDeployment(file.string());

    ASSERT_TRUE(sut.hasValue()) << format(sut.error());
    EXPECT_EQ(sut.value().map.path, (folder / "town.net.xml").string());
    std::filesystem::remove_all(folder);
}

TEST(DeploymentLoader, AbsoluteMapPathIsKept) {
    const std::filesystem::path folder = std::filesystem::temp_directory_path() / "augur_config_loader_abs_test";
    std::filesystem::create_directories(folder);
    const std::filesystem::path file = folder / "deployment.yaml";
    std::ofstream(file) << "schema_version: 1\nmap:\n  path: /srv/maps/town.net.xml\n  format: sumo\n";

    const auto sut = loadDeployment(file.string());

    ASSERT_TRUE(sut.hasValue()) << format(sut.error());
    EXPECT_EQ(sut.value().map.path, "/srv/maps/town.net.xml");
    std::filesystem::remove_all(folder);
}

TEST(DeploymentLoader, MapPathFromTextIsKeptAsWritten) {
    const auto sut = loadText(MINIMAL);

    ASSERT_TRUE(sut.hasValue()) << format(sut.error());
    EXPECT_EQ(sut.value().map.path, "town.net.xml");
}

}  // namespace
}  // namespace augur::config
