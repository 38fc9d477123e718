// augur-bridge-probe — measures a running augur-bridge (role target) from both of its sides.
//
//   augur-bridge-probe latency --config FILE --count N --rate-hz R [--vehicles V] [--grid-frames F]
//                              [--bridge-pid PID] [--out FILE]
//       stands in for augur-runtime: publishes N track lists and motion predictions (V vehicles, 3 corridors,
//       the full horizon, F occupancy frames of 128 x 128 cells) on the deployment's iceoryx channels, stamped with the monotonic clock, and
//       receives each prediction twice: from iceoryx directly and from <prefix>/prediction through the
//       bridge. Prints one JSON object: latency p50/p99/max of both paths, lost messages, the bridge's
//       resident memory (VmRSS of PID) before, after a tenth of the messages and at the end; its private
//       part (RssAnon) every hundredth of the messages, at the tenth and the largest from there on; its
//       shared-memory part (RssShmem: iceoryx chunks it read, bounded by RouDi's pools) at the end.
//       --no-dds: publish and measure the iceoryx path only (the DDS side is a `receive` elsewhere).
//   augur-bridge-probe receive --config FILE --count N [--timeout-s T] [--out FILE]
//       the DDS side alone (another network namespace or host sharing the clock): takes N predictions from
//       <prefix>/prediction and prints the latency from their stamps, and how many were lost.
//   augur-bridge-probe peer-loss --config FILE --listener PATH [--repeat K] [--out FILE]
//       starts `PATH publish-objects 20` (a remote perception on DDS), waits until the bridge reports it
//       alive, kills it with SIGKILL and measures the time until <prefix>/bridge_status reports the peer
//       lost; K times.
//   augur-bridge-probe link-loss --config FILE --listener PATH [--repeat K] [--out FILE]
//       the same kill, timed until the runtime's own health (transport.health on iceoryx, from an
//       augur-runtime next to the bridge: a cycle's health or a link update) carries link_lost; the
//       publisher counts as alive once that health reports an alive link peer and no link_lost. One line
//       per kill on stderr says which kind of health carried it.
//   augur-bridge-probe reader-loss --config FILE --listener PATH [--repeat K] [--out FILE]
//       starts `PATH predictions …` (a remote planner reading <prefix>/prediction), waits until the bridge
//       reports one more matched reader, kills it with SIGKILL and measures the time until
//       <prefix>/bridge_status counts a reader loss (the reader participant's lease, Cyclone's
//       Discovery/LeaseDuration in CYCLONEDDS_URI); K times. Also counts reader losses the bridge
//       reported while no reader was killed (false losses from a lease too short).
// Exit status 0 when the measurement ran (the figures say whether targets held), 1 when it could not run.
#include <dds/dds.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "augur/bridge/bridge.hpp"
#include "augur/bridge/dds_messages.hpp"
#include "augur/config/loader.hpp"
#include "augur/platform/clock.hpp"
#include "augur/platform/transport.hpp"
#include "augur_cli.hpp"

namespace {

using augur::platform::monotonicNow_ns;

double percentile(std::vector<double> values, double q) {
    if (values.empty()) {
        return NAN;
    }
    std::sort(values.begin(), values.end());
    const auto index = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size()))) - 1;
    return values[std::min(index, values.size() - 1)];
}

/// A resident size of process `pid` in KiB from /proc/PID/status (−1 unknown): `key` VmRSS (all of it),
/// RssAnon (its private memory: heap, stacks) or RssShmem (the shared-memory pages it touched: iceoryx's
/// chunks it read, bounded by RouDi's pools).
long residentKiB(int pid, const std::string& key = "VmRSS") {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind(key + ":", 0) == 0) {
            return std::stol(line.substr(key.size() + 1));
        }
    }
    return -1;
}

augur::platform::ServiceName serviceName(const augur::config::Channel& c) { return {c.service, c.instance, c.event}; }

void fillPrediction(augur::MotionPrediction& p, std::uint64_t sequence, std::uint32_t vehicles, std::int64_t now_ns) {
    p.header = {augur::MESSAGE_SCHEMA_VERSION, 0, sequence, now_ns};
    p.step_s = 0.1F;
    p.horizonSteps = augur::MAX_HORIZON_STEPS;
    p.vehicleCount = vehicles;
    p.stale = 0;
    p.mode = augur::RuntimeMode::Nominal;
    p.sourceStamp_ns = now_ns;
    for (std::uint32_t v = 0; v < vehicles; ++v) {
        auto& vehicle = p.vehicles[v];
        vehicle.trackId = v + 1;
        vehicle.corridorCount = 3;
        for (std::uint32_t c = 0; c < 3; ++c) {
            vehicle.corridors[c].corridorId = c;
            vehicle.corridors[c].probability = 1.0F / 3.0F;
            for (std::uint32_t k = 0; k < augur::MAX_HORIZON_STEPS; ++k) {
                const float s = static_cast<float>(k + 1);
                vehicle.corridors[c].points[k] = {s, 0.1F * s, static_cast<float>(v) + s, static_cast<float>(c)};
            }
        }
    }
}

/// `frames` (≤ MAX_GRID_FRAMES) occupancy frames of MAX_GRID_SIDE_CELLS² cells; 0: no grid.
void fillGrid(augur::OccupancyGrid& grid, std::uint32_t frames) {
    constexpr auto SIDE = static_cast<std::uint32_t>(augur::MAX_GRID_SIDE_CELLS);
    grid.originX_m = -32.0F;
    grid.originY_m = -32.0F;
    grid.resolution_m = 0.5F;
    grid.frameInterval_s = 1.0F;
    grid.widthCells = frames > 0 ? SIDE : 0;
    grid.heightCells = frames > 0 ? SIDE : 0;
    grid.frameCount = frames;
    for (std::uint32_t f = 0; f < frames; ++f) {
        for (std::uint32_t i = 0; i < SIDE * SIDE; ++i) {
            grid.cells[f][i] = static_cast<std::uint16_t>((i * 2654435761U + f) >> 16);
        }
    }
}

void fillTracks(augur::TrackList& t, std::uint64_t sequence, std::uint32_t vehicles, std::int64_t now_ns) {
    t.header = {augur::MESSAGE_SCHEMA_VERSION, 0, sequence, now_ns};
    t.trackCount = vehicles;
    t.stale = 0;
    for (std::uint32_t v = 0; v < vehicles; ++v) {
        t.tracks[v] = augur::Track{};
        t.tracks[v].id = v + 1;
        t.tracks[v].objectClass = augur::ObjectClass::Car;
        t.tracks[v].x_m = static_cast<float>(v);
        t.tracks[v].vx_mps = 10.0F;
        t.tracks[v].covXX_m2 = t.tracks[v].covYY_m2 = 0.1F;
    }
}

/// A reliable KEEP_ALL reader of <prefix>/prediction, matched with the bridge's writer (waits up to 10 s).
dds_entity_t predictionReader(const augur::config::Deployment& d, dds_entity_t participant) {
    const std::string topicName = d.bridge.topicPrefix + "/prediction";
    const dds_entity_t topic =
        dds_create_topic(participant, &augur_msg_dds__MotionPrediction__desc, topicName.c_str(), nullptr, nullptr);
    dds_qos_t* qos = dds_create_qos();
    dds_qset_reliability(qos, DDS_RELIABILITY_RELIABLE, DDS_MSECS(100));
    dds_qset_history(qos, DDS_HISTORY_KEEP_ALL, 0);
    const dds_entity_t reader = topic < 0 ? topic : dds_create_reader(participant, topic, qos, nullptr);
    dds_delete_qos(qos);
    for (int i = 0; reader > 0 && i < 1000; ++i) {
        dds_subscription_matched_status_t matched{};
        if (dds_get_subscription_matched_status(reader, &matched) == DDS_RETCODE_OK && matched.current_count > 0) {
            break;
        }
        dds_sleepfor(DDS_MSECS(10));
    }
    return reader;
}

/// Takes every queued prediction, appending its latency (now − header.stamp_ns, the stamp taken off
/// the wire clock `wire`) in microseconds.
void drainPredictions(dds_entity_t reader, augur::platform::SharedClock wire, augur::bridge::SampleSet& samples,
                      std::vector<double>& latency_us, std::uint64_t& lastSequence, long& outOfOrder) {
    for (;;) {
        void* buffer[1] = {&samples.prediction};
        dds_sample_info_t info{};
        if (dds_take(reader, buffer, &info, 1, 1) <= 0) {
            return;
        }
        samples.rebind();
        if (info.valid_data) {
            augur::bridge::shiftTimes(samples.prediction, -augur::platform::offsetFromMonotonic_ns(wire));
            latency_us.push_back(static_cast<double>(monotonicNow_ns() - samples.prediction.header.stamp_ns) / 1e3);
            if (samples.prediction.header.sequence_number <= lastSequence) {
                ++outOfOrder;
            }
            lastSequence = samples.prediction.header.sequence_number;
        }
    }
}

/// A run's figures, one JSON line: on stdout, and into `out` unless empty.
void printResult(const char* json, const std::string& out) {
    std::printf("%s\n", json);
    if (!out.empty()) {
        std::ofstream(out) << json << "\n";
    }
}

int receive(const augur::config::Deployment& d, long count, double timeout_s, const std::string& out) {
    const dds_entity_t participant = dds_create_participant(static_cast<dds_domainid_t>(d.bridge.domainId), nullptr, nullptr);
    const dds_entity_t reader = participant < 0 ? participant : predictionReader(d, participant);
    if (reader < 0) {
        std::fprintf(stderr, "augur-bridge-probe: DDS setup failed\n");
        return 1;
    }
    std::printf("ready\n");
    std::fflush(stdout);
    augur::bridge::SampleSet samples;
    std::vector<double> dds_us;
    dds_us.reserve(static_cast<std::size_t>(count));
    std::uint64_t lastSequence = 0;
    long outOfOrder = 0;
    const std::int64_t end_ns = monotonicNow_ns() + static_cast<std::int64_t>(timeout_s * 1e9);
    while (static_cast<long>(dds_us.size()) < count && monotonicNow_ns() < end_ns) {
        drainPredictions(reader, augur::bridge::wireClockOf(d.bridge.wireClock), samples, dds_us, lastSequence, outOfOrder);
        dds_sleepfor(DDS_USECS(20));
    }
    char json[512];
    std::snprintf(json, sizeof json,
                  "{\"messages\": %ld, \"dds_received\": %zu, \"dds_lost\": %ld, \"dds_out_of_order\": %ld, "
                  "\"dds_p50_us\": %.1f, \"dds_p99_us\": %.1f, \"dds_max_us\": %.1f}",
                  count, dds_us.size(), count - static_cast<long>(dds_us.size()), outOfOrder, percentile(dds_us, 0.5),
                  percentile(dds_us, 0.99), percentile(dds_us, 1.0));
    printResult(json, out);
    dds_delete(participant);
    return 0;
}

/// What a latency run measured: the latencies (µs) on each path, the DDS samples out of order, the
/// bridge's resident memory (KiB; −1 unknown) before, warm and after, its private part (RssAnon) sampled
/// every hundredth of the messages (RSS_SAMPLES samples), and its shared-memory part at the end.
struct LatencyRun {
    const std::vector<double>& iceoryx_us;
    const std::vector<double>& dds_us;
    long outOfOrder;
    long rssBefore;
    long rssWarm;
    long rssAfter;
    const std::vector<long>& anonSamples;
    long shmemAfter;
};

constexpr long RSS_SAMPLES = 100;

/// The run's figures as one JSON line on stdout (and into `out` unless empty).
void reportLatency(const LatencyRun& r, long count, double rate_hz, std::uint32_t vehicles, bool withDds,
                   const std::string& out) {
    const std::vector<double>& iceoryx_us = r.iceoryx_us;
    const std::vector<double>& dds_us = r.dds_us;
    // The private memory at the warm sample (a tenth of the messages) and the largest from there on.
    const auto warmIndex = static_cast<std::size_t>(RSS_SAMPLES / 10) - 1;
    const long anonWarm = r.anonSamples.size() > warmIndex ? r.anonSamples[warmIndex] : -1;
    long anonMaxAfterWarm = anonWarm;
    for (std::size_t i = warmIndex; i < r.anonSamples.size(); ++i) {
        anonMaxAfterWarm = std::max(anonMaxAfterWarm, r.anonSamples[i]);
    }
    std::string samples;
    for (const long kib : r.anonSamples) {
        samples += (samples.empty() ? "" : ", ") + std::to_string(kib);
    }
    char json[1024];
    std::snprintf(json, sizeof json,
                  "{\"messages\": %ld, \"rate_hz\": %g, \"vehicles\": %u, \"iceoryx_received\": %zu, "
                  "\"iceoryx_p50_us\": %.1f, \"iceoryx_p99_us\": %.1f, \"iceoryx_max_us\": %.1f, "
                  "\"dds_received\": %zu, \"dds_lost\": %ld, \"dds_out_of_order\": %ld, \"dds_p50_us\": %.1f, "
                  "\"dds_p99_us\": %.1f, \"dds_max_us\": %.1f, \"added_p99_us\": %.1f, "
                  "\"bridge_rss_kib_before\": %ld, \"bridge_rss_kib_warm\": %ld, \"bridge_rss_kib_after\": %ld, "
                  "\"bridge_anon_kib_warm\": %ld, \"bridge_anon_kib_max_after_warm\": %ld, "
                  "\"bridge_shmem_kib_after\": %ld, ",
                  count, rate_hz, vehicles, iceoryx_us.size(), percentile(iceoryx_us, 0.5), percentile(iceoryx_us, 0.99),
                  percentile(iceoryx_us, 1.0), dds_us.size(), withDds ? count - static_cast<long>(dds_us.size()) : 0L, r.outOfOrder,
                  percentile(dds_us, 0.5), percentile(dds_us, 0.99), percentile(dds_us, 1.0),
                  percentile(dds_us, 0.99) - percentile(iceoryx_us, 0.99), r.rssBefore, r.rssWarm, r.rssAfter,
                  anonWarm, anonMaxAfterWarm, r.shmemAfter);
    printResult((json + ("\"bridge_anon_kib_samples\": [" + samples + "]}")).c_str(), out);
}

/// The predictions the bridge's iceoryx side received since the last call: their latency (µs) from the stamp.
void drainIceoryx(augur::platform::Subscriber<augur::MotionPrediction>& predictionIn, std::vector<double>& iceoryx_us) {
    for (;;) {
        auto taken = predictionIn.take();
        if (!taken) {
            break;
        }
        iceoryx_us.push_back(static_cast<double>(monotonicNow_ns() - taken.value()->header.stamp_ns) / 1e3);
    }
}

/// Publishes message `sequence`: its track list stamped `now_ns`, then its prediction (the grid filled
/// before the stamp: the latency starts at publication).
void publishCycle(augur::platform::Publisher<augur::TrackList>& tracksOut,
                  augur::platform::Publisher<augur::MotionPrediction>& predictionOut, std::uint64_t sequence,
                  std::uint32_t vehicles, std::uint32_t gridFrames, std::int64_t now_ns) {
    auto tracks = tracksOut.loan();
    if (tracks) {
        fillTracks(*tracks.value(), sequence, vehicles, now_ns);
        tracks.value().publish();
    }
    auto loan = predictionOut.loan();
    if (loan) {
        fillGrid(loan.value()->grid, gridFrames);
        fillPrediction(*loan.value(), sequence, vehicles, monotonicNow_ns());
        loan.value().publish();
    }
}

int latency(const augur::config::Deployment& d, long count, double rate_hz, std::uint32_t vehicles,
            std::uint32_t gridFrames, int bridgePid, bool withDds, const std::string& out) {
    auto connected = augur::platform::connectToRouDi("augur-bridge-probe", 5000);
    if (!connected) {
        std::fprintf(stderr, "augur-bridge-probe: RouDi: %s\n", augur::platform::toString(connected.error()));
        return 1;
    }
    auto predictionOut = augur::platform::Publisher<augur::MotionPrediction>::create(serviceName(d.transport.prediction));
    auto tracksOut = augur::platform::Publisher<augur::TrackList>::create(serviceName(d.transport.tracks));
    auto predictionIn =
        augur::platform::Subscriber<augur::MotionPrediction>::create(serviceName(d.transport.prediction), 16, 0);
    if (!predictionOut || !tracksOut || !predictionIn) {
        std::fprintf(stderr, "augur-bridge-probe: iceoryx publisher or subscriber failed\n");
        return 1;
    }
    dds_entity_t participant = 0;
    dds_entity_t reader = 0;
    if (withDds) {
        participant = dds_create_participant(static_cast<dds_domainid_t>(d.bridge.domainId), nullptr, nullptr);
        reader = participant < 0 ? participant : predictionReader(d, participant);
        if (reader < 0) {
            std::fprintf(stderr, "augur-bridge-probe: DDS setup failed\n");
            return 1;
        }
    }
    augur::bridge::SampleSet samples;
    std::vector<double> iceoryx_us;
    std::vector<double> dds_us;
    iceoryx_us.reserve(static_cast<std::size_t>(count));
    dds_us.reserve(static_cast<std::size_t>(count));
    const long rssBefore = bridgePid > 0 ? residentKiB(bridgePid) : -1;
    const auto period_ns = static_cast<std::int64_t>(1e9 / rate_hz);
    std::int64_t next_ns = monotonicNow_ns();
    std::uint64_t lastDdsSequence = 0;
    long outOfOrder = 0;
    long sent = 0;
    std::int64_t stop_ns = 0;
    long rssWarm = -1;  // after a tenth of the messages: Cyclone's buffers have grown to their working size
    std::vector<long> anonSamples;
    anonSamples.reserve(static_cast<std::size_t>(RSS_SAMPLES));
    for (;;) {
        const std::int64_t now_ns = monotonicNow_ns();
        if (sent < count && now_ns >= next_ns) {
            ++sent;
            publishCycle(tracksOut.value(), predictionOut.value(), static_cast<std::uint64_t>(sent), vehicles, gridFrames,
                         now_ns);
            next_ns += period_ns;
            if (bridgePid > 0 && sent == std::max(1L, count / 10)) {
                rssWarm = residentKiB(bridgePid);
            }
            if (bridgePid > 0 && count >= RSS_SAMPLES && sent % (count / RSS_SAMPLES) == 0 &&
                static_cast<long>(anonSamples.size()) < RSS_SAMPLES) {
                anonSamples.push_back(residentKiB(bridgePid, "RssAnon"));
            }
            if (sent == count) {
                stop_ns = now_ns + 2'000'000'000;  // two seconds for the last samples
            }
        }
        drainIceoryx(predictionIn.value(), iceoryx_us);
        if (withDds) {
            drainPredictions(reader, augur::bridge::wireClockOf(d.bridge.wireClock), samples, dds_us, lastDdsSequence, outOfOrder);
        }
        const long received = static_cast<long>(withDds ? dds_us.size() : iceoryx_us.size());
        if (sent == count && (received >= count || now_ns >= stop_ns)) {
            break;
        }
        dds_sleepfor(DDS_USECS(20));
    }
    const long rssAfter = bridgePid > 0 ? residentKiB(bridgePid) : -1;
    const long shmemAfter = bridgePid > 0 ? residentKiB(bridgePid, "RssShmem") : -1;
    reportLatency(LatencyRun{iceoryx_us, dds_us, outOfOrder, rssBefore, rssWarm, rssAfter, anonSamples, shmemAfter},
                  count, rate_hz, vehicles, withDds, out);
    if (withDds) {
        dds_delete(participant);
    }
    return 0;
}

int peerLoss(const augur::config::Deployment& d, const std::string& listener, int repeat, const std::string& out) {
    const dds_entity_t participant = dds_create_participant(static_cast<dds_domainid_t>(d.bridge.domainId), nullptr, nullptr);
    const std::string topicName = d.bridge.topicPrefix + "/bridge_status";
    const dds_entity_t topic =
        dds_create_topic(participant, &augur_msg_dds__BridgeStatus__desc, topicName.c_str(), nullptr, nullptr);
    const dds_entity_t reader = dds_create_reader(participant, topic, nullptr, nullptr);
    if (participant < 0 || topic < 0 || reader < 0) {
        std::fprintf(stderr, "augur-bridge-probe: DDS setup failed\n");
        return 1;
    }
    auto latest = [&](augur_msg_dds__BridgeStatus_& status) {
        bool any = false;
        for (;;) {
            void* buffer[1] = {&status};
            dds_sample_info_t info{};
            if (dds_take(reader, buffer, &info, 1, 1) <= 0) {
                return any;
            }
            any = any || info.valid_data;
        }
    };
    std::vector<double> detect_ms;
    for (int i = 0; i < repeat; ++i) {
        const pid_t child = fork();
        if (child == 0) {
            execl(listener.c_str(), listener.c_str(), "publish-objects", "20", d.bridge.topicPrefix.c_str(), nullptr);
            _exit(127);
        }
        augur_msg_dds__BridgeStatus_ status{};
        bool alive = false;
        for (int k = 0; k < 1000 && !alive; ++k) {  // at most 10 s for discovery
            if (latest(status) && status.alive_peers > 0 && (status.faults & augur_msg_dds__BRIDGE_FAULT_PEER_LOST) == 0) {
                alive = true;
            }
            dds_sleepfor(DDS_MSECS(10));
        }
        const std::int64_t kill_ns = monotonicNow_ns();
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
        if (!alive) {
            std::fprintf(stderr, "augur-bridge-probe: the bridge never saw the publisher alive\n");
            continue;
        }
        bool lost = false;
        while (!lost && monotonicNow_ns() - kill_ns < 5'000'000'000) {
            if (latest(status) && (status.faults & augur_msg_dds__BRIDGE_FAULT_PEER_LOST) != 0) {
                lost = true;
                detect_ms.push_back(static_cast<double>(monotonicNow_ns() - kill_ns) / 1e6);
            }
            dds_sleepfor(DDS_USECS(200));
        }
        dds_sleepfor(DDS_MSECS(300));
    }
    char json[512];
    std::snprintf(json, sizeof json,
                  "{\"repeats\": %d, \"detected\": %zu, \"detect_p50_ms\": %.1f, \"detect_max_ms\": %.1f, "
                  "\"liveliness_lease_ms\": %u, \"deadline_ms\": %u}",
                  repeat, detect_ms.size(), percentile(detect_ms, 0.5), percentile(detect_ms, 1.0),
                  d.bridge.livelinessLease_ms, d.bridge.deadline_ms);
    printResult(json, out);
    dds_delete(participant);
    return static_cast<int>(detect_ms.size()) == repeat ? 0 : 1;
}

/// The newest bridge status a DDS reader has taken (poll() takes what arrived since the last call).
struct BridgeStatusReader {
    dds_entity_t reader;
    augur_msg_dds__BridgeStatus_ status{};
    bool haveStatus{false};

    void poll() {
        augur_msg_dds__BridgeStatus_ taken{};
        for (;;) {
            void* buffer[1] = {&taken};
            dds_sample_info_t info{};
            if (dds_take(reader, buffer, &info, 1, 1) <= 0) {
                return;
            }
            if (info.valid_data) {  // an invalid sample (the status writer's liveliness changed) carries no status
                status = taken;
                haveStatus = true;
            }
        }
    }
};

/// The newest health with the link's state `health` has received since the last call (a cycle's own
/// health or a link update; watchdog alarms carry no link state) into `newest`; false when none arrived.
bool takeNewestLinkHealth(augur::platform::Subscriber<augur::Health>& health, augur::Health& newest) {
    bool any = false;
    for (;;) {
        auto taken = health.take();
        if (!taken) {
            if (taken.error() == augur::platform::TransportError::PayloadSize) {
                continue;
            }
            return any;
        }
        if (taken.value()->overrunAlarm == 0) {
            newest = *taken.value();
            any = true;
        }
    }
}

int readerLoss(const augur::config::Deployment& d, const std::string& listener, int repeat, const std::string& out) {
    const dds_entity_t participant = dds_create_participant(static_cast<dds_domainid_t>(d.bridge.domainId), nullptr, nullptr);
    const std::string topicName = d.bridge.topicPrefix + "/bridge_status";
    const dds_entity_t topic =
        dds_create_topic(participant, &augur_msg_dds__BridgeStatus__desc, topicName.c_str(), nullptr, nullptr);
    const dds_entity_t reader = dds_create_reader(participant, topic, nullptr, nullptr);
    if (participant < 0 || topic < 0 || reader < 0) {
        std::fprintf(stderr, "augur-bridge-probe: DDS setup failed\n");
        return 1;
    }
    BridgeStatusReader statusReader{reader};
    const augur_msg_dds__BridgeStatus_& status = statusReader.status;
    const bool& haveStatus = statusReader.haveStatus;
    auto poll = [&]() { statusReader.poll(); };
    for (int k = 0; k < 1000 && !haveStatus; ++k) {  // at most 10 s for discovery
        poll();
        dds_sleepfor(DDS_MSECS(10));
    }
    if (!haveStatus) {
        std::fprintf(stderr, "augur-bridge-probe: no bridge status\n");
        return 1;
    }
    std::vector<double> detect_ms;
    std::uint64_t falseLosses = 0;
    for (int i = 0; i < repeat; ++i) {
        poll();
        const std::uint32_t baseline = status.matched_readers;
        const std::uint64_t lossesBefore = status.reader_losses;
        const pid_t child = fork();
        if (child == 0) {
            execl(listener.c_str(), listener.c_str(), "predictions", "1000000", "60", "0", d.bridge.topicPrefix.c_str(),
                  nullptr);
            _exit(127);
        }
        bool matched = false;
        for (int k = 0; k < 1000 && !matched; ++k) {  // at most 10 s for discovery
            poll();
            matched = status.matched_readers > baseline;
            dds_sleepfor(DDS_MSECS(10));
        }
        // The reader alive for 2 s: a loss counted now is a false one (a lease shorter than the traffic allows).
        const std::int64_t aliveUntil_ns = monotonicNow_ns() + 2'000'000'000;
        while (matched && monotonicNow_ns() < aliveUntil_ns) {
            poll();
            dds_sleepfor(DDS_MSECS(10));
        }
        poll();
        falseLosses += status.reader_losses - lossesBefore;
        const std::uint64_t lossesAtKill = status.reader_losses;
        const std::int64_t kill_ns = monotonicNow_ns();
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
        if (!matched) {
            std::fprintf(stderr, "augur-bridge-probe: the bridge never matched the reader\n");
            continue;
        }
        bool lost = false;
        while (!lost && monotonicNow_ns() - kill_ns < 15'000'000'000) {
            poll();
            if (status.reader_losses > lossesAtKill) {
                lost = true;
                detect_ms.push_back(static_cast<double>(monotonicNow_ns() - kill_ns) / 1e6);
            }
            dds_sleepfor(DDS_USECS(500));
        }
    }
    char json[512];
    std::snprintf(json, sizeof json,
                  "{\"repeats\": %d, \"detected\": %zu, \"detect_p50_ms\": %.1f, \"detect_max_ms\": %.1f, "
                  "\"false_losses\": %llu, \"deadline_ms\": %u}",
                  repeat, detect_ms.size(), percentile(detect_ms, 0.5), percentile(detect_ms, 1.0),
                  static_cast<unsigned long long>(falseLosses), d.bridge.deadline_ms);
    printResult(json, out);
    dds_delete(participant);
    return static_cast<int>(detect_ms.size()) == repeat ? 0 : 1;
}

int linkLoss(const augur::config::Deployment& d, const std::string& listener, int repeat, const std::string& out) {
    using augur::Health;
    using augur::HealthFault;
    auto connected = augur::platform::connectToRouDi("augur-bridge-probe", 5000);
    if (!connected) {
        std::fprintf(stderr, "augur-bridge-probe: RouDi: %s\n", augur::platform::toString(connected.error()));
        return 1;
    }
    auto subscribed = augur::platform::Subscriber<Health>::create(serviceName(d.transport.health), 16, 0);
    if (!subscribed) {
        std::fprintf(stderr, "augur-bridge-probe: health subscriber: %s\n", augur::platform::toString(subscribed.error()));
        return 1;
    }
    auto latest = [&](Health& newest) { return takeNewestLinkHealth(subscribed.value(), newest); };
    const std::uint32_t linkLost = augur::bit(HealthFault::LinkLost);
    std::vector<double> detect_ms;
    std::vector<double> bridgeToHealth_ms;
    int byLinkUpdate = 0;  // detections by a link update rather than a cycle's health
    Health newest{};
    for (int i = 0; i < repeat; ++i) {
        const pid_t child = fork();
        if (child == 0) {
            execl(listener.c_str(), listener.c_str(), "publish-objects", "20", d.bridge.topicPrefix.c_str(), nullptr);
            _exit(127);
        }
        bool alive = false;
        for (int k = 0; k < 1000 && !alive; ++k) {  // at most 10 s for discovery and the first cycles
            alive = latest(newest) && newest.linkAlivePeers > 0 && (newest.faults & linkLost) == 0;
            usleep(10'000);
        }
        // The kill at a different phase of the runtime's cycle each time (seen from a health's arrival):
        // spread over one period in steps of 0.37 periods.
        const auto period_us = static_cast<std::int64_t>(d.runtime.cyclePeriod_ms) * 1000;
        usleep(static_cast<useconds_t>((i * 37 % 100) * period_us / 100));
        const std::int64_t kill_ns = monotonicNow_ns();
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
        if (!alive) {
            std::fprintf(stderr, "augur-bridge-probe: the runtime's health never showed the publisher alive\n");
            continue;
        }
        bool lost = false;
        while (!lost && monotonicNow_ns() - kill_ns < 5'000'000'000) {
            if (latest(newest) && (newest.faults & linkLost) != 0) {
                lost = true;
                const std::int64_t seen_ns = monotonicNow_ns();
                detect_ms.push_back(static_cast<double>(seen_ns - kill_ns) / 1e6);
                // The bridge's own notice (its monotonic clock, shared on one host) to the health that carries it.
                bridgeToHealth_ms.push_back(static_cast<double>(newest.header.stamp_ns - newest.linkLastPeerLoss_ns) / 1e6);
                byLinkUpdate += newest.linkUpdate != 0 ? 1 : 0;
                std::fprintf(stderr,
                             "link-loss %d: %.1f ms after the kill, by %s (cycle %llu), %.2f ms after the bridge's "
                             "notice\n",
                             i + 1, detect_ms.back(), newest.linkUpdate != 0 ? "a link update" : "the cycle's health",
                             static_cast<unsigned long long>(newest.cycle), bridgeToHealth_ms.back());
            }
            usleep(200);
        }
        usleep(500'000);
    }
    char json[640];
    std::snprintf(json, sizeof json,
                  "{\"repeats\": %d, \"detected\": %zu, \"detect_p50_ms\": %.1f, \"detect_max_ms\": %.1f, "
                  "\"bridge_to_health_p50_ms\": %.2f, \"bridge_to_health_max_ms\": %.2f, \"by_link_update\": %d, "
                  "\"liveliness_lease_ms\": %u, \"deadline_ms\": %u, \"cycle_period_ms\": %u}",
                  repeat, detect_ms.size(), percentile(detect_ms, 0.5), percentile(detect_ms, 1.0),
                  percentile(bridgeToHealth_ms, 0.5), percentile(bridgeToHealth_ms, 1.0), byLinkUpdate,
                  d.bridge.livelinessLease_ms, d.runtime.deadline_ms,
                  d.runtime.cyclePeriod_ms);
    printResult(json, out);
    return static_cast<int>(detect_ms.size()) == repeat ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    namespace cli = augur::apps::cli;
    CLI::App app{"augur-bridge-probe: latency, loss, memory and peer loss of a running augur-bridge", "augur-bridge-probe"};
    cli::useConventions(app);
    app.require_subcommand(1);
    std::string configPath;
    std::string out;
    long count = 1000;
    double rate_hz = 100.0;
    std::uint32_t vehicles = 64;
    int bridgePid = 0;
    std::string listener;
    int repeat = 5;
    CLI::App* lat = app.add_subcommand("latency", "publish predictions, receive them over iceoryx and DDS");
    lat->add_option("--config", configPath)->required();
    lat->add_option("--count", count)->check(CLI::Range(1L, 10'000'000L));
    lat->add_option("--rate-hz", rate_hz)->check(CLI::Range(0.1, 10'000.0));
    lat->add_option("--vehicles", vehicles)->check(CLI::Range(0U, static_cast<unsigned>(augur::MAX_PREDICTED_VEHICLES)));
    std::uint32_t gridFrames = 0;
    lat->add_option("--grid-frames", gridFrames, "occupancy frames of 128 x 128 cells in each prediction (0: none)")
        ->check(CLI::Range(0U, static_cast<unsigned>(augur::MAX_GRID_FRAMES)));
    lat->add_option("--bridge-pid", bridgePid);
    lat->add_option("--out", out);
    bool noDds = false;
    lat->add_flag("--no-dds", noDds, "measure the iceoryx path only");
    double timeout_s = 600.0;
    CLI::App* recv = app.add_subcommand("receive", "take predictions from DDS, print their latency");
    recv->add_option("--config", configPath)->required();
    recv->add_option("--count", count)->check(CLI::Range(1L, 10'000'000L));
    recv->add_option("--timeout-s", timeout_s)->check(CLI::Range(1.0, 86'400.0));
    recv->add_option("--out", out);
    CLI::App* loss = app.add_subcommand("peer-loss", "kill a DDS publisher, time the bridge's report");
    loss->add_option("--config", configPath)->required();
    loss->add_option("--listener", listener)->required();
    loss->add_option("--repeat", repeat)->check(CLI::Range(1, 1000));
    loss->add_option("--out", out);
    CLI::App* link = app.add_subcommand("link-loss", "kill a DDS publisher, time the runtime's health report");
    link->add_option("--config", configPath)->required();
    link->add_option("--listener", listener)->required();
    link->add_option("--repeat", repeat)->check(CLI::Range(1, 1000));
    link->add_option("--out", out);
    CLI::App* readers = app.add_subcommand("reader-loss", "kill a DDS reader, time the bridge's report");
    readers->add_option("--config", configPath)->required();
    readers->add_option("--listener", listener)->required();
    readers->add_option("--repeat", repeat)->check(CLI::Range(1, 1000));
    readers->add_option("--out", out);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        return app.exit(error) == 0 ? cli::EXIT_OK : cli::EXIT_USAGE;
    }
    auto loaded = augur::config::loadDeployment(configPath);
    if (!loaded) {
        std::fprintf(stderr, "%s\n", augur::config::format(loaded.error()).c_str());
        return cli::EXIT_INPUT;
    }
    if (lat->parsed()) {
        return latency(loaded.value(), count, rate_hz, vehicles, gridFrames, bridgePid, !noDds, out);
    }
    if (recv->parsed()) {
        return receive(loaded.value(), count, timeout_s, out);
    }
    if (readers->parsed()) {
        return readerLoss(loaded.value(), listener, repeat, out);
    }
    if (link->parsed()) {
        return linkLoss(loaded.value(), listener, repeat, out);
    }
    return peerLoss(loaded.value(), listener, repeat, out);
}
