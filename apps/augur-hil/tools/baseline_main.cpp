// augur-hil-baseline — constant-velocity baseline of a scenario's ground truth.
//
//   augur-hil-baseline SCENARIO_DIR [--sample-every-steps N] [--min-speed-mps V]
//
// Predicts every road user at every N-th step (default 1) from its true state with the constant-velocity
// model and prints ADE, FDE and miss rate (FDE > 2 m) at 1, 2, 3 and 4 s as a Markdown table; with
// --min-speed-mps only road users moving at least V m/s at the prediction time are scored. These are the
// figures the bench compares augur's predictions with (docs/benchmarks.md).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "augur/hil/cv_baseline.hpp"
#include "augur/hil/prediction_metrics.hpp"
#include "augur/hil/scenario.hpp"
#include "augur/core/version.hpp"

namespace {

void usage(const char* argv0) {
    std::fprintf(stderr, "usage: %s SCENARIO_DIR [--sample-every-steps N>=1] [--min-speed-mps V>=0]\n", argv0);
}

}  // namespace

int main(int argc, char** argv) {
    if (augur::versionRequested(argc, argv)) {
        std::puts(augur::versionString());
        return 0;
    }
    using namespace augur::hil;
    if (argc < 2 || argc % 2 != 0) {
        usage(argv[0]);
        return 2;
    }
    std::size_t sampleEvery = 1;
    double minSpeed_mps = 0.0;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string_view option(argv[i]);
        char* end = nullptr;
        if (option == "--sample-every-steps") {
            const long value = std::strtol(argv[i + 1], &end, 10);
            if (*end != '\0' || value < 1) {
                usage(argv[0]);
                return 2;
            }
            sampleEvery = static_cast<std::size_t>(value);
        } else if (option == "--min-speed-mps") {
            minSpeed_mps = std::strtod(argv[i + 1], &end);
            if (*end != '\0' || !(minSpeed_mps >= 0.0)) {
                usage(argv[0]);
                return 2;
            }
        } else {
            usage(argv[0]);
            return 2;
        }
    }
    auto loaded = Scenario::load(argv[1]);
    if (!loaded) {
        std::fprintf(stderr, "augur-hil-baseline: %s (%s)\n", loaded.error().detail.c_str(), toString(loaded.error().code));
        return 1;
    }
    const Scenario& scenario = loaded.value();
    std::printf("scenario %s: %zu steps of %.3f s, %zu road users, %zu states, seed %s; sampled every %zu steps, "
                "road users at >= %.2f m/s\n\n",
                scenario.name().c_str(), scenario.stepCount(), scenario.step_s(), scenario.vehicles().size(),
                scenario.stateCount(), scenario.seed().c_str(), sampleEvery, minSpeed_mps);
    const auto results = evaluateConstantVelocityBaseline(scenario, REPORT_HORIZONS_S, sampleEvery, minSpeed_mps);
    std::printf("| horizon (s) | samples | CV ADE (m) | CV FDE (m) | CV miss rate (FDE > %.0f m) |\n", MISS_THRESHOLD_M);
    std::printf("| ---: | ---: | ---: | ---: | ---: |\n");
    for (const HorizonErrors& h : results) {
        std::printf("| %.1f | %zu | %.3f | %.3f | %.3f |\n", h.horizon_s, h.samples, h.ade_m, h.fde_m, h.missRate);
    }
    return 0;
}
