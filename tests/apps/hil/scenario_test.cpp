// Scenario loading: the committed scenario, hand-written fixtures, and every rejection reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "augur/hil/scenario.hpp"
#include "augur/testing/testing.hpp"

namespace augur::hil {
namespace {

namespace fs = std::filesystem;

constexpr const char* COMMITTED_SCENARIO = "data/scenarios/intersection-4way";
constexpr const char* HEADER = "# augur-scenario 1\n# name fixture\n# step_s 0.1\n# map map.net.xml\n# seed 3\n";
constexpr const char* COLUMNS = "step,id,class,x_m,y_m,heading_rad,speed_mps,length_m,width_m\n";
constexpr const char* VEHICLES = "id,sumo_id,vtype,first_step,last_step\n1,veh0,car,0,1\n2,veh1,truck,1,1\n";

/// A scenario directory in the test's temporary folder.
class ScenarioFixture : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("augur_scenario_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }

    void write(const std::string& scenarioCsv, const std::string& vehiclesCsv = VEHICLES) const {
        std::ofstream(m_dir / "scenario.csv") << scenarioCsv;
        std::ofstream(m_dir / "vehicles.csv") << vehiclesCsv;
    }
    [[nodiscard]] Result<Scenario, ScenarioError> load() const { return Scenario::load(m_dir.string()); }

    fs::path m_dir;
};

TEST_F(ScenarioFixture, LoadsStatesSortedByIdPerStep) {
    write(std::string(HEADER) + COLUMNS +
          "0,1,car,1.5,-2.25,0.5,10.0,4.5,1.8\n"
          "1,2,truck,20,0,3.1416,0,9,2.5\n"
          "1,1,car,2.5,-2.25,0.5,10.0,4.5,1.8\n");
    const auto sut = load();
    ASSERT_TRUE(sut) << sut.error().detail;
    EXPECT_EQ(sut->name(), "fixture");
    EXPECT_DOUBLE_EQ(sut->step_s(), 0.1);
    EXPECT_EQ(sut->seed(), "3");
    EXPECT_EQ(sut->stepCount(), 2U);
    EXPECT_EQ(sut->maxStatesPerStep(), 2U);
    ASSERT_EQ(sut->frame(1).size(), 2U);
    EXPECT_EQ(sut->frame(1)[0].id, 1U);
    EXPECT_EQ(sut->frame(1)[1].objectClass, ObjectClass::Truck);
    const GroundTruthState* first = sut->find(0, 1);
    ASSERT_NE(first, nullptr);
    EXPECT_FLOAT_EQ(first->x_m, 1.5F);
    EXPECT_FLOAT_EQ(first->y_m, -2.25F);
    EXPECT_FLOAT_EQ(first->width_m, 1.8F);
    EXPECT_EQ(sut->find(0, 2), nullptr);
    EXPECT_EQ(sut->find(7, 1), nullptr);
    EXPECT_EQ(sut->idOfSumoVehicle("veh1"), 2U);
    EXPECT_EQ(sut->idOfSumoVehicle("nobody"), 0U);
    EXPECT_EQ(fs::path(sut->mapPath()).filename(), "map.net.xml");
    EXPECT_TRUE(fs::path(sut->mapPath()).is_absolute());
}

TEST_F(ScenarioFixture, LoadsAScenarioWithNoStates) {
    write(std::string(HEADER) + COLUMNS, "id,sumo_id,vtype,first_step,last_step\n");
    const auto sut = load();
    ASSERT_TRUE(sut);
    EXPECT_EQ(sut->stepCount(), 0U);
    EXPECT_EQ(sut->stateCount(), 0U);
}

TEST_F(ScenarioFixture, RejectsAMissingDirectory) {
    const auto sut = Scenario::load((m_dir / "absent").string());
    ASSERT_FALSE(sut);
    EXPECT_EQ(sut.error().code, ScenarioErrorCode::CannotOpen);
}

TEST_F(ScenarioFixture, RejectsAnotherFormatVersion) {
    write("# augur-scenario 2\n# step_s 0.1\n# map m\n" + std::string(COLUMNS));
    ASSERT_FALSE(load());
    EXPECT_EQ(load().error().code, ScenarioErrorCode::UnsupportedVersion);
}

TEST_F(ScenarioFixture, RejectsAHeaderWithoutMapOrWithWrongColumns) {
    write("# augur-scenario 1\n# step_s 0.1\n" + std::string(COLUMNS));
    EXPECT_EQ(load().error().code, ScenarioErrorCode::BadHeader);
    write(std::string(HEADER) + "step,id,x_m\n");
    EXPECT_EQ(load().error().code, ScenarioErrorCode::BadHeader);
    write(std::string("# augur-scenario 1\n# step_s 0\n# map m\n") + COLUMNS);
    EXPECT_EQ(load().error().code, ScenarioErrorCode::BadHeader);
    write(std::string("# augur-scenario 1\n# step_s inf\n# map m\n") + COLUMNS);  // found by the fuzz test
    EXPECT_EQ(load().error().code, ScenarioErrorCode::BadHeader);
}

TEST_F(ScenarioFixture, RejectsRowsOutOfTheirDomain) {
    const char* badRows[] = {
        "0,1,car,1,2,0,-1,4.5,1.8\n",     // negative speed
        "0,1,car,1,2,0,1,0,1.8\n",        // zero length
        "0,1,tram,1,2,0,1,4.5,1.8\n",     // unknown class
        "0,1,car,1,nan,0,1,4.5,1.8\n",    // not finite
        "0,1,car,1,2,0,1,4.5\n",          // missing field
        "0,0,car,1,2,0,1,4.5,1.8\n",      // id 0 is reserved
        "0,1,car,1x,2,0,1,4.5,1.8\n",     // trailing garbage
        "10000000,1,car,1,2,0,1,4.5,1.8\n",  // step beyond MAX_SCENARIO_STEPS (one offset per step)
        "18446744073709551615,1,car,1,2,0,1,4.5,1.8\n",  // step + 1 would wrap to 0
    };
    for (const char* row : badRows) {
        write(std::string(HEADER) + COLUMNS + row);
        const auto sut = load();
        ASSERT_FALSE(sut) << row;
        EXPECT_EQ(sut.error().code, ScenarioErrorCode::BadRow) << row;
        EXPECT_NE(sut.error().detail.find("scenario.csv:7"), std::string::npos) << sut.error().detail;
    }
}

TEST_F(ScenarioFixture, RejectsStepsOutOfOrderDuplicatesAndUnknownVehicles) {
    write(std::string(HEADER) + COLUMNS + "1,1,car,1,2,0,1,4.5,1.8\n0,2,car,1,2,0,1,4.5,1.8\n");
    EXPECT_EQ(load().error().code, ScenarioErrorCode::StepsOutOfOrder);
    write(std::string(HEADER) + COLUMNS + "0,1,car,1,2,0,1,4.5,1.8\n0,1,car,3,2,0,1,4.5,1.8\n");
    EXPECT_EQ(load().error().code, ScenarioErrorCode::DuplicateState);
    write(std::string(HEADER) + COLUMNS + "0,9,car,1,2,0,1,4.5,1.8\n");
    EXPECT_EQ(load().error().code, ScenarioErrorCode::UnknownVehicle);
}

TEST(CommittedScenario, HoldsAMinuteOfTrafficAtTheIntersection) {
    constexpr std::size_t MINUTE_STEPS = 600;  // 60 s at 0.1 s
    const auto sut = Scenario::load(testing::sourcePath(COMMITTED_SCENARIO));
    ASSERT_TRUE(sut) << sut.error().detail;
    EXPECT_EQ(sut->name(), "intersection");
    EXPECT_DOUBLE_EQ(sut->step_s(), 0.1);
    EXPECT_EQ(sut->stepCount(), MINUTE_STEPS);
    EXPECT_TRUE(fs::exists(sut->mapPath()));
    EXPECT_GE(sut->vehicles().size(), 20U);
    EXPECT_LE(sut->maxStatesPerStep(), MAX_OBJECTS);
    for (const ScenarioVehicle& v : sut->vehicles()) {
        ASSERT_NE(sut->find(v.firstStep, v.id), nullptr) << v.sumoId;
        ASSERT_NE(sut->find(v.lastStep, v.id), nullptr) << v.sumoId;
    }
}

}  // namespace
}  // namespace augur::hil
