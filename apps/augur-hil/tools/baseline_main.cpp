// augur-hil-baseline — constant-velocity baseline of a scenario's ground truth.
//
//   augur-hil-baseline SCENARIO_DIR [--sample-every-steps N] [--min-speed-mps V] | --help | --version
//
// Predicts every road user at every N-th step (default 1) from its true state with the constant-velocity
// model and prints ADE, FDE and miss rate (FDE > 2 m) at 1, 2, 3 and 4 s as a Markdown table; with
// --min-speed-mps only road users moving at least V m/s at the prediction time are scored. These are the
// figures the bench compares augur's predictions with (docs/benchmarks.md).
#include <cstdio>
#include <string>

#include "augur/hil/cv_baseline.hpp"
#include "augur/hil/prediction_metrics.hpp"
#include "augur/hil/scenario.hpp"
#include "augur_cli.hpp"

namespace {

namespace cli = augur::apps::cli;

struct Options {
    std::string scenarioDir;
    std::int64_t sampleEvery{1};
    double minSpeed_mps{0.0};
};

void defineOptions(CLI::App& app, Options& o) {
    cli::useConventions(app);
    app.add_option("SCENARIO_DIR", o.scenarioDir, "the scenario directory (scenario.csv, map)")->required();
    app.add_option("--sample-every-steps", o.sampleEvery, "predict at every N-th step")
        ->type_name("N")
        ->check(cli::integerIn(1, 1'000'000))
        ->capture_default_str();
    app.add_option("--min-speed-mps", o.minSpeed_mps, "score only road users moving at least V m/s then")
        ->type_name("V")
        ->check(cli::numberIn(0.0, 1000.0))
        ->capture_default_str();
}

}  // namespace

int main(int argc, char** argv) {
    using namespace augur::hil;
    CLI::App app{"augur-hil-baseline: constant-velocity baseline (ADE, FDE, miss rate) of a scenario's ground truth.",
                 "augur-hil-baseline"};
    Options o;
    defineOptions(app, o);
    const auto parsed = cli::parse(app, argc, argv);
    if (parsed.hasError()) {
        std::fprintf(stderr, "augur-hil-baseline: %s\nRun with --help for the options and their ranges.\n",
                     parsed.error().c_str());
        return cli::EXIT_USAGE;
    }
    if (*parsed == cli::Parsed::Help) {
        std::fputs(app.help().c_str(), stdout);
        return cli::EXIT_OK;
    }
    if (*parsed == cli::Parsed::Version) {
        std::puts(cli::versionLine().c_str());
        return cli::EXIT_OK;
    }
    const auto sampleEvery = static_cast<std::size_t>(o.sampleEvery);
    const double minSpeed_mps = o.minSpeed_mps;
    auto loaded = Scenario::load(o.scenarioDir);
    if (!loaded) {
        std::fprintf(stderr, "augur-hil-baseline: %s (%s)\n", loaded.error().detail.c_str(), toString(loaded.error().code));
        return cli::EXIT_INPUT;
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
