// augur-flock: option ranges and their messages, the worker clamp, the batch sizing and the memory
// estimate that refuses a run (or reduces its workers) before anything is allocated.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "augur/kernels/flock/flock_finder.hpp"
#include "flock_tool.hpp"

namespace augur::apps::flock {
namespace {

using kernels::flock::MAX_BATCH_SAMPLES;

constexpr double GIB = 1024.0 * 1024.0 * 1024.0;
constexpr unsigned HARDWARE_THREADS = 8;

Options parsed(const std::vector<std::string>& args) {
    auto result = parseOptions(args);
    EXPECT_TRUE(result.hasValue()) << (result.hasError() ? result.error() : "");
    return result.hasValue() ? *result : Options{};
}

std::string parseError(const std::vector<std::string>& args) {
    auto result = parseOptions(args);
    EXPECT_TRUE(result.hasError());
    return result.hasError() ? result.error() : "";
}

/// `entities` entities at one step each at `steps` consecutive steps, all at the origin.
Trajectories dense(int entities, int steps) {
    std::ostringstream csv;
    for (int t = 0; t < steps; ++t) {
        for (int i = 0; i < entities; ++i) {
            csv << i << ',' << t << ",0,0\n";
        }
    }
    std::istringstream in(csv.str());
    auto result = readTrajectories(in);
    EXPECT_TRUE(result.hasValue());
    return result.hasValue() ? std::move(result).value() : Trajectories{};
}

const std::vector<std::string> REQUIRED{"--input", "in.csv", "--mu", "3", "--delta", "4", "--epsilon", "2.5"};

std::vector<std::string> with(std::vector<std::string> extra) {
    std::vector<std::string> args = REQUIRED;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

TEST(FlockToolOptions, ParsesEveryOption) {
    const Options sut = parsed(with({"--output", "out.csv", "--backend", "cuda", "--graph", "--threads", "3", "--batch-steps",
                                     "16", "--max-memory-gib", "2.5"}));
    EXPECT_EQ(sut.input, "in.csv");
    EXPECT_EQ(sut.output, "out.csv");
    EXPECT_EQ(sut.params.minEntities, 3);
    EXPECT_EQ(sut.params.windowSteps, 4);
    EXPECT_EQ(sut.params.radius_m, 2.5);
    EXPECT_EQ(sut.backend, kernels::Backend::Cuda);
    EXPECT_TRUE(sut.graph);
    EXPECT_EQ(sut.threads, 3);
    EXPECT_EQ(sut.batchSteps, 16);
    EXPECT_EQ(sut.maxMemoryBytes(), 2.5 * GIB);
}

TEST(FlockToolOptions, EachBadParameterIsNamedWithItsAcceptedRange) {
    struct Case {
        std::vector<std::string> args;
        const char* message;
    };
    const Case cases[] = {
        {{"--input", "a", "--mu", "1", "--delta", "1", "--epsilon", "1"}, "--mu: '1' is not an integer in [2, 2147483647]"},
        {{"--input", "a", "--mu", "2", "--delta", "0", "--epsilon", "1"}, "--delta: '0' is not an integer in [1, 1073741823]"},
        {{"--input", "a", "--mu", "2", "--delta", "1", "--epsilon", "-1"}, "--epsilon: '-1' is not a number in (0, 1e15]"},
        {{"--input", "a", "--mu", "2", "--delta", "1", "--epsilon", "inf"}, "--epsilon: 'inf' is not a number in (0, 1e15]"},
        {with({"--threads", "-1"}), "--threads: '-1' is not an integer in [0, 2147483647]"},
        {with({"--batch-steps", "2"}), "--batch-steps: 2 is shorter than the window (--delta 4)"},
        {with({"--max-memory-gib", "0"}), "--max-memory-gib: '0' is not a number in (0, 1048576]"},
        {with({"--backend", "tpu"}), "--backend: tpu not in {cpu,cuda}"},
        {{"--input", "a", "--mu", "2", "--delta", "1"}, "--epsilon is required"},
        {with({"--frobnicate"}), "--frobnicate"},
    };
    for (const Case& c : cases) {
        const std::string error = parseError(c.args);
        EXPECT_NE(error.find(c.message), std::string::npos) << error;
    }
}

TEST(FlockToolOptions, HelpNeedsNoOtherOptionAndStatesTheThreadClamp) {
    EXPECT_TRUE(parsed({"--help"}).help);
    EXPECT_NE(usage().find("More are clamped to the hardware threads"), std::string::npos);
}

TEST(FlockToolWorkers, ZeroMeansAllHardwareThreadsAndMoreAreClamped) {
    EXPECT_EQ(workerCount(0, HARDWARE_THREADS), 8);
    EXPECT_EQ(workerCount(1, HARDWARE_THREADS), 1);
    EXPECT_EQ(workerCount(8, HARDWARE_THREADS), 8);
    EXPECT_EQ(workerCount(100'000, HARDWARE_THREADS), 8);
    EXPECT_EQ(workerCount(0, 0), 1);  // unknown hardware: one worker
}

TEST(FlockToolPlan, HundredThousandThreadsAreClampedWithANote) {
    const Options options = parsed(with({"--threads", "100000"}));
    const auto sut = planRun(options, dense(3, 5), HARDWARE_THREADS);
    ASSERT_TRUE(sut.hasValue()) << sut.error();
    EXPECT_EQ(sut->capacities.workerThreads, 8);
    ASSERT_EQ(sut->notes.size(), 1U);
    EXPECT_EQ(sut->notes[0], "--threads 100000 clamped to 8 (the hardware threads)");
}

TEST(FlockToolPlan, BatchIsTheDataUpTo4096StepsButAtLeastTheWindow) {
    const Options options = parsed(REQUIRED);
    EXPECT_EQ(planRun(options, dense(2, 10), HARDWARE_THREADS)->capacities.maxBatchSteps, 10);
    EXPECT_EQ(planRun(options, dense(2, 3), HARDWARE_THREADS)->capacities.maxBatchSteps, 4);
    EXPECT_EQ(planRun(options, dense(2, 5000), HARDWARE_THREADS)->capacities.maxBatchSteps, 4096);
}

TEST(FlockToolPlan, ExplicitBatchOverTheFindersSampleLimitIsAnError) {
    const Options options = parsed(with({"--batch-steps", "1073741823"}));
    const auto sut = planRun(options, dense(2, 10), HARDWARE_THREADS);
    ASSERT_TRUE(sut.hasError());
    EXPECT_NE(sut.error().find("--batch-steps: 1073741823 × 2 entities exceeds the finder's limit"), std::string::npos)
        << sut.error();
    EXPECT_NE(sut.error().find("give at most " + std::to_string(MAX_BATCH_SAMPLES / 2)), std::string::npos) << sut.error();
}

TEST(FlockToolMemory, RunWithinTheLimitKeepsItsWorkers) {
    const Options options = parsed(with({"--threads", "2"}));
    const Trajectories trajectories = dense(3, 5);
    auto plan = planRun(options, trajectories, HARDWARE_THREADS);
    ASSERT_TRUE(plan.hasValue());
    ASSERT_TRUE(fitMemory(*plan, options, trajectories).hasValue());
    EXPECT_EQ(plan->capacities.workerThreads, 2);
    EXPECT_TRUE(plan->notes.empty());
}

TEST(FlockToolMemory, WorkersAreReducedUntilTheRunFits) {
    const Trajectories trajectories = dense(3, 5);
    Options options = parsed(with({"--threads", "8"}));
    auto plan = planRun(options, trajectories, HARDWARE_THREADS);
    ASSERT_TRUE(plan.hasValue());
    const auto need = kernels::flock::FlockFinder::hostMemory(options.params, plan->capacities, kernels::Backend::Cpu);
    options.maxMemory_gib = (need.total(3) + 50e6) / GIB;  // room for three workers, the grid and the list
    ASSERT_TRUE(fitMemory(*plan, options, trajectories).hasValue());
    EXPECT_EQ(plan->capacities.workerThreads, 3);
    ASSERT_EQ(plan->notes.size(), 1U);
    EXPECT_NE(plan->notes[0].find("8 CPU workers would reserve"), std::string::npos) << plan->notes[0];
}

TEST(FlockToolMemory, RunThatDoesNotFitWithOneWorkerIsRefusedWithTheFigureAndTheLimit) {
    const Trajectories trajectories = dense(3, 5);
    const Options options = parsed(with({"--max-memory-gib", "0.01"}));
    auto plan = planRun(options, trajectories, HARDWARE_THREADS);
    ASSERT_TRUE(plan.hasValue());
    const auto sut = fitMemory(*plan, options, trajectories);
    ASSERT_TRUE(sut.hasError());
    EXPECT_NE(sut.error().find("the run needs "), std::string::npos) << sut.error();
    EXPECT_NE(sut.error().find("over the memory limit of 11 MiB (--max-memory-gib)"), std::string::npos) << sut.error();
}

TEST(FlockToolMemory, SeventyThousandEntitiesOverManyStepsAreRefusedByTheGridEstimate) {
    // Two rows per entity, 30,000 steps apart: 70,000 × 30,001 samples, a 33 GiB grid.
    std::ostringstream csv;
    for (int i = 0; i < 70'000; ++i) {
        csv << i << ",0,0,0\n" << i << ",30000,0,0\n";
    }
    std::istringstream in(csv.str());
    const auto sut = readTrajectories(in);
    ASSERT_TRUE(sut.hasError());
    EXPECT_TRUE(sut.error().overMemoryLimit);
    EXPECT_EQ(sut.error().message,
              "steps 0 … 30000 × 70000 entities need a dense grid of 33.2 GiB, over the memory limit of 16.0 GiB");
}

}  // namespace
}  // namespace augur::apps::flock
