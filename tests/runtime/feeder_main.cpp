// A perception stand-in for the multi-process test: connects to a running RouDi, publishes the
// synthetic scene's object lists at 10 Hz on the deployment's objects channel, and reads the runtime's
// motion predictions. Exit status 0 when predictions of every vehicle arrived, 1 otherwise, 2 on setup errors.
//
//   augur_runtime_feeder CONFIG MAP LISTS
#include <cstdio>
#include <cstdlib>
#include <string>

#include "augur/config/loader.hpp"
#include "augur/platform/clock.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "support/synthetic_scene.hpp"

namespace {
constexpr std::uint32_t VEHICLES = 6;
constexpr std::int64_t PERIOD_NS = 100'000'000;
constexpr std::int64_t CONNECT_TIMEOUT_MS = 5000;
}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: augur_runtime_feeder CONFIG MAP LISTS\n");
        return 2;
    }
    auto deployment = augur::config::loadDeployment(argv[1]);
    auto map = augur::runtime::scene::readSumoNet(argv[2]);
    const int lists = std::atoi(argv[3]);
    if (!deployment || !map) {
        std::fprintf(stderr, "feeder: cannot load the configuration or the map\n");
        return 2;
    }
    if (!augur::platform::connectToRouDi("augur-feeder", CONNECT_TIMEOUT_MS)) {
        std::fprintf(stderr, "feeder: no RouDi\n");
        return 2;
    }
    const auto& t = deployment.value().transport;
    auto publisher = augur::platform::Publisher<augur::ObjectList>::create(
        {t.objects.service, t.objects.instance, t.objects.event});
    auto subscriber = augur::platform::Subscriber<augur::MotionPrediction>::create(
        {t.prediction.service, t.prediction.instance, t.prediction.event}, 16);
    if (!publisher || !subscriber) {
        std::fprintf(stderr, "feeder: cannot create the channels\n");
        return 2;
    }
    augur::testing::SyntheticScene scene(map.value(), VEHICLES);
    std::uint32_t bestVehicles = 0;
    int predictions = 0;
    std::int64_t next = augur::platform::monotonicNow_ns();
    for (int k = 0; k < lists; ++k) {
        auto loan = publisher.value().loan();
        if (loan) {
            scene.write(**loan, static_cast<std::uint64_t>(k + 1), augur::platform::monotonicNow_ns());
            loan->publish();
        }
        scene.advance(static_cast<double>(PERIOD_NS) * 1e-9);
        next += PERIOD_NS;
        augur::platform::sleepUntil_ns(next);
        while (true) {
            auto sample = subscriber.value().take();
            if (!sample) {
                break;
            }
            ++predictions;
            bestVehicles = std::max(bestVehicles, sample.value()->vehicleCount);
        }
    }
    std::printf("feeder: %d lists sent, %d predictions received, at most %u vehicles predicted\n", lists, predictions,
                bestVehicles);
    return predictions > 0 && bestVehicles == VEHICLES ? 0 : 1;
}
