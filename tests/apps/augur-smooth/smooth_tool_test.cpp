// augur-smooth: option parsing, the measurement CSV reader, grouping and ordering of targets, agreement of
// the parallel and sequential smoothers, and the output format.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "smooth_tool.hpp"

namespace augur::apps::smooth {
namespace {

TEST(SmoothToolOptions, ParsesEveryOption) {
    const auto sut = parseOptions({"--input", "in.csv", "--output", "out.csv", "--model", "ca", "--noise-density", "2",
                                   "--meas-std", "0.1", "--init-vel-std", "3", "--init-acc-std", "4", "--backend",
                                   "cuda", "--method", "sequential"});
    ASSERT_TRUE(sut.hasValue()) << sut.error();
    EXPECT_EQ(sut->inputPath, "in.csv");
    EXPECT_EQ(sut->outputPath, "out.csv");
    EXPECT_EQ(sut->model, kernels::kf::MotionModel::ConstantAcceleration);
    EXPECT_EQ(sut->noiseDensity, 2.0);
    EXPECT_EQ(sut->measStd_m, 0.1);
    EXPECT_EQ(sut->initialVelStd_mps, 3.0);
    EXPECT_EQ(sut->initialAccStd_mps2, 4.0);
    EXPECT_EQ(sut->backend, kernels::Backend::Cuda);
    EXPECT_EQ(sut->method, Method::Sequential);
}

TEST(SmoothToolOptions, RejectsUnknownOptionMissingInputAndBadValues) {
    EXPECT_TRUE(parseOptions({"--input", "a", "--frobnicate", "1"}).hasError());
    EXPECT_TRUE(parseOptions({"--model", "cv"}).hasError());
    EXPECT_TRUE(parseOptions({"--input", "a", "--meas-std", "-1"}).hasError());
    EXPECT_TRUE(parseOptions({"--input", "a", "--noise-density", "nan"}).hasError());
    EXPECT_TRUE(parseOptions({"--input", "a", "--method"}).hasError());
    EXPECT_TRUE(parseOptions({"--input", "a", "--backend", "tpu"}).hasError());
}

TEST(SmoothToolOptions, ErrorsNameTheOptionAndItsAcceptedRange) {
    const auto tooLarge = parseOptions({"--input", "a", "--meas-std", "1e7"});
    ASSERT_TRUE(tooLarge.hasError());
    EXPECT_NE(tooLarge.error().find("--meas-std: '1e7' is not a number in (0, 1e6]"), std::string::npos) << tooLarge.error();
    const auto unknownModel = parseOptions({"--input", "a", "--model", "xx"});
    ASSERT_TRUE(unknownModel.hasError());
    EXPECT_NE(unknownModel.error().find("--model: xx not in {cv,ca}"), std::string::npos) << unknownModel.error();
    const auto noInput = parseOptions({"--model", "cv"});
    ASSERT_TRUE(noInput.hasError());
    EXPECT_NE(noInput.error().find("--input is required"), std::string::npos) << noInput.error();
}

TEST(SmoothToolOptions, HelpNeedsNoOtherOptionAndListsTheRanges) {
    const auto sut = parseOptions({"--help"});
    ASSERT_TRUE(sut.hasValue()) << sut.error();
    EXPECT_TRUE(sut->help);
    EXPECT_NE(usage().find("--meas-std"), std::string::npos);
    EXPECT_NE(usage().find("(0, 1e6]"), std::string::npos);
}

TEST(SmoothToolCsv, ReadsRowsSkippingHeaderCommentsAndBlankLines) {
    std::istringstream in("target_id,time_s,x_m,y_m\n# comment\n\n5,0.1,1.5,-2\r\n5, 0.2 ,1.6,-2.1\n");
    const auto sut = readMeasurements(in);
    ASSERT_TRUE(sut.hasValue()) << sut.error();
    ASSERT_EQ(sut->size(), 2U);
    EXPECT_EQ((*sut)[1].targetId, 5U);
    EXPECT_EQ((*sut)[1].time_s, 0.2);
    EXPECT_EQ((*sut)[1].y_m, -2.1);
}

TEST(SmoothToolCsv, EmptyInputGivesNoRows) {
    std::istringstream in("");
    const auto sut = readMeasurements(in);
    ASSERT_TRUE(sut.hasValue());
    EXPECT_TRUE(sut->empty());
}

TEST(SmoothToolCsv, MalformedLineIsReportedWithItsNumber) {
    std::istringstream in("1,0,0,0\n1,0.1,zero,0\n");
    const auto sut = readMeasurements(in);
    ASSERT_TRUE(sut.hasError());
    EXPECT_NE(sut.error().find("line 2"), std::string::npos) << sut.error();
}

TEST(SmoothToolCsv, NonFiniteValuesAndWrongFieldCountsAreRejected) {
    std::istringstream inf("1,0,inf,0\n");
    std::istringstream nan("1,0,0,nan\n");
    std::istringstream three("1,0,0\n");
    std::istringstream negativeId("-1,0,0,0\n");
    EXPECT_TRUE(readMeasurements(inf).hasError());
    EXPECT_TRUE(readMeasurements(nan).hasError());
    EXPECT_TRUE(readMeasurements(three).hasError());
    EXPECT_TRUE(readMeasurements(negativeId).hasError());
}

std::vector<Measurement> straightLines() {
    // Two targets, interleaved and out of time order; exact positions on straight lines.
    constexpr double VX = 3.0;
    constexpr double VY = -1.5;
    std::vector<Measurement> rows;
    for (int k = 29; k >= 0; --k) {
        const double t = 0.1 * k;
        rows.push_back({9, t, 10.0 + VX * t, 20.0 + VY * t});
        rows.push_back({4, t, -5.0 - VX * t, 1.0});
    }
    return rows;
}

TEST(SmoothTool, GroupsByTargetAndOrdersByTime) {
    Options options;
    options.inputPath = "x";
    const auto sut = smoothAll(options, straightLines());
    ASSERT_TRUE(sut.hasValue()) << sut.error();
    ASSERT_EQ(sut->size(), 60U);
    EXPECT_EQ(sut->front().targetId, 4U);
    EXPECT_EQ(sut->back().targetId, 9U);
    for (std::size_t i = 1; i < 30; ++i) {
        EXPECT_GT((*sut)[i].time_s, (*sut)[i - 1].time_s);
    }
}

TEST(SmoothTool, RecoversVelocityOfAStraightLine) {
    Options options;
    options.inputPath = "x";
    options.measStd_m = 0.01;
    options.noiseDensity = 1e-3;
    const auto sut = smoothAll(options, straightLines());
    ASSERT_TRUE(sut.hasValue());
    const SmoothedRow& middle = (*sut)[30 + 15];  // target 9, t = 1.5 s
    constexpr double TOLERANCE_MPS = 0.05;
    EXPECT_NEAR(middle.state[2], 3.0, TOLERANCE_MPS);
    EXPECT_NEAR(middle.state[3], -1.5, TOLERANCE_MPS);
}

TEST(SmoothTool, ParallelAndSequentialAgree) {
    Options parallel;
    parallel.inputPath = "x";
    parallel.model = kernels::kf::MotionModel::ConstantAcceleration;
    Options sequential = parallel;
    sequential.method = Method::Sequential;
    const auto a = smoothAll(parallel, straightLines());
    const auto b = smoothAll(sequential, straightLines());
    ASSERT_TRUE(a.hasValue() && b.hasValue());
    ASSERT_EQ(a->size(), b->size());
    constexpr double TOLERANCE = 1e-9;
    for (std::size_t i = 0; i < a->size(); ++i) {
        for (std::size_t c = 0; c < (*a)[i].state.size(); ++c) {
            EXPECT_NEAR((*a)[i].state[c], (*b)[i].state[c], TOLERANCE * (1.0 + std::abs((*b)[i].state[c])));
        }
        for (std::size_t c = 0; c < (*a)[i].cov.size(); ++c) {
            EXPECT_NEAR((*a)[i].cov[c], (*b)[i].cov[c], TOLERANCE);
        }
    }
}

TEST(SmoothTool, SingleMeasurementTargetKeepsItsPrior) {
    Options options;
    options.inputPath = "x";
    const auto sut = smoothAll(options, {{1, 0.0, 3.0, 4.0}});
    ASSERT_TRUE(sut.hasValue());
    ASSERT_EQ(sut->size(), 1U);
    EXPECT_EQ(sut->front().state[0], 3.0);
    EXPECT_EQ(sut->front().cov[0], options.measStd_m * options.measStd_m);
}

TEST(SmoothTool, FiniteButHugeInputThatOverflowsIsAnErrorNamingTargetAndTime) {
    // Finite coordinates whose differences overflow double precision: the filter's innovations are infinite.
    constexpr double HUGE_M = 1e308;
    const std::vector<Measurement> rows{{7, 0.0, HUGE_M, 1.0}, {7, 0.1, -HUGE_M, 1.0}, {7, 0.2, HUGE_M, 1.0}};
    for (const Method method : {Method::Parallel, Method::Sequential}) {
        Options options;
        options.inputPath = "x";
        options.method = method;
        const auto sut = smoothAll(options, rows);
        ASSERT_TRUE(sut.hasError());
        EXPECT_NE(sut.error().find("target 7 at time_s 0: the smoothed state x_m is not finite"), std::string::npos)
            << sut.error();
    }
}

TEST(SmoothTool, HugeTimesAreAnErrorNotNaNOutput) {
    const std::vector<Measurement> rows{{1, 0.0, 1.0, 1.0}, {1, 1e300, 1.0, 1.0}, {1, 2e300, 1.0, 1.0}};
    Options options;
    options.inputPath = "x";
    const auto sut = smoothAll(options, rows);
    ASSERT_TRUE(sut.hasError());
    EXPECT_NE(sut.error().find("is not finite"), std::string::npos) << sut.error();
}

TEST(SmoothToolOutput, WritesHeaderAndOneLinePerRow) {
    SmoothedRow row{7, 0.5, {1, 2, 3, 4, 5, 6}, std::vector<double>(21, 0.25)};
    std::ostringstream out;
    writeSmoothed(out, kernels::kf::MotionModel::ConstantAcceleration, {row});
    const std::string text = out.str();
    const std::string header = text.substr(0, text.find('\n'));
    EXPECT_EQ(header.rfind("target_id,time_s,x_m,y_m,vx_mps,vy_mps,ax_mps2,ay_mps2,cov_x_x,cov_x_y,", 0), 0U);
    EXPECT_NE(header.find(",cov_ay_ay"), std::string::npos);
    EXPECT_EQ(std::count(header.begin(), header.end(), ','), 2 + 6 + 21 - 1);
    EXPECT_EQ(text.substr(text.find('\n') + 1, 9), "7,0.5,1,2");
}

}  // namespace
}  // namespace augur::apps::smooth
