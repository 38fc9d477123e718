// Fuzzing augur-flock's trajectory CSV reader with mutations of a committed sample: every input gives
// either trajectories whose tables agree in size and hold finite coordinates, or an error with a line.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "augur/testing/fuzz_loop.hpp"
#include "trajectory_csv.hpp"

namespace augur::apps::flock {
namespace {

using augur::testing::FuzzBudget;
using augur::testing::FuzzCorpus;

const std::vector<std::string> CSV_TOKENS = augur::testing::csvTokens({";"});

TEST(FlockCsvFuzz, MutatedTrajectoriesGiveConsistentTablesOrAnError) {
    const FuzzCorpus corpus = FuzzCorpus::fromFiles({"tests/kernels/flock/data/trajectories.csv"});
    FuzzBudget budget;
    budget.iterations = 4000;
    const auto report = augur::testing::fuzzText("flock-csv", corpus, budget, CSV_TOKENS, [](const std::string& input) {
        std::istringstream in(input);
        const auto read = readTrajectories(in);
        if (read.hasError()) {
            EXPECT_FALSE(read.error().message.empty());
            return;
        }
        const Trajectories& t = read.value();
        ASSERT_GE(t.stepCount, 0);
        const std::size_t samples = static_cast<std::size_t>(t.stepCount) * t.entityIds.size();
        ASSERT_EQ(t.x_m.size(), samples);
        ASSERT_EQ(t.y_m.size(), samples);
        ASSERT_EQ(t.present.size(), samples);
        for (std::size_t k = 0; k < samples; ++k) {
            ASSERT_TRUE(std::isfinite(t.x_m[k]) && std::isfinite(t.y_m[k])) << "sample " << k;
        }
    });
    EXPECT_GT(report.iterations, 0U);
}

}  // namespace
}  // namespace augur::apps::flock
