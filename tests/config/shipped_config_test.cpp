// The shipped deployment files load, say what they claim, and survive a write/read round trip.
#include <gtest/gtest.h>

#include <filesystem>

#include "augur/config/loader.hpp"
#include "augur/config/yaml_writer.hpp"
#include "augur/testing/testing.hpp"

namespace augur::config {
namespace {

Deployment loadShipped(const char* relative) {
    const auto loaded = loadDeployment(augur::testing::sourcePath(relative));
    if (loaded.hasError()) {
        ADD_FAILURE() << format(loaded.error());
        return Deployment{};
    }
    return loaded.value();
}

TEST(ShippedConfig, DefaultYamlSpellsOutTheDefaultOfEveryKey) {
    const Deployment sut = loadShipped("config/default.yaml");

    Deployment expected{};
    expected.map = sut.map;  // the only required section: the file names its own map
    EXPECT_TRUE(sut == expected) << toYaml(sut);
    EXPECT_EQ(sut.map.format, MapFormat::Sumo);  // the committed four-way intersection (SUMO net)
}

TEST(ShippedConfig, DefaultYamlSuitsABenchWithoutRealTimeSetup) {
    const Deployment sut = loadShipped("config/default.yaml");

    EXPECT_EQ(sut.runtime.backend, Backend::Auto);
    EXPECT_TRUE(sut.runtime.cpuAffinity.empty());
    EXPECT_EQ(sut.runtime.rtPriority, 0);
    EXPECT_FALSE(sut.runtime.lockMemory);
    EXPECT_EQ(sut.runtime.onRtSetupFailure, RtSetupFailurePolicy::Warn);
}

TEST(ShippedConfig, JetsonOrinYamlRequiresCudaAndTheRealTimeSetup) {
    const std::vector<std::int32_t> isolatedCores{2, 3};
    constexpr std::int32_t FIFO_PRIORITY = 80;
    constexpr std::uint32_t DEADLINE_MS = 180;

    const Deployment sut = loadShipped("config/jetson-orin.yaml");

    EXPECT_EQ(sut.runtime.backend, Backend::Cuda);
    EXPECT_EQ(sut.runtime.cpuAffinity, isolatedCores);
    EXPECT_EQ(sut.runtime.rtPriority, FIFO_PRIORITY);
    EXPECT_TRUE(sut.runtime.lockMemory);
    EXPECT_EQ(sut.runtime.onRtSetupFailure, RtSetupFailurePolicy::Fail);
    EXPECT_EQ(sut.runtime.deadline_ms, DEADLINE_MS);
    EXPECT_LE(stageBudgetSum_ms(sut.runtime), static_cast<double>(sut.runtime.deadline_ms));
    EXPECT_EQ(sut.map.format, MapFormat::Lanelet2);
    EXPECT_TRUE(std::filesystem::exists(sut.map.path)) << "the shipped vehicle deployment names a map that exists";
}

TEST(ShippedConfig, MapPathIsResolvedAgainstTheConfigFolder) {
    const Deployment sut = loadShipped("config/default.yaml");

    const std::filesystem::path expected = (std::filesystem::path(augur::testing::sourcePath("config")) /
                                            "../data/scenarios/intersection-4way/map.net.xml")
                                               .lexically_normal();
    EXPECT_EQ(sut.map.path, expected.string());
    EXPECT_EQ(sut.map.format, MapFormat::Sumo);
    EXPECT_TRUE(std::filesystem::exists(sut.map.path)) << "the default deployment must run as shipped";
}

class ShippedConfigRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(ShippedConfigRoundTrip, WrittenYamlLoadsBackEqual) {
    const Deployment original = loadShipped(GetParam());
    const std::string written = toYaml(original);

    const auto sut = loadDeploymentFromString(written, "written.yaml");

    ASSERT_TRUE(sut.hasValue()) << format(sut.error()) << "\n" << written;
    EXPECT_TRUE(sut.value() == original) << written;
    EXPECT_EQ(toYaml(sut.value()), written);
}

std::string shippedFileName(const ::testing::TestParamInfo<const char*>& param) {
    return param.index == 0 ? std::string("Default") : std::string("JetsonOrin");
}

INSTANTIATE_TEST_SUITE_P(ShippedFiles, ShippedConfigRoundTrip,
                         ::testing::Values("config/default.yaml", "config/jetson-orin.yaml"), shippedFileName);

TEST(ConfigRoundTrip, NonDefaultValuesOfEveryTypeSurviveWriting) {
    Deployment original{};
    original.map.path = "maps/with \"quotes\" and: colon.osm";
    original.map.format = MapFormat::Sumo;
    original.runtime.cpuAffinity = {0, 7};
    original.runtime.lockMemory = true;
    original.intention.resampleThreshold = 0.1 + 0.2;  // not exactly 0.3: needs every digit
    original.intention.seed = 18'446'744'073ULL;
    original.transport.health.instance = "main:2.0";
    original.output.tracePath = "#not a comment.json";
    original.map.maxBytes = 4096;
    original.map.sha256 = std::string(64, 'a');

    const auto sut = loadDeploymentFromString(toYaml(original), "written.yaml");

    ASSERT_TRUE(sut.hasValue()) << format(sut.error()) << "\n" << toYaml(original);
    EXPECT_TRUE(sut.value() == original) << toYaml(original);
}

}  // namespace
}  // namespace augur::config
