#include "augur/runtime/deployment_summary.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <string_view>

#include "augur/core/messages.hpp"

namespace augur::runtime {
namespace {

std::string number(double value) {
    std::array<char, 32> buffer{};
    const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return ec == std::errc{} ? std::string(buffer.data(), end) : std::string("?");
}

/// "1 cycle", "25 cycles".
std::string count(std::uint32_t n, std::string_view singular, std::string_view plural) {
    return std::to_string(n) + " " + std::string(n == 1 ? singular : plural);
}

std::string channel(const config::Channel& c) { return c.service + "/" + c.instance + "/" + c.event; }

/// Appends "  label  text\n" with the labels aligned.
void line(std::string& out, std::string_view label, const std::string& text) {
    constexpr std::size_t LABEL_WIDTH = 12;
    out += "  ";
    out.append(label);
    out.append(label.size() < LABEL_WIDTH ? LABEL_WIDTH - label.size() : 1, ' ');
    out += text;
    out += '\n';
}

std::string affinityText(const config::RuntimeConfig& runtime) {
    if (runtime.cpuAffinity.empty()) {
        return "CPU affinity unchanged";
    }
    std::string text = "pinned to CPU";
    text += runtime.cpuAffinity.size() > 1 ? "s " : " ";
    for (std::size_t i = 0; i < runtime.cpuAffinity.size(); ++i) {
        text += (i == 0 ? "" : ",") + std::to_string(runtime.cpuAffinity[i]);
    }
    return text;
}

/// The cycle, the stage budgets, the backend, the real-time setup and the watchdog.
void describeRuntime(std::string& out, const config::RuntimeConfig& rt) {
    using config::toString;
    line(out, "cycle", std::to_string(rt.cyclePeriod_ms) + " ms, trigger " + std::string(toString(rt.trigger)) +
                           ", deadline " + std::to_string(rt.deadline_ms) + " ms, inputs older than " +
                           (rt.maxInputAge_ms == 0 ? std::string("any age accepted")
                                                   : std::to_string(rt.maxInputAge_ms) + " ms rejected"));
    std::string budgets = number(config::stageBudgetSum_ms(rt)) + " ms in all (";
    for (std::size_t s = 0; s < STAGE_COUNT; ++s) {
        budgets += std::string(s == 0 ? "" : ", ") + toString(static_cast<Stage>(s)) + " " + number(rt.stageBudget_ms[s]);
    }
    line(out, "budgets", budgets + ")");
    line(out, "backend", std::string(toString(rt.backend)));
    line(out, "realtime",
         affinityText(rt) + ", " +
             (rt.rtPriority == 0 ? std::string("scheduling unchanged") : "SCHED_FIFO " + std::to_string(rt.rtPriority)) +
             ", memory " + (rt.lockMemory ? "locked" : "not locked") + ", on setup failure " +
             std::string(toString(rt.onRtSetupFailure)));
    line(out, "watchdog", "degrade after " + count(rt.watchdog.missesToDegrade, "miss", "consecutive misses") +
                              ", recover after " + count(rt.watchdog.recoverAfterGoodCycles, "good cycle", "good cycles") +
                              ", hold last at most " + std::to_string(rt.watchdog.holdLastMaxAge_ms) +
                              " ms; health over " + count(rt.healthWindowCycles, "cycle", "cycles"));
}

/// The capacities and the map.
void describeCapacitiesAndMap(std::string& out, const config::Deployment& d) {
    using config::toString;
    const config::Capacities& cap = d.capacities;
    line(out, "capacities", std::to_string(cap.maxObjects) + " objects, " + std::to_string(cap.maxTracks) +
                                " tracks, " + std::to_string(cap.maxPredictedVehicles) + " predicted vehicles x " +
                                std::to_string(cap.maxCorridorsPerVehicle) + " corridors, " +
                                std::to_string(cap.particles) + " particles per vehicle, " +
                                std::to_string(cap.trackHistoryCycles) + " cycles of track history");

    std::string map = d.map.path + " (" + std::string(toString(d.map.format));
    if (d.map.format == config::MapFormat::Lanelet2) {
        map += ", origin " + number(d.map.originLat_deg) + " deg N, " + number(d.map.originLon_deg) + " deg E";
    }
    line(out, "map", map + ")");
}

/// The tracking, intention and motion models.
void describeModels(std::string& out, const config::Deployment& d) {
    using config::toString;
    const config::Capacities& cap = d.capacities;
    const config::TrackingConfig& tr = d.tracking;
    line(out, "tracking", std::string(toString(tr.model)) + ", noise density " + number(tr.accelNoiseDensity) +
                              ", gates d2 <= " + number(tr.gates.mahalanobisSq) + " and " +
                              number(tr.gates.distance_m) + " m, id bonus " + number(tr.gates.idBonus) +
                              ", confirmed after " + std::to_string(tr.confirmAfterHits) + " hits" +
                              (tr.confirmWindow == 0 ? std::string() : " in " + std::to_string(tr.confirmWindow) + " lists") +
                              ", dropped after " +
                              std::to_string(tr.maxMissedCycles) + " misses");

    const config::IntentionConfig& in = d.intention;
    std::string intention = std::to_string(cap.particles) + " particles (" + std::to_string(in.particlesReduced) +
                            " when degraded), " + std::string(toString(in.resampling)) + " resampling below N_eff " +
                            number(in.resampleThreshold) + " N";
    if (in.resampling == config::Resampling::DifferentialEvolution) {
        intention += " (CR " + number(in.de.crossover) + ", F " + number(in.de.scaleFactor) + ", up to " +
                     std::to_string(in.de.maxGenerations) + " generations)";
    }
    line(out, "intention", intention + ", lane-change prior " + number(in.laneChangePrior) + ", seed " + std::to_string(in.seed));
    line(out, "noise", "longitudinal " + number(in.noise.longitudinal_m) + " m, lateral " +
                           number(in.noise.lateral_m) + " m, speed " + number(in.noise.speed_mps) + " m/s, accel " +
                           number(in.noise.accel_mps2) + " m/s2");

    const config::MotionConfig& mo = d.motion;
    // The chain's inputs are symmetric, a_max·u with u in [−1, 1], a_max the larger of the two limits
    // (as Runtime::create builds the chain); the limits themselves bound the intention model.
    const double inputRange_mps2 = std::max(mo.maxAccel_mps2, mo.maxDecel_mps2);
    line(out, "motion", number(mo.horizon_s) + " s horizon in " + std::to_string(config::horizonSteps(mo)) +
                            " steps of " + number(mo.step_s) + " s; " + std::to_string(mo.positionCells) +
                            " position cells over " + number(mo.positionRange_m) + " m, " +
                            std::to_string(mo.speedCells) + " speed cells up to " + number(mo.maxSpeed_mps) +
                            " m/s, " + std::to_string(mo.inputCells) + " input cells in [-" +
                            number(inputRange_mps2) + ", " + number(inputRange_mps2) + "] m/s2 (braking to " +
                            number(mo.maxDecel_mps2) + ", accelerating to " + number(mo.maxAccel_mps2) + "), " +
                            std::to_string(mo.samplesPerCell) + " samples per cell");
    const config::CpuChainCells cells = config::cpuChainCells(mo);
    const std::string full = cells.fullPosition == mo.positionCells && cells.fullSpeed == mo.speedCells
                                 ? std::string("the chain above")
                                 : std::to_string(cells.fullPosition) + " x " + std::to_string(cells.fullSpeed) + " cells";
    line(out, "motion cpu",
         cells.coarsePosition == cells.fullPosition && cells.coarseSpeed == cells.fullSpeed
             ? "every vehicle on " + full + " (whenever the CPU propagates)"
             : "the " + std::to_string(mo.cpu.fullChainVehicles) + " vehicles nearest the ego on " + full +
                   ", the others on " + std::to_string(cells.coarsePosition) + " x " + std::to_string(cells.coarseSpeed) +
                   " cells (whenever the CPU propagates)");
}

/// The grid, the flocks, the transport's channels and the output.
void describeOutputs(std::string& out, const config::Deployment& d) {
    using config::toString;
    const config::MotionConfig& mo = d.motion;
    const config::GridConfig& gr = d.grid;
    line(out, "grid", gr.enabled ? std::to_string(gr.widthCells) + " x " + std::to_string(gr.heightCells) +
                                       " cells of " + number(gr.resolution_m) + " m, " +
                                       std::to_string(config::gridFrames(gr, mo)) + " frames every " +
                                       number(gr.frameInterval_s) + " s"
                                 : std::string("disabled"));

    const config::FlocksConfig& fl = d.flocks;
    line(out, "flocks", fl.enabled ? "every " + std::to_string(fl.everyNCycles) + " cycles: at least " +
                                         std::to_string(fl.minMembers) + " tracks within a " + number(fl.radius_m) +
                                         " m radius for " + std::to_string(fl.windowCycles) + " cycles"
                                   : std::string("disabled"));

    const config::TransportConfig& tp = d.transport;
    line(out, "transport", "iceoryx as '" + tp.applicationName + "', RouDi timeout " +
                               std::to_string(tp.roudiConnectTimeout_ms) + " ms");
    line(out, "subscribes", "objects " + channel(tp.objects));
    line(out, "publishes", "tracks " + channel(tp.tracks) + ", intentions " + channel(tp.intentions) +
                               ", prediction " + channel(tp.prediction) + ", health " + channel(tp.health) +
                               ", platoons " + channel(tp.platoons));
    line(out, "output", "log level " + std::string(toString(d.output.logLevel)) + ", " +
                            (d.output.tracePath.empty() ? std::string("no trace") : "trace to " + d.output.tracePath));
}

}  // namespace

std::string describeDeployment(const config::Deployment& d) {
    std::string out = "deployment (configuration schema " + std::to_string(d.schemaVersion) + ")\n";
    describeRuntime(out, d.runtime);
    describeCapacitiesAndMap(out, d);
    describeModels(out, d);
    describeOutputs(out, d);
    return out;
}

}  // namespace augur::runtime
