// Test support for whole-runtime tests: the shipped map, a small deployment of the shipped default, a
// runtime built next to the test's embedded RouDi, and the object-list feed (a publisher on the
// deployment's input channel). Shared by the CPU-backend and CUDA-backend runtime suites.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "augur/config/loader.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/runtime.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "augur/testing/testing.hpp"
#include "support/synthetic_scene.hpp"

namespace augur::testing {

/// The committed scenario's map (the shipped default deployment's map).
inline const runtime::scene::RoadMap& shippedMap() {
    static const runtime::scene::RoadMap map =
        runtime::scene::readSumoNet(sourcePath("data/scenarios/intersection-4way/map.net.xml")).value();
    return map;
}

inline platform::ServiceName service(const config::Channel& c) { return {c.service, c.instance, c.event}; }

/// The shipped default deployment on `backend`, scaled down so a cycle takes milliseconds: 256
/// particles, 16 predicted vehicles with up to 4 corridors, a 64 × 64 grid; every channel on
/// `instance` (tests never share a channel). Tests adjust the rest.
inline config::Deployment smallDeployment(const std::string& instance, config::Backend backend) {
    auto loaded = config::loadDeployment(sourcePath("config/default.yaml"));
    EXPECT_TRUE(loaded.hasValue());
    config::Deployment d = loaded.value();
    d.runtime.backend = backend;
    d.capacities.particles = 256;
    d.capacities.maxPredictedVehicles = 16;
    d.capacities.maxCorridorsPerVehicle = 4;
    d.grid.widthCells = 64;
    d.grid.heightCells = 64;
    useInstance(d, instance);
    return d;
}

/// smallDeployment on the CPU backend with a coarse, short motion chain (2 s horizon, 50 × 10 cells):
/// a whole cycle takes milliseconds on one core. For tests that exercise the pipeline, not measure it.
inline config::Deployment quickDeployment(const std::string& instance) {
    config::Deployment d = smallDeployment(instance, config::Backend::Cpu);
    d.intention.particlesReduced = 64;
    d.motion.horizon_s = 2.0;
    d.motion.positionCells = 50;
    d.motion.positionRange_m = 100.0;
    d.motion.speedCells = 10;
    d.motion.maxSpeed_mps = 20.0;
    d.motion.samplesPerCell = 4;
    return d;
}

/// A runtime on the embedded RouDi's iceoryx runtime, logging nothing; null (and a test failure) when
/// create() fails.
inline std::unique_ptr<runtime::Runtime> makeRuntime(const config::Deployment& d, int cpuWorkers = 1) {
    runtime::RuntimeOptions options;
    options.connectToRouDi = false;
    options.log = [](config::LogLevel, const std::string&) {};
    options.cpuWorkers = cpuWorkers;
    auto created = runtime::Runtime::create(d, options);
    EXPECT_TRUE(created.hasValue()) << (created.hasValue() ? "" : created.error().message);
    return created.hasValue() ? std::move(created).value() : nullptr;
}

/// Publishes object lists on the deployment's input channel.
class Feeder {
public:
    explicit Feeder(const config::Deployment& d)
        : m_publisher(platform::Publisher<ObjectList>::create(service(d.transport.objects)).value()) {}
    /// Loans a list, lets `edit` fill it, publishes it.
    template <typename Edit>
    void send(Edit&& edit) {
        auto loan = m_publisher.loan();
        ASSERT_TRUE(loan.hasValue());
        edit(**loan);
        loan->publish();
    }

private:
    platform::Publisher<ObjectList> m_publisher;
};

/// Plays a SyntheticScene on the shipped map into a runtime, one list per cycle (0.2 s apart).
class ScenePlayer {
public:
    static constexpr double STEP_S = 0.2;
    static constexpr std::int64_t STEP_NS = 200'000'000;

    ScenePlayer(const config::Deployment& d, std::uint32_t vehicles, std::uint32_t pedestrians = 0)
        : m_feeder(d), m_scene(shippedMap(), vehicles, pedestrians) {}
    /// Publishes the scene's list, advances the scene and runs one cycle of `sut`.
    runtime::CycleReport cycle(runtime::Runtime& sut) {
        ++m_sequence;
        m_feeder.send([this](ObjectList& list) {
            m_scene.write(list, m_sequence, 1'000'000'000 + static_cast<std::int64_t>(m_sequence) * STEP_NS);
        });
        m_scene.advance(STEP_S);
        return sut.runCycle();
    }

private:
    Feeder m_feeder;
    SyntheticScene m_scene;
    std::uint64_t m_sequence{0};
};

}  // namespace augur::testing
