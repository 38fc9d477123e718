// Fuzzing augur-smooth's measurement CSV reader with mutations of the committed recording: every input
// gives either measurements with finite times and positions, or an error naming the line.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "augur/testing/fuzz_loop.hpp"
#include "smooth_tool.hpp"

namespace augur::apps::smooth {
namespace {

using augur::testing::FuzzBudget;
using augur::testing::FuzzCorpus;

const std::vector<std::string> CSV_TOKENS = augur::testing::csvTokens({"target_id"});

TEST(SmoothToolFuzz, MutatedMeasurementsAreFiniteOrAnError) {
    const FuzzCorpus corpus = FuzzCorpus::fromFiles({"tests/apps/augur-smooth/data/measurements.csv"});
    FuzzBudget budget;
    budget.iterations = 4000;
    const auto report = augur::testing::fuzzText("smooth-csv", corpus, budget, CSV_TOKENS, [](const std::string& input) {
        std::istringstream in(input);
        const auto read = readMeasurements(in);
        if (read.hasError()) {
            EXPECT_FALSE(read.error().empty());
            return;
        }
        for (const Measurement& m : read.value()) {
            ASSERT_TRUE(std::isfinite(m.time_s) && std::isfinite(m.x_m) && std::isfinite(m.y_m))
                << m.targetId << "," << m.time_s << "," << m.x_m << "," << m.y_m;
        }
    });
    EXPECT_GT(report.iterations, 0U);
}

}  // namespace
}  // namespace augur::apps::smooth
