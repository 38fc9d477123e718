// Every kind of bad configuration: each case asserts the error's kind, key path and line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "augur/config/loader.hpp"
#include "augur/testing/testing.hpp"
#include "config_test_support.hpp"

namespace augur::config {
namespace {

using testing::FIRST_APPENDED_LINE;
using testing::loadMinimalWith;
using testing::loadText;
using testing::MINIMAL;
using testing::SOURCE_NAME;

constexpr std::int32_t L5 = FIRST_APPENDED_LINE;
constexpr std::int32_t L6 = FIRST_APPENDED_LINE + 1;
constexpr std::int32_t L7 = FIRST_APPENDED_LINE + 2;
constexpr std::int32_t L8 = FIRST_APPENDED_LINE + 3;

struct BadCase {
    const char* name;
    std::string yaml;  ///< appended to MINIMAL unless `whole`
    ConfigErrorKind kind;
    const char* keyPath;
    std::int32_t line;
    bool whole{false};
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

std::string caseName(const ::testing::TestParamInfo<BadCase>& param) { return param.param.name; }

class BadConfig : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadConfig, IsRejectedWithItsKindKeyAndLine) {
    const BadCase& c = GetParam();

    const auto sut = c.whole ? loadText(c.yaml) : loadMinimalWith(c.yaml);

    ASSERT_TRUE(sut.hasError()) << "accepted:\n" << c.yaml;
    const ConfigError& error = sut.error();
    EXPECT_EQ(error.kind, c.kind) << format(error);
    EXPECT_EQ(error.keyPath, c.keyPath) << format(error);
    EXPECT_EQ(error.line, c.line) << format(error);
    EXPECT_EQ(error.file, SOURCE_NAME);
    EXPECT_FALSE(error.message.empty());
}

using K = ConfigErrorKind;

// clang-format off
INSTANTIATE_TEST_SUITE_P(WrongType, BadConfig, ::testing::Values(
    BadCase{"TextForAnInteger", "runtime:\n  cycle_period_ms: fast\n", K::WrongType, "runtime.cycle_period_ms", L6},
    BadCase{"QuotedNumber", "runtime:\n  deadline_ms: \"150\"\n", K::WrongType, "runtime.deadline_ms", L6},
    BadCase{"FractionForAnInteger", "capacities:\n  max_objects: 12.5\n", K::WrongType, "capacities.max_objects", L6},
    BadCase{"TextForANumber", "motion:\n  step_s: 0.1s\n", K::WrongType, "motion.step_s", L6},
    BadCase{"ListForANumber", "motion:\n  step_s: [0.1]\n", K::WrongType, "motion.step_s", L6},
    BadCase{"NothingForANumber", "motion:\n  step_s:\n", K::WrongType, "motion.step_s", L6},
    BadCase{"WordForABoolean", "grid:\n  enabled: maybe\n", K::WrongType, "grid.enabled", L6},
    BadCase{"NumberForASection", "runtime: 5\n", K::WrongType, "runtime", L5},
    BadCase{"ListForASection", "flocks:\n  - enabled\n", K::WrongType, "flocks", L5},
    BadCase{"MappingForAString", "output:\n  trace_path: {file: x}\n", K::WrongType, "output.trace_path", L6},
    BadCase{"ScalarForAList", "runtime:\n  cpu_affinity: 3\n", K::WrongType, "runtime.cpu_affinity", L6},
    BadCase{"TextInAList", "runtime:\n  cpu_affinity:\n    - 1\n    - two\n", K::WrongType, "runtime.cpu_affinity", L8},
    BadCase{"ListAsTheDocument", "- schema_version\n", K::WrongType, "", 1, true}),
    caseName);

INSTANTIATE_TEST_SUITE_P(OutOfRange, BadConfig, ::testing::Values(
    BadCase{"AboveTheMaximum", "intention:\n  resample_threshold: 1.5\n", K::OutOfRange, "intention.resample_threshold", L6},
    BadCase{"BelowTheMinimum", "runtime:\n  rt_priority: -1\n", K::OutOfRange, "runtime.rt_priority", L6},
    BadCase{"OnAnOpenEnd", "motion:\n  step_s: 0\n", K::OutOfRange, "motion.step_s", L6},
    BadCase{"MoreFullChainVehiclesThanPredicted", "motion:\n  cpu:\n    full_chain_vehicles: 65\n", K::OutOfRange,
            "motion.cpu.full_chain_vehicles", L7},
    BadCase{"CpuChainWithOneSpeedCell", "motion:\n  cpu:\n    speed_cells: 1\n", K::OutOfRange, "motion.cpu.speed_cells", L7},
    BadCase{"Infinity", "flocks:\n  radius_m: .inf\n", K::OutOfRange, "flocks.radius_m", L6},
    BadCase{"NotANumber", "tracking:\n  accel_noise_density: .nan\n", K::OutOfRange, "tracking.accel_noise_density", L6},
    BadCase{"TooLargeFor64Bits", "intention:\n  seed: 99999999999999999999\n", K::OutOfRange, "intention.seed", L6},
    BadCase{"NameNotAllowed", "runtime:\n  backend: gpu\n", K::OutOfRange, "runtime.backend", L6},
    BadCase{"EmptyServiceName", "transport:\n  tracks:\n    service: \"\"\n", K::OutOfRange, "transport.tracks.service", L7},
    BadCase{"ServiceNameLongerThanIceoryxAllows", "transport:\n  tracks:\n    service: " + std::string(101, 's') + "\n",
            K::OutOfRange, "transport.tracks.service", L7},
    BadCase{"ListElementAboveTheMaximum", "runtime:\n  cpu_affinity: [1, 5000]\n", K::OutOfRange, "runtime.cpu_affinity", L6},
    BadCase{"OtherSchemaVersion", "schema_version: 2\nmap:\n  path: a.osm\n  format: sumo\n", K::OutOfRange,
            "schema_version", 1, true}),
    caseName);

INSTANTIATE_TEST_SUITE_P(UnknownKey, BadConfig, ::testing::Values(
    BadCase{"MisspeltKey", "intention:\n  resample_treshold: 0.5\n", K::UnknownKey, "intention.resample_treshold", L6},
    BadCase{"MisspeltSection", "runtim:\n  cycle_period_ms: 100\n", K::UnknownKey, "runtim", L5},
    BadCase{"KeyOfAnotherSection", "intention:\n  particles: 100\n", K::UnknownKey, "intention.particles", L6},
    BadCase{"NestedTooDeep", "runtime:\n  watchdog:\n    misses_to_degrade:\n      count: 2\n", K::WrongType,
            "runtime.watchdog.misses_to_degrade", L7},
    BadCase{"UnrelatedName", "banana: 1\n", K::UnknownKey, "banana", L5}),
    caseName);

INSTANTIATE_TEST_SUITE_P(MissingKey, BadConfig, ::testing::Values(
    BadCase{"SchemaVersion", "map:\n  path: a.osm\n  format: sumo\n", K::MissingKey, "schema_version", 0, true},
    BadCase{"MapPath", "schema_version: 1\nmap:\n  format: sumo\n", K::MissingKey, "map.path", 2, true},
    BadCase{"EmptyDocument", "", K::MissingKey, "schema_version", 0, true},
    BadCase{"Lanelet2OriginLatitude", "schema_version: 1\nmap:\n  path: a.osm\n", K::MissingKey, "map.origin_lat_deg", 2, true},
    BadCase{"Lanelet2OriginLongitude", "schema_version: 1\nmap:\n  path: a.osm\n  origin_lat_deg: 48.1\n",
            K::MissingKey, "map.origin_lon_deg", 2, true}),
    caseName);

INSTANTIATE_TEST_SUITE_P(Inconsistent, BadConfig, ::testing::Values(
    BadCase{"DeadlineOverPeriod", "runtime:\n  cycle_period_ms: 100\n  deadline_ms: 120\n", K::Inconsistent,
            "runtime.deadline_ms", L7},
    BadCase{"BudgetsOverDeadline", "runtime:\n  deadline_ms: 150\n  stage_budgets_ms:\n    motion: 31\n",
            K::Inconsistent, "runtime.stage_budgets_ms", L7},
    BadCase{"AffinityListsACoreTwice", "runtime:\n  cpu_affinity: [2, 3, 2]\n", K::Inconsistent, "runtime.cpu_affinity", L6},
    BadCase{"MorePredictedVehiclesThanTracks", "capacities:\n  max_tracks: 32\n  max_predicted_vehicles: 33\n",
            K::Inconsistent, "capacities.max_predicted_vehicles", L7},
    BadCase{"ReducedParticlesOverNominal", "capacities:\n  particles: 128\nintention:\n  particles_reduced: 256\n",
            K::Inconsistent, "intention.particles_reduced", L8},
    BadCase{"HorizonNotAMultipleOfTheStep", "motion:\n  step_s: 0.3\n", K::Inconsistent, "motion.step_s", L6},
    BadCase{"PositionRangeShorterThanReach", "motion:\n  max_speed_mps: 60\n", K::Inconsistent, "motion.max_speed_mps", L6},
    BadCase{"GridFramesOffTheSteps", "grid:\n  frame_interval_s: 0.75\n", K::Inconsistent, "grid.frame_interval_s", L6},
    BadCase{"FlockWindowOverHistory", "capacities:\n  track_history_cycles: 8\n", K::Inconsistent,
            "capacities.track_history_cycles", L6},
    BadCase{"FlockLargerThanTrackCapacity", "capacities:\n  max_tracks: 2\n  max_predicted_vehicles: 2\n",
            K::Inconsistent, "capacities.max_tracks", L6},
    BadCase{"ConfirmationHitsOverTheWindow", "tracking:\n  confirm_after_hits: 4\n  confirm_window: 3\n",
            K::Inconsistent, "tracking.confirm_after_hits", L6},
    BadCase{"IdBonusOutweighsTheGate", "tracking:\n  gates:\n    mahalanobis_sq: 2.0\n    id_bonus: 3.0\n",
            K::Inconsistent, "tracking.gates.id_bonus", L8},
    BadCase{"TwoChannelsWithOneName", "transport:\n  health:\n    event: tracks\n", K::Inconsistent, "transport.health", L6}),
    caseName);

// Names handed to iceoryx (augur/core/transport_name.hpp): the application name becomes the socket
// /tmp/<name>; channel names are copied as C strings.
INSTANTIATE_TEST_SUITE_P(BadName, BadConfig, ::testing::Values(
    BadCase{"ApplicationNameWithASpace", "transport:\n  application_name: \"augur main\"\n", K::OutOfRange,
            "transport.application_name", L6},
    BadCase{"ApplicationNameNotAscii", "transport:\n  application_name: \"augur\xc3\xa9\"\n", K::OutOfRange,
            "transport.application_name", L6},
    BadCase{"ApplicationNameWithALeadingSlash", "transport:\n  application_name: /augur\n", K::OutOfRange,
            "transport.application_name", L6},
    BadCase{"ApplicationNameOutsideTheFolder", "transport:\n  application_name: ../x\n", K::OutOfRange,
            "transport.application_name", L6},
    BadCase{"ApplicationNameWithANul", "transport:\n  application_name: \"augur\\0x\"\n", K::OutOfRange,
            "transport.application_name", L6},
    BadCase{"ApplicationNameOverLength", "transport:\n  application_name: " + std::string(101, 'a') + "\n",
            K::OutOfRange, "transport.application_name", L6},
    BadCase{"ApplicationNameDot", "transport:\n  application_name: .\n", K::OutOfRange, "transport.application_name", L6},
    BadCase{"ApplicationNameDotDot", "transport:\n  application_name: ..\n", K::OutOfRange,
            "transport.application_name", L6},
    BadCase{"ApplicationNameEndingInADot", "transport:\n  application_name: augur.\n", K::OutOfRange,
            "transport.application_name", L6},
    BadCase{"ServiceWithASpace", "transport:\n  tracks:\n    service: \"augur main\"\n", K::OutOfRange,
            "transport.tracks.service", L7},
    BadCase{"InstanceNotAscii", "transport:\n  prediction:\n    instance: \"m\xc3\xa4in\"\n", K::OutOfRange,
            "transport.prediction.instance", L7},
    BadCase{"EventWithASlash", "transport:\n  platoons:\n    event: /platoons\n", K::OutOfRange,
            "transport.platoons.event", L7},
    BadCase{"EventOutsideTheFolder", "transport:\n  intentions:\n    event: ../x\n", K::OutOfRange,
            "transport.intentions.event", L7},
    // "tracks\0x" would reach iceoryx as "tracks": the health messages on the tracks topic.
    BadCase{"EventWithANulThatWouldShareATopic", "transport:\n  health:\n    event: \"tracks\\0x\"\n", K::OutOfRange,
            "transport.health.event", L7},
    BadCase{"InstanceOverLength", "transport:\n  objects:\n    instance: " + std::string(101, 'i') + "\n",
            K::OutOfRange, "transport.objects.instance", L7},
    BadCase{"ServiceDot", "transport:\n  health:\n    service: .\n", K::OutOfRange, "transport.health.service", L7},
    BadCase{"ServiceDotDot", "transport:\n  health:\n    service: ..\n", K::OutOfRange, "transport.health.service", L7},
    BadCase{"MapPathWithANul", "schema_version: 1\nmap:\n  path: \"town\\0.net.xml\"\n  format: sumo\n",
            K::OutOfRange, "map.path", 3, true}),
    caseName);

INSTANTIATE_TEST_SUITE_P(BadFileCheck, BadConfig, ::testing::Values(
    BadCase{"MapMaxBytesZero", std::string(MINIMAL) + "  max_bytes: 0\n", K::OutOfRange, "map.max_bytes", L5, true},
    BadCase{"MapSha256NotHex", std::string(MINIMAL) + "  sha256: " + std::string(64, 'g') + "\n", K::OutOfRange,
            "map.sha256", L5, true},
    BadCase{"MapSha256TooShort", std::string(MINIMAL) + "  sha256: abc\n", K::OutOfRange, "map.sha256", L5, true}),
    caseName);

INSTANTIATE_TEST_SUITE_P(OverCompiledLimit, BadConfig, ::testing::Values(
    BadCase{"MaxObjects", "capacities:\n  max_objects: 129\n", K::OverCompiledLimit, "capacities.max_objects", L6},
    BadCase{"MaxTracks", "capacities:\n  max_tracks: 129\n", K::OverCompiledLimit, "capacities.max_tracks", L6},
    BadCase{"MaxPredictedVehicles", "capacities:\n  max_predicted_vehicles: 65\n", K::OverCompiledLimit,
            "capacities.max_predicted_vehicles", L6},
    BadCase{"MaxCorridorsPerVehicle", "capacities:\n  max_corridors_per_vehicle: 9\n", K::OverCompiledLimit,
            "capacities.max_corridors_per_vehicle", L6},
    BadCase{"GridSide", "grid:\n  height_cells: 256\n", K::OverCompiledLimit, "grid.height_cells", L6},
    BadCase{"HorizonSteps", "motion:\n  horizon_s: 4.1\n", K::OverCompiledLimit, "motion.horizon_s", L6},
    BadCase{"GridFrames", "grid:\n  frame_interval_s: 0.4\n", K::OverCompiledLimit, "grid.frame_interval_s", L6}),
    caseName);

INSTANTIATE_TEST_SUITE_P(Bridge, BadConfig, ::testing::Values(
    BadCase{"TopicPrefixWithAnEmptySegment", "bridge:\n  topic_prefix: rt//augur\n", K::OutOfRange,
            "bridge.topic_prefix", L6},
    BadCase{"TopicPrefixWithALeadingSlash", "bridge:\n  topic_prefix: /rt/augur\n", K::OutOfRange,
            "bridge.topic_prefix", L6},
    BadCase{"TopicPrefixEndingInASlash", "bridge:\n  topic_prefix: rt/augur/\n", K::OutOfRange,
            "bridge.topic_prefix", L6},
    BadCase{"TopicPrefixWithADash", "bridge:\n  topic_prefix: rt/augur-main\n", K::OutOfRange,
            "bridge.topic_prefix", L6},
    BadCase{"UnknownReliability", "bridge:\n  qos:\n    prediction: at_most_once\n", K::OutOfRange,
            "bridge.qos.prediction", L7},
    BadCase{"UnknownRole", "bridge:\n  role: planner\n", K::OutOfRange, "bridge.role", L6},
    BadCase{"DomainAboveTheRtpsLimit", "bridge:\n  domain_id: 233\n", K::OutOfRange, "bridge.domain_id", L6},
    BadCase{"LeaseNotBelowTheDeadline", "bridge:\n  deadline_ms: 250\n  liveliness_lease_ms: 250\n",
            K::Inconsistent, "bridge.liveliness_lease_ms", L7},
    BadCase{"DeadlineNotAboveTheCyclePeriod", "bridge:\n  deadline_ms: 200\n", K::Inconsistent, "bridge.deadline_ms",
            L6},
    BadCase{"AutowareTopicUnderThePrefix", "bridge:\n  autoware:\n    enabled: true\n    topic: rt/augur/objects\n",
            K::Inconsistent, "bridge.autoware.topic", L8}),
    caseName);

INSTANTIATE_TEST_SUITE_P(SyntaxError, BadConfig, ::testing::Values(
    BadCase{"UnclosedFlowList", "runtime:\n  cpu_affinity: [1, 2\n  rt_priority: 3\n", K::SyntaxError, "", L7},
    BadCase{"BadIndentation", "runtime:\n  cycle_period_ms: 100\n    deadline_ms: 90\n", K::SyntaxError, "", L7},
    BadCase{"TwoDocuments", "---\nruntime: {}\n", K::SyntaxError, "", L6},
    BadCase{"DuplicateKey", "runtime:\n  deadline_ms: 100\n  deadline_ms: 90\n", K::SyntaxError, "runtime.deadline_ms", L7}),
    caseName);
// clang-format on

TEST(BadConfigMessage, OutOfRangeSaysWhatWasExpectedAndWhatWasFound) {
    const std::string expected = "inline.yaml:6:23: intention.resample_threshold: expected a number in [0, 1], got 1.5";

    const auto sut = loadMinimalWith("intention:\n  resample_threshold: 1.5\n");

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(format(sut.error()), expected);
}

TEST(BadConfigMessage, WrongTypeNamesTheExpectedType) {
    const auto sut = loadMinimalWith("runtime:\n  deadline_ms: \"150\"\n");

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().message, "expected an integer in [1, 10000], got the quoted string \"150\"");
}

TEST(BadConfigMessage, UnknownKeySuggestsTheClosestKnownKey) {
    constexpr std::int32_t KEY_COLUMN = 3;

    const auto sut = loadMinimalWith("intention:\n  resample_treshold: 0.5\n");

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().suggestion, "intention.resample_threshold");
    EXPECT_EQ(sut.error().column, KEY_COLUMN);
    EXPECT_EQ(format(sut.error()),
              "inline.yaml:6:3: intention.resample_treshold: unknown key; did you mean intention.resample_threshold?");
}

TEST(BadConfigMessage, UnknownSectionSuggestsTheClosestSection) {
    const auto sut = loadMinimalWith("runtim:\n  cycle_period_ms: 100\n");

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().suggestion, "runtime");
}

TEST(BadConfigMessage, KeyInTheWrongSectionSuggestsWhereItBelongs) {
    const auto sut = loadMinimalWith("intention:\n  particles: 100\n");

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().suggestion, "capacities.particles");
}

TEST(BadConfigMessage, UnrelatedUnknownKeyListsTheKnownKeysInstead) {
    const auto sut = loadMinimalWith("grid:\n  banana: 1\n");

    ASSERT_TRUE(sut.hasError());
    EXPECT_TRUE(sut.error().suggestion.empty());
    EXPECT_NE(sut.error().message.find("resolution_m"), std::string::npos) << sut.error().message;
}

TEST(BadConfigMessage, MisspeltAllowedValueIsSuggested) {
    const auto sut = loadMinimalWith("runtime:\n  trigger: periodc\n");

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().message, "expected one of periodic, on_input, got periodc; did you mean periodic?");
}

TEST(BadConfigMessage, OverCompiledLimitNamesTheLimit) {
    const auto sut = loadMinimalWith("capacities:\n  max_objects: 200\n");

    ASSERT_TRUE(sut.hasError());
    EXPECT_NE(sut.error().message.find("MAX_OBJECTS = 128"), std::string::npos) << sut.error().message;
}

TEST(BridgeDeadline, ALongCycleWithoutABridgeSectionIsValid) {
    // The bridge's default DDS deadline (250 ms) is below this cycle, but the file does not set it.
    const auto sut = loadMinimalWith("runtime:\n  cycle_period_ms: 800\n  deadline_ms: 800\n");

    EXPECT_TRUE(sut.hasValue()) << (sut.hasError() ? format(sut.error()) : std::string());
}

TEST(BadConfigMessage, BudgetOverrunGivesTheSumAndTheDeadline) {
    const auto sut = loadMinimalWith("runtime:\n  deadline_ms: 150\n");

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().message, "the stage budgets sum to 180.0 ms, over runtime.deadline_ms = 150 ms");
}

TEST(BadConfigMessage, SyntaxErrorGivesLineAndColumn) {
    constexpr std::int32_t LINE = L7;
    constexpr std::int32_t COLUMN = 16;

    const auto sut = loadMinimalWith("runtime:\n  cycle_period_ms: 100\n    deadline_ms: 90\n");

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().line, LINE);
    EXPECT_EQ(sut.error().column, COLUMN);
}

TEST(BadConfigFile, MissingFileIsFileNotFoundWithoutPosition) {
    const std::string path = augur::testing::sourcePath("config/no-such-file.yaml");

    const auto sut = loadDeployment(path);

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, ConfigErrorKind::FileNotFound);
    EXPECT_EQ(sut.error().line, 0);
    EXPECT_EQ(format(sut.error()), path + ": cannot open the file: No such file or directory");
}

TEST(BadConfigFile, DirectoryIsRejectedAsNotARegularFile) {
    const auto sut = loadDeployment(augur::testing::sourcePath("config"));

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, ConfigErrorKind::FileRejected);
    EXPECT_EQ(sut.error().message, "is a directory, not a regular file");
}

TEST(BadConfigFile, ErrorInAFileNamesThatFile) {
    const std::filesystem::path file = std::filesystem::temp_directory_path() / "augur_bad_config_test.yaml";
    std::ofstream(file) << MINIMAL << "motion:\n  step_s: -1\n";

    const auto sut = loadDeployment(file.string());

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().file, file.string());
    EXPECT_EQ(sut.error().line, L6);
    std::filesystem::remove(file);
}

}  // namespace
}  // namespace augur::config
