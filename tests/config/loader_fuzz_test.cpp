// Fuzzing the deployment loader with mutations of the shipped and test deployment files: every input
// gives either a Deployment whose every key is within its schema range (numbers finite) and which
// survives the writer's round trip, or an error that says what and where, and nothing throws or crashes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "augur/config/loader.hpp"
#include "augur/config/schema.hpp"
#include "augur/config/yaml_writer.hpp"
#include "augur/testing/fuzz_loop.hpp"

namespace augur::config {
namespace {

using augur::testing::FuzzBudget;
using augur::testing::FuzzCorpus;

const std::vector<std::string> YAML_TOKENS = {
    ": ", "\n", "\n  ", "- ", "[", "]", "{", "}", ",", "#", "\"", "'", "&a ", "*a", "!!str ", "!!binary ",
    "? ", "|\n", ">\n", "---\n", "...\n", "~", "true", "null", "<<: ", "\t", "\\u0000", "%YAML 1.2\n",
};

/// Checks every key of a loaded deployment against its schema entry.
void expectEveryKeyInRange(const Deployment& deployment) {
    for (const KeySpec& key : schema()) {
        const Value value = key.read(deployment);
        switch (key.type) {
            case ValueType::Number: {
                const double number = std::get<double>(value);
                EXPECT_TRUE(std::isfinite(number)) << key.path << " = " << number;
                EXPECT_TRUE(number >= key.minNumber && number <= key.maxNumber) << key.path << " = " << number;
                break;
            }
            case ValueType::Integer: {
                const std::int64_t integer = std::get<std::int64_t>(value);
                EXPECT_TRUE(integer >= key.minInteger && integer <= key.maxInteger) << key.path << " = " << integer;
                break;
            }
            case ValueType::IntegerList:
                for (const std::int64_t element : std::get<std::vector<std::int64_t>>(value)) {
                    EXPECT_TRUE(element >= key.minInteger && element <= key.maxInteger) << key.path << " has " << element;
                }
                break;
            case ValueType::Enumeration: {
                const std::int64_t index = std::get<std::int64_t>(value);
                EXPECT_TRUE(index >= 0 && static_cast<std::size_t>(index) < key.allowed.size()) << key.path;
                break;
            }
            case ValueType::String:
            case ValueType::Boolean: break;
        }
    }
}

TEST(LoaderFuzz, MutatedDeploymentFilesGiveAValidDeploymentOrAnError) {
    const FuzzCorpus corpus = FuzzCorpus::fromFiles({"config/default.yaml", "config/jetson-orin.yaml",
                                                     "tests/apps/data/threshold_out_of_range.yaml",
                                                     "tests/apps/data/with_trace.yaml"});
    FuzzBudget budget;
    budget.iterations = 3000;
    const auto report = augur::testing::fuzzText("config-loader", corpus, budget, YAML_TOKENS, [](const std::string& input) {
        Result<Deployment, ConfigError> loaded = loadDeploymentFromString(input, "fuzz.yaml");
        if (loaded.hasError()) {
            const ConfigError& error = loaded.error();
            EXPECT_FALSE(error.message.empty());
            EXPECT_GE(error.line, 0);
            EXPECT_GE(error.column, 0);
            EXPECT_FALSE(format(error).empty());
            return;
        }
        expectEveryKeyInRange(loaded.value());
        // The writer's contract: loading its text gives back an equal deployment.
        const std::string written = toYaml(loaded.value());
        const auto reloaded = loadDeploymentFromString(written, "written.yaml");
        ASSERT_TRUE(reloaded.hasValue()) << format(reloaded.error()) << "\n" << written;
        EXPECT_TRUE(reloaded.value() == loaded.value()) << written;
    });
    EXPECT_GT(report.iterations, 0U);
}

}  // namespace
}  // namespace augur::config
