// The fuzz tests' mutation engine: deterministic for a seed, bounded in size, and size-preserving in
// fixed-size mode (what a wire-message fuzzer relies on).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "augur/testing/fuzz_loop.hpp"
#include "augur/testing/mutator.hpp"

namespace augur::testing {
namespace {

constexpr std::uint64_t SEED = 42;
constexpr int ROUNDS = 500;
const std::string INPUT = "schema_version: 1\nmap:\n  path: town.net.xml\n  radius_m: 12.5\n";
const std::string OTHER = "<lane id=\"a\" speed=\"13.89\" shape=\"0,0 10,0\"/>";

TEST(Mutator, SameSeedGivesTheSameMutations) {
    Mutator first(SEED);
    Mutator second(SEED);
    for (int i = 0; i < ROUNDS; ++i) {
        ASSERT_EQ(first.mutateText(INPUT, OTHER), second.mutateText(INPUT, OTHER)) << "round " << i;
    }
}

TEST(Mutator, MutationsChangeTheInputAndVary) {
    Mutator sut(SEED);
    std::set<std::string> outputs;
    for (int i = 0; i < ROUNDS; ++i) {
        outputs.insert(sut.mutateText(INPUT, OTHER));
    }
    EXPECT_GT(outputs.size(), static_cast<std::size_t>(ROUNDS / 2));
}

TEST(Mutator, OutputNeverExceedsMaxSize) {
    constexpr std::size_t MAX_SIZE = 80;
    Mutator sut(SEED, Mutator::Options{MAX_SIZE, 8, 64});
    sut.setDictionary({"<![CDATA[", "]]>"});
    std::vector<std::uint8_t> data(INPUT.begin(), INPUT.end());
    for (int i = 0; i < ROUNDS; ++i) {
        sut.mutateBytes(data, {reinterpret_cast<const std::uint8_t*>(OTHER.data()), OTHER.size()});
        ASSERT_LE(data.size(), MAX_SIZE);
    }
}

TEST(Mutator, EveryMutationHandlesAnEmptyInput) {
    Mutator sut(SEED);
    sut.setDictionary({","});
    for (int m = 0; m < static_cast<int>(Mutation::Count); ++m) {
        std::vector<std::uint8_t> empty;
        sut.apply(static_cast<Mutation>(m), empty);
        EXPECT_LE(empty.size(), 64U) << "mutation " << m;
    }
}

TEST(Mutator, InterestingTextReplacesANumber) {
    Mutator sut(SEED);
    int changed = 0;
    for (int i = 0; i < ROUNDS; ++i) {
        std::vector<std::uint8_t> data{'x', '=', '1', '2', '.', '5'};
        sut.apply(Mutation::InterestingText, data);
        changed += std::string(data.begin(), data.end()).rfind("x=", 0) == 0 ? 1 : 0;
    }
    EXPECT_GT(changed, 0);
}

struct WireMessage {
    std::uint64_t sequence;
    float values[4];
    std::uint32_t count;
};

TEST(Mutator, MutatedCopyKeepsTheSizeAndChangesBytes) {
    Mutator sut(SEED);
    const WireMessage original{7, {1.0F, 2.0F, 3.0F, 4.0F}, 4};
    int differing = 0;
    for (int i = 0; i < ROUNDS; ++i) {
        const WireMessage mutated = sut.mutatedCopy(original, &original);
        differing += std::memcmp(&mutated, &original, sizeof original) != 0 ? 1 : 0;
    }
    EXPECT_GT(differing, ROUNDS / 2);
}

TEST(FuzzLoop, FixedSizeModeFeedsWholeMessages) {
    const WireMessage first{1, {0.5F, 0.25F, 0.0F, 0.0F}, 2};
    const WireMessage second{9, {1.0F, 2.0F, 3.0F, 4.0F}, 4};
    FuzzBudget budget;
    budget.iterations = ROUNDS;
    budget.fixedSize = true;
    int differing = 0;
    const FuzzReport report =
        fuzzText("wire", FuzzCorpus::fromObjects(std::vector<WireMessage>{first, second}), budget, {},
                 [&](const std::string& input) {
                     ASSERT_EQ(input.size(), sizeof(WireMessage));
                     WireMessage message;
                     std::memcpy(&message, input.data(), sizeof message);
                     differing += std::memcmp(&message, &first, sizeof message) != 0 &&
                                          std::memcmp(&message, &second, sizeof message) != 0
                                      ? 1
                                      : 0;
                 });
    EXPECT_EQ(report.iterations, static_cast<std::uint64_t>(ROUNDS));
    EXPECT_GT(differing, ROUNDS / 2);
}

}  // namespace
}  // namespace augur::testing
