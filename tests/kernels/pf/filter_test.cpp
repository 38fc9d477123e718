// The particle filter engine's CPU reference: configuration checks, determinism, layouts, the
// run-phase no-allocation claim, differential evolution mechanics.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "augur/kernels/pf/filter.hpp"

#include "augur/testing/allocation_counter.hpp"

namespace augur::kernels::pf {
namespace {

constexpr std::uint64_t SEED = 20231001;

FilterConfig configFor(std::uint32_t particles, std::uint32_t vehicles = 1) {
    FilterConfig c;
    c.particles = particles;
    c.vehicles = vehicles;
    c.seed = SEED;
    return c;
}

std::vector<SceneVehicleInput> sceneInputs(std::uint32_t vehicles, float t) {
    std::vector<SceneVehicleInput> in(vehicles);
    for (std::uint32_t n = 0; n < vehicles; ++n) {
        auto& v = in[n];
        v.x_m = 10.0F * static_cast<float>(n) + 8.0F * t;
        v.y_m = 3.5F * static_cast<float>(n % 3);
        v.theta_rad = 0.0F;
        v.v_mps = 8.0F;
        v.corridorCount = 2;
        v.corridors[0].goSpeed_mps = 8.0F;
        v.corridors[1].heading_rad = 0.3F;
        v.corridors[1].distanceToStop_m = 30.0F;
        v.corridors[1].mustGiveWay = 1;
        v.corridors[1].giveWayTo = static_cast<std::int32_t>((n + 1) % vehicles);
    }
    return in;
}

template <typename Model>
cpu::ParticleFilter<Model> makeFilter(const FilterConfig& config, const typename Model::Params& params = {}) {
    auto created = cpu::ParticleFilter<Model>::create(config, params);
    EXPECT_TRUE(created.hasValue());
    return std::move(created).value();
}

TEST(ParticleFilterConfig, RejectsZeroAndTooManyParticles) {
    EXPECT_EQ(cpu::ParticleFilter<UngmModel>::create(configFor(0), {}).error(), FilterError::InvalidParticleCount);
    EXPECT_EQ(cpu::ParticleFilter<UngmModel>::create(configFor(MAX_PARTICLES + 1), {}).error(),
              FilterError::InvalidParticleCount);
}

TEST(ParticleFilterConfig, RejectsVehicleCountsTheModelCannotHold) {
    EXPECT_EQ(cpu::ParticleFilter<UngmModel>::create(configFor(10, 2), {}).error(), FilterError::InvalidVehicleCount);
    EXPECT_EQ(cpu::ParticleFilter<SceneModel>::create(configFor(10, SceneModel::MAX_VEHICLES + 1), {}).error(),
              FilterError::InvalidVehicleCount);
    EXPECT_EQ(cpu::ParticleFilter<SceneModel>::create(configFor(10, 0), {}).error(), FilterError::InvalidVehicleCount);
}

TEST(ParticleFilterConfig, RejectsOutOfRangeParameters) {
    auto config = configFor(10);
    config.de.crossover = 1.5F;
    EXPECT_EQ(cpu::ParticleFilter<UngmModel>::create(config, {}).error(), FilterError::InvalidParameter);
    config = configFor(10);
    config.resampleThreshold = NAN;
    EXPECT_EQ(cpu::ParticleFilter<UngmModel>::create(config, {}).error(), FilterError::InvalidParameter);
}

TEST(ParticleFilter, InputsOfTheWrongLengthAreRejected) {
    auto sut = makeFilter<SceneModel>(configFor(16, 3));
    const auto inputs = sceneInputs(2, 0.0F);
    EXPECT_EQ(sut.initialize(inputs).error(), FilterError::InputSizeMismatch);
}

TEST(ParticleFilter, SceneInputsTheModelCannotStepWithAreRejected) {
    constexpr std::uint32_t VEHICLES = 3;
    auto sut = makeFilter<SceneModel>(configFor(64, VEHICLES));
    const auto good = sceneInputs(VEHICLES, 0.0F);
    ASSERT_TRUE(sut.initialize(good));
    using Mutation = void (*)(SceneVehicleInput&);
    const std::vector<std::pair<const char*, Mutation>> bad = {
        {"x NaN", [](SceneVehicleInput& z) { z.x_m = NAN; }},
        {"speed +inf", [](SceneVehicleInput& z) { z.v_mps = INFINITY; }},
        {"sigma x 0", [](SceneVehicleInput& z) { z.sigmaX_m = 0.0F; }},
        {"sigma v negative", [](SceneVehicleInput& z) { z.sigmaV_mps = -0.5F; }},
        {"step 0", [](SceneVehicleInput& z) { z.dt_s = 0.0F; }},
        {"step NaN", [](SceneVehicleInput& z) { z.dt_s = NAN; }},
        {"sigma heading +inf", [](SceneVehicleInput& z) { z.sigmaTheta_rad = INFINITY; }},
        {"sigma y NaN", [](SceneVehicleInput& z) { z.sigmaY_m = NAN; }},
        {"no corridor", [](SceneVehicleInput& z) { z.corridorCount = 0; }},
        {"more corridors than the model holds",
         [](SceneVehicleInput& z) { z.corridorCount = SceneVehicleInput::MAX_CORRIDORS + 1; }},
        {"corridor heading NaN", [](SceneVehicleInput& z) { z.corridors[1].heading_rad = NAN; }},
        {"curvature -inf", [](SceneVehicleInput& z) { z.corridors[0].curvature_1pm = -INFINITY; }},
        {"stop distance NaN", [](SceneVehicleInput& z) { z.corridors[1].distanceToStop_m = NAN; }},
        {"negative go speed", [](SceneVehicleInput& z) { z.corridors[0].goSpeed_mps = -1.0F; }},
        {"gives way to a vehicle past the filter's", [](SceneVehicleInput& z) { z.corridors[1].giveWayTo = VEHICLES; }},
        {"gives way to vehicle -2", [](SceneVehicleInput& z) { z.corridors[1].giveWayTo = -2; }},
    };
    for (const auto& [what, mutate] : bad) {
        auto inputs = good;
        mutate(inputs[1]);
        EXPECT_EQ(sut.setInputs(inputs).error(), FilterError::InvalidInput) << what;
        EXPECT_EQ(sut.initialize(inputs).error(), FilterError::InvalidInput) << what;
        EXPECT_EQ(validateInputs<SceneModel>(inputs, VEHICLES).error(), FilterError::InvalidInput) << what;
    }
    // At the edges, still valid: no stop point at all (+inf), a corridor past corridorCount left as
    // garbage (never read), giving way to the filter's last vehicle.
    auto edge = good;
    edge[0].corridors[0].distanceToStop_m = INFINITY;
    edge[0].corridorCount = 1;
    edge[0].corridors[1].heading_rad = NAN;
    edge[2].corridors[1].giveWayTo = VEHICLES - 1;
    EXPECT_TRUE(sut.setInputs(edge));
}

TEST(ParticleFilter, ScalarModelsRejectNonFiniteMeasurements) {
    auto ungm = makeFilter<UngmModel>(configFor(16));
    const UngmModel::VehicleInput ungmBad[] = {{NAN, 1.0F}};
    EXPECT_EQ(ungm.setInputs(ungmBad).error(), FilterError::InvalidInput);
    const UngmModel::VehicleInput ungmLate[] = {{1.0F, INFINITY}};
    EXPECT_EQ(ungm.setInputs(ungmLate).error(), FilterError::InvalidInput);
    auto gammaModel = makeFilter<GammaNoiseSwitchingModel>(configFor(16));
    const GammaNoiseSwitchingModel::VehicleInput gammaBad[] = {{-INFINITY, 3.0F}};
    EXPECT_EQ(gammaModel.setInputs(gammaBad).error(), FilterError::InvalidInput);
    auto linear = makeFilter<LinearGaussianModel>(configFor(16));
    const LinearGaussianModel::VehicleInput linearBad[] = {{NAN}};
    EXPECT_EQ(linear.setInputs(linearBad).error(), FilterError::InvalidInput);
    const LinearGaussianModel::VehicleInput linearGood[] = {{2.5F}};
    EXPECT_TRUE(linear.setInputs(linearGood));
}

TEST(ParticleFilter, ARejectedStepInputLeavesTheStoredInputsAsTheyWere) {
    constexpr std::uint32_t VEHICLES = 4;
    auto sut = makeFilter<SceneModel>(configFor(300, VEHICLES));
    auto twin = makeFilter<SceneModel>(configFor(300, VEHICLES));
    ASSERT_TRUE(sut.initialize(sceneInputs(VEHICLES, 0.0F)) && twin.initialize(sceneInputs(VEHICLES, 0.0F)));
    for (int t = 1; t <= 3; ++t) {
        const auto in = sceneInputs(VEHICLES, 0.2F * static_cast<float>(t));
        ASSERT_TRUE(sut.setInputs(in) && twin.setInputs(in));
        auto bad = in;
        bad[VEHICLES - 1].sigmaX_m = NAN;
        ASSERT_FALSE(sut.setInputs(bad));  // the step runs on `in`, as the twin's
        sut.step();
        twin.step();
    }
    ASSERT_EQ(sut.outputs().size(), twin.outputs().size());
    for (std::size_t c = 0; c < sut.outputs().size(); ++c) {
        EXPECT_TRUE(std::isfinite(sut.outputs()[c])) << "channel " << c;
        EXPECT_EQ(sut.outputs()[c], twin.outputs()[c]) << "channel " << c;
    }
}

TEST(ParticleFilter, SameSeedGivesIdenticalRuns) {
    constexpr int STEPS = 8;
    auto a = makeFilter<SceneModel>(configFor(500, 5));
    auto b = makeFilter<SceneModel>(configFor(500, 5));
    ASSERT_TRUE(a.initialize(sceneInputs(5, 0.0F)) && b.initialize(sceneInputs(5, 0.0F)));
    for (int t = 1; t <= STEPS; ++t) {
        const auto in = sceneInputs(5, 0.2F * static_cast<float>(t));
        ASSERT_TRUE(a.setInputs(in) && b.setInputs(in));
        a.step();
        b.step();
    }
    ASSERT_EQ(a.outputs().size(), b.outputs().size());
    for (std::size_t c = 0; c < a.outputs().size(); ++c) {
        EXPECT_EQ(a.outputs()[c], b.outputs()[c]) << "channel " << c;
    }
}

TEST(ParticleFilter, DifferentSeedsGiveDifferentParticles) {
    auto config = configFor(100);
    auto a = makeFilter<UngmModel>(config);
    config.seed = SEED + 1;
    auto b = makeFilter<UngmModel>(config);
    const UngmModel::VehicleInput in{};
    ASSERT_TRUE(a.initialize({&in, 1}) && b.initialize({&in, 1}));
    std::vector<float> pa(100);
    std::vector<float> pb(100);
    a.copyParticles(pa);
    b.copyParticles(pb);
    EXPECT_NE(pa, pb);
}

TEST(ParticleFilter, StructOfArraysLayoutGivesTheSameResultsAsArrayOfStructs) {
    constexpr int STEPS = 6;
    auto config = configFor(300, 4);
    config.resampleThreshold = 0.9F;
    config.layout = StateLayout::ArrayOfStructs;
    auto aos = makeFilter<SceneModel>(config);
    config.layout = StateLayout::StructOfArrays;
    auto soa = makeFilter<SceneModel>(config);
    ASSERT_TRUE(aos.initialize(sceneInputs(4, 0.0F)) && soa.initialize(sceneInputs(4, 0.0F)));
    for (int t = 1; t <= STEPS; ++t) {
        const auto in = sceneInputs(4, 0.2F * static_cast<float>(t));
        ASSERT_TRUE(aos.setInputs(in) && soa.setInputs(in));
        aos.step();
        soa.step();
    }
    std::vector<float> pa(300 * 4 * SceneModel::SLOT_FLOATS);
    std::vector<float> ps(pa.size());
    aos.copyParticles(pa);
    soa.copyParticles(ps);
    EXPECT_EQ(pa, ps);
}

TEST(ParticleFilter, RunPhaseAllocatesNothing) {
    auto config = configFor(256, 3);
    config.resampleThreshold = 2.0F;  // resample every step
    auto sut = makeFilter<SceneModel>(config);
    const auto in = sceneInputs(3, 0.0F);
    ASSERT_TRUE(sut.initialize(in));
    auto deConfig = configFor(256);
    deConfig.resampler = Resampler::DifferentialEvolution;
    deConfig.resampleThreshold = 2.0F;
    auto de = makeFilter<UngmModel>(deConfig);
    const UngmModel::VehicleInput z{1.0F, 1.0F};
    ASSERT_TRUE(de.initialize({&z, 1}));
    const std::uint64_t before = augur::testing::allocationCount();
    for (int t = 0; t < 3; ++t) {
        (void)sut.setInputs(in);
        sut.step();
        de.step();
    }
    EXPECT_EQ(augur::testing::allocationCount(), before);
}

TEST(ParticleFilter, ThreadCountDoesNotChangeTheResults) {
    constexpr std::uint32_t K = 2 * CPU_CHUNK + 777;  // two whole chunks and a partial one
    constexpr std::uint32_t VEHICLES = 4;
    constexpr int STEPS = 4;
    const std::uint32_t threadCounts[] = {1, 3, 0};  // 0: every hardware thread
    std::vector<std::vector<float>> particles;
    std::vector<std::vector<float>> outputs;
    std::vector<std::vector<float>> logWeights;
    for (const std::uint32_t threads : threadCounts) {
        auto config = configFor(K, VEHICLES);
        config.resampleThreshold = 0.9F;
        config.cpuThreads = threads;
        auto sut = makeFilter<SceneModel>(config);
        ASSERT_TRUE(sut.initialize(sceneInputs(VEHICLES, 0.0F)));
        for (int t = 1; t <= STEPS; ++t) {
            ASSERT_TRUE(sut.setInputs(sceneInputs(VEHICLES, 0.2F * static_cast<float>(t))));
            sut.step();
        }
        particles.emplace_back(static_cast<std::size_t>(K) * VEHICLES * SceneModel::SLOT_FLOATS);
        sut.copyParticles(particles.back());
        outputs.emplace_back(sut.outputs().begin(), sut.outputs().end());
        logWeights.emplace_back(sut.logWeights().begin(), sut.logWeights().end());
    }
    for (std::size_t i = 1; i < std::size(threadCounts); ++i) {
        EXPECT_EQ(particles[i], particles[0]) << threadCounts[i] << " threads";
        EXPECT_EQ(outputs[i], outputs[0]) << threadCounts[i] << " threads";
        EXPECT_EQ(logWeights[i], logWeights[0]) << threadCounts[i] << " threads";
    }
}

TEST(DifferentialEvolution, ThreadCountDoesNotChangeTheResults) {
    constexpr std::uint32_t K = CPU_CHUNK + 100;
    constexpr int STEPS = 3;
    std::vector<std::vector<float>> particles;
    for (const std::uint32_t threads : {1U, 4U}) {
        auto config = configFor(K);
        config.resampler = Resampler::DifferentialEvolution;
        config.resampleThreshold = 2.0F;
        config.cpuThreads = threads;
        auto sut = makeFilter<UngmModel>(config);
        const UngmModel::VehicleInput z{1.0F, 1.0F};
        ASSERT_TRUE(sut.initialize({&z, 1}));
        for (int t = 0; t < STEPS; ++t) {
            sut.step();
        }
        particles.emplace_back(K);
        sut.copyParticles(particles.back());
    }
    EXPECT_EQ(particles[1], particles[0]);
}

TEST(ParticleFilter, MultiThreadedRunPhaseAllocatesNothing) {
    constexpr std::uint32_t THREADS = 3;
    auto config = configFor(2 * CPU_CHUNK + 5, 2);
    config.resampleThreshold = 2.0F;  // resample every step
    config.cpuThreads = THREADS;
    auto sut = makeFilter<SceneModel>(config);
    const auto in = sceneInputs(2, 0.0F);
    ASSERT_TRUE(sut.initialize(in));
    const std::uint64_t before = augur::testing::allocationCount();
    for (int t = 0; t < 3; ++t) {
        (void)sut.setInputs(in);
        sut.step();
    }
    EXPECT_EQ(augur::testing::allocationCount(), before);
}

TEST(ParticleFilter, ResamplingResetsWeightsAndIsReported) {
    auto config = configFor(200);
    config.resampleThreshold = 2.0F;
    auto sut = makeFilter<UngmModel>(config);
    const UngmModel::VehicleInput z{5.0F, 1.0F};
    ASSERT_TRUE(sut.initialize({&z, 1}) && sut.setInputs({&z, 1}));
    sut.step();
    EXPECT_EQ(sut.summary().resampled, 1U);
    EXPECT_EQ(sut.summary().step, 1U);
    for (const float l : sut.logWeights()) {
        EXPECT_EQ(l, 0.0F);
    }
}

TEST(ParticleFilter, ZeroThresholdNeverResamplesAndKeepsWeights) {
    auto config = configFor(200);
    config.resampleThreshold = 0.0F;
    auto sut = makeFilter<UngmModel>(config);
    const UngmModel::VehicleInput z{5.0F, 1.0F};
    ASSERT_TRUE(sut.initialize({&z, 1}) && sut.setInputs({&z, 1}));
    sut.step();
    EXPECT_EQ(sut.summary().resampled, 0U);
    EXPECT_LT(sut.summary().effectiveSampleSize, 200.0F);
    float spread = 0.0F;
    for (const float l : sut.logWeights()) {
        spread = std::max(spread, std::fabs(l));
    }
    EXPECT_GT(spread, 0.0F);
}

TEST(ParticleFilter, EffectiveSampleSizeOfUniformWeightsIsK) {
    constexpr std::uint32_t K = 321;
    UngmModel::Params flat;
    flat.measurementVariance = INFINITY;  // every particle explains the measurement equally
    auto sut = makeFilter<UngmModel>(configFor(K), flat);
    const UngmModel::VehicleInput z{0.0F, 1.0F};
    ASSERT_TRUE(sut.initialize({&z, 1}) && sut.setInputs({&z, 1}));
    sut.step();
    EXPECT_NEAR(sut.summary().effectiveSampleSize, static_cast<float>(K), 1e-3F);
    EXPECT_EQ(sut.summary().resampled, 0U);
}

TEST(ParticleFilter, SingleParticleFilterRuns) {
    auto config = configFor(1);
    config.resampleThreshold = 2.0F;
    auto sut = makeFilter<LinearGaussianModel>(config);
    const LinearGaussianModel::VehicleInput z{0.5F};
    ASSERT_TRUE(sut.initialize({&z, 1}) && sut.setInputs({&z, 1}));
    sut.step();
    std::vector<float> particle(1);
    sut.copyParticles(particle);
    EXPECT_FLOAT_EQ(sut.outputs()[0], particle[0]);
    EXPECT_FLOAT_EQ(sut.summary().effectiveSampleSize, 1.0F);
}

TEST(DifferentialEvolution, NeverLowersAParticlesFitnessAndStopsWithinGmax) {
    constexpr std::uint32_t K = 400;
    auto config = configFor(K);
    config.resampler = Resampler::DifferentialEvolution;
    config.resampleThreshold = 2.0F;
    config.de.minSpread = 0.0F;  // run all generations
    auto sut = makeFilter<UngmModel>(config);
    const UngmModel::VehicleInput z{12.0F, 1.0F};
    ASSERT_TRUE(sut.initialize({&z, 1}) && sut.setInputs({&z, 1}));
    sut.step();
    EXPECT_EQ(sut.summary().generations, config.de.maxGenerations);
    // After evolution every particle explains z at least as well as the best of the population did
    // not: check the mean log-likelihood rose against a plain filter with the same seed.
    auto plainConfig = config;
    plainConfig.resampler = Resampler::Systematic;
    plainConfig.resampleThreshold = 0.0F;
    auto plain = makeFilter<UngmModel>(plainConfig);
    ASSERT_TRUE(plain.initialize({&z, 1}) && plain.setInputs({&z, 1}));
    plain.step();
    std::vector<float> evolved(K);
    std::vector<float> original(K);
    sut.copyParticles(evolved);
    plain.copyParticles(original);
    const UngmModel::Params params{};
    double evolvedFit = 0.0;
    double originalFit = 0.0;
    int improved = 0;
    for (std::uint32_t k = 0; k < K; ++k) {
        const auto fit = [&](float x) { return -0.5 * std::pow(z.z - x * x / 20.0, 2) / params.measurementVariance; };
        evolvedFit += fit(evolved[k]);
        originalFit += fit(original[k]);
        ASSERT_GE(fit(evolved[k]), fit(original[k]) - 1e-3) << "particle " << k;
        improved += fit(evolved[k]) > fit(original[k]) ? 1 : 0;
    }
    EXPECT_GT(evolvedFit, originalFit);
    EXPECT_GT(improved, static_cast<int>(K / 2));
}

TEST(DifferentialEvolution, StopsEarlyWhenThePopulationHasConverged) {
    auto config = configFor(50);
    config.resampler = Resampler::DifferentialEvolution;
    config.resampleThreshold = 2.0F;
    config.de.minSpread = 1e30F;  // any population counts as converged
    auto sut = makeFilter<UngmModel>(config);
    const UngmModel::VehicleInput z{3.0F, 1.0F};
    ASSERT_TRUE(sut.initialize({&z, 1}) && sut.setInputs({&z, 1}));
    sut.step();
    EXPECT_EQ(sut.summary().generations, 1U);
}

}  // namespace
}  // namespace augur::kernels::pf
