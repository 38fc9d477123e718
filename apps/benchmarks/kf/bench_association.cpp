// augur-bench-association — measurement-to-track association (kernels/kf Associator) on one core.
//
//   augur-bench-association [--quick] [--core N] [--out FILE] [--commit HASH] [--json FILE]
//
// Scenes of 128 predicted tracks and 128 objects (the message capacities), each object its track's
// position plus N(0, 0.3² m²) per axis, listed in a shuffled order, half of them under their track's
// perception id:
//   traffic  tracks uniform in the 80 m sensor disc at least 4 m apart (a busy junction): small components;
//   crowd    tracks on a 1.2 m grid (16 × 8, a pedestrian crowd): one component of nearly everything;
//   pileup   tracks uniform in a 1 m disc: nearly every pair inside the gate, one component of everything,
//            the solve's worst case (no traffic looks like this; it bounds the call, and has the same target).
// Each call is timed alone with the monotonic clock, after warm-up, cycling through 64 pre-drawn object
// sets; p50, p99 and max over the calls. The thread is pinned to one core (--core, default 0) where the
// system allows. Prints a Markdown table; --out FILE also writes the figures as CSV rows
// (metric,target,device,value,date,commit,command), --json FILE as a result file (result_file.hpp), both
// read by scripts/bench-tables for docs/benchmarks.md.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "augur/bench/bench.hpp"
#include "augur/bench/bench_cli.hpp"
#include "augur/kernels/kf/association.hpp"
#include "augur/platform/host_info.hpp"
#include "augur/platform/clock.hpp"
#include "augur/platform/realtime.hpp"

namespace {

using namespace augur;
using namespace augur::kernels::kf;

constexpr std::size_t SIDE = 128;
constexpr std::size_t OBJECT_SETS = 64;
constexpr float NOISE_STD_M = 0.3F;
constexpr float OBJECT_VAR_M2 = NOISE_STD_M * NOISE_STD_M;
constexpr float TRACK_VAR_M2 = 0.05F;
constexpr double P99_TARGET_US = 1000.0;

struct Scene {
    std::vector<float> x, y, pxx, pxy, pyy;
    std::vector<std::uint8_t> live;
    std::vector<std::uint32_t> trackId;
    struct Objects {
        std::vector<float> x, y, vx, vy;
        std::vector<std::uint32_t> id;
    };
    std::vector<Objects> sets;
};

enum class Layout { Traffic, Crowd, Pileup };

Scene makeScene(Layout layout, std::mt19937_64& rng) {
    Scene s;
    std::uniform_real_distribution<float> unit(0.0F, 1.0F);
    while (s.x.size() < SIDE) {
        float px = 0.0F;
        float py = 0.0F;
        if (layout == Layout::Pileup) {
            const float r = std::sqrt(unit(rng));
            const float a = 6.2831853F * unit(rng);
            px = r * std::cos(a);
            py = r * std::sin(a);
        } else if (layout == Layout::Crowd) {
            constexpr float SPACING_M = 1.2F;
            px = SPACING_M * static_cast<float>(s.x.size() % 16);
            py = SPACING_M * static_cast<float>(s.x.size() / 16);
        } else {
            constexpr float RANGE_M = 80.0F;
            constexpr float MIN_SPACING_M = 4.0F;
            const float r = RANGE_M * std::sqrt(unit(rng));
            const float a = 6.2831853F * unit(rng);
            px = r * std::cos(a);
            py = r * std::sin(a);
            bool tooClose = false;
            for (std::size_t i = 0; i < s.x.size() && !tooClose; ++i) {
                tooClose = std::hypot(s.x[i] - px, s.y[i] - py) < MIN_SPACING_M;
            }
            if (tooClose) {
                continue;
            }
        }
        s.x.push_back(px);
        s.y.push_back(py);
        s.pxx.push_back(TRACK_VAR_M2);
        s.pxy.push_back(0.0F);
        s.pyy.push_back(TRACK_VAR_M2);
        s.live.push_back(1);
        s.trackId.push_back(static_cast<std::uint32_t>(s.x.size()));
    }
    std::normal_distribution<float> noise(0.0F, NOISE_STD_M);
    std::vector<std::size_t> order(SIDE);
    for (std::size_t k = 0; k < OBJECT_SETS; ++k) {
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::shuffle(order.begin(), order.end(), rng);
        Scene::Objects o;
        for (const std::size_t t : order) {
            o.x.push_back(s.x[t] + noise(rng));
            o.y.push_back(s.y[t] + noise(rng));
            o.vx.push_back(OBJECT_VAR_M2);
            o.vy.push_back(OBJECT_VAR_M2);
            o.id.push_back(t % 2 == 0 ? s.trackId[t] : 100'000U + static_cast<std::uint32_t>(t));
        }
        s.sets.push_back(std::move(o));
    }
    return s;
}

struct Timing {
    double p50_us{0.0};
    double p99_us{0.0};
    double max_us{0.0};
    double meanAssigned{0.0};
    std::uint32_t largestComponent{0};
};

double percentile(std::vector<double> sorted, double q) {
    std::sort(sorted.begin(), sorted.end());
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
    return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

Timing timeScene(const Scene& s, int calls) {
    auto sut = Associator::create({SIDE, SIDE, 9.21F, 5.0F, 1.0F});
    if (!sut) {
        std::fprintf(stderr, "association: %s\n", toString(sut.error()));
        return {};
    }
    const PredictedTracks tracks{s.x.data(), s.y.data(), s.pxx.data(), s.pxy.data(), s.pyy.data(),
                                 s.live.data(), s.trackId.data(), SIDE};
    std::vector<std::uint32_t> objectToTrack(SIDE);
    std::vector<std::uint8_t> gated(SIDE);
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(calls));
    Timing result;
    double assigned = 0.0;
    constexpr int WARMUP = 100;
    for (int call = -WARMUP; call < calls; ++call) {
        const Scene::Objects& o = s.sets[static_cast<std::size_t>(call + WARMUP) % OBJECT_SETS];
        const Detections objects{o.x.data(), o.y.data(), o.vx.data(), o.vy.data(), o.id.data(), SIDE};
        const auto start = platform::monotonicNow_ns();
        const AssociationStats stats = sut->associate(tracks, objects, objectToTrack, gated);
        const auto stop = platform::monotonicNow_ns();
        if (call >= 0) {
            times.push_back(static_cast<double>(stop - start) * 1e-3);
            assigned += stats.assigned;
            result.largestComponent = std::max(result.largestComponent, stats.largestComponent);
        }
    }
    result.p50_us = percentile(times, 0.50);
    result.p99_us = percentile(times, 0.99);
    result.max_us = *std::max_element(times.begin(), times.end());
    result.meanAssigned = assigned / static_cast<double>(calls);
    return result;
}


std::string utcNow() {
    const std::time_t now = std::time(nullptr);
    std::array<char, 32> text{};
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text.data();
}

}  // namespace

int main(int argc, char** argv) {
    namespace cli = apps::cli;
    bool quick = false;
    std::int64_t core = 0;
    std::string out;
    std::string commit = buildCommit();
    std::string json;
    CLI::App app{"augur-bench-association: measurement-to-track association of 128 objects x 128 tracks on one core.",
                 "augur-bench-association"};
    cli::useConventions(app);
    app.add_flag("--quick", quick, "2,000 calls per scene instead of 20,000");
    app.add_option("--core", core, "the CPU core to pin the thread to")->type_name("N")->check(cli::integerIn(0, 4095))->capture_default_str();
    app.add_option("--out", out, "also write the figures as CSV rows (metric,target,device,value,date,commit,command)")
        ->type_name("FILE");
    app.add_option("--commit", commit, "the commit the CSV rows name")->type_name("HASH")->capture_default_str();
    bench::addJsonOption(app, json);
    if (const auto exit = bench::parseArguments(app, argc, argv)) {
        return *exit;
    }
    const std::string command = bench::commandLine(argc, argv);
    const std::array<int, 1> cores{static_cast<int>(core)};
    const platform::RealtimeOutcome pinned = platform::pinCurrentThread(cores);
    const int calls = quick ? 2000 : 20000;
    std::mt19937_64 rng(42);
    const std::string device = platform::cpuModel() + ", one core" + (pinned.errnoValue == 0 ? " (pinned)" : " (not pinned)");
    const std::string date = utcNow();
    bench::ResultFile results("association", "Track association (CPU)", 35);
    results.setDevice(device);
    results.setCommand(command);
    std::printf("Association of %zu objects with %zu tracks, %d calls per scene, %s\n\n", SIDE, SIDE, calls,
                device.c_str());
    std::printf("| scene | p50 (us) | p99 (us) | max (us) | p99 target (us) | assigned | largest component |\n");
    std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    std::ofstream csv;
    if (!out.empty()) {
        csv.open(out);
        csv << "metric,target,device,value,date,commit,command\n";
    }
    for (const Layout layout : {Layout::Traffic, Layout::Crowd, Layout::Pileup}) {
        const char* name = layout == Layout::Traffic ? "traffic" : layout == Layout::Crowd ? "crowd" : "pileup";
        const Scene scene = makeScene(layout, rng);
        const Timing t = timeScene(scene, calls);
        std::printf("| %s | %s | %s | %s | %s | %s | %u |\n", name, bench::fmt(t.p50_us, 1).c_str(),
                    bench::fmt(t.p99_us, 1).c_str(), bench::fmt(t.max_us, 1).c_str(), bench::fmt(P99_TARGET_US, 0).c_str(),
                    bench::fmt(t.meanAssigned, 1).c_str(), t.largestComponent);
        if (csv) {
            const auto row = [&](const std::string& metric, const std::string& target, double value) {
                csv << "association_" << name << "_" << metric << "," << target << ",\"" << device << "\"," << value << ","
                    << date << "," << commit << ",\"" << command << "\"\n";
            };
            row("p50_us", "", t.p50_us);
            row("p99_us", "<= 1000", t.p99_us);
            row("max_us", "", t.max_us);
        }
        const std::string metric = std::string("association_") + name + "_";
        results.add(metric + "p50_us", t.p50_us, 3, "");
        results.add(metric + "p99_us", t.p99_us, 3, "", "<= 1000");
        results.add(metric + "max_us", t.max_us, 3, "");
    }
    return bench::writeResults(results, json) ? 0 : cli::EXIT_INPUT;
}
