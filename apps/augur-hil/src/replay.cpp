#include "augur/hil/replay.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "augur/core/panic.hpp"
#include "augur/platform/clock.hpp"

namespace augur::hil {
namespace {

constexpr double NS_PER_S = 1e9;

template <typename T>
void drainInto(platform::Subscriber<T>& subscriber, Recording& recording, auto&& keep) {
    if (subscriber.hasMissedData()) {
        ++recording.queueOverflows;
    }
    for (;;) {
        auto sample = subscriber.take();
        if (!sample) {
            return;
        }
        if (!keep(**sample)) {
            ++recording.invalidMessages;
        }
    }
}

}  // namespace

Result<BenchIo, platform::TransportError> BenchIo::create(const BenchChannels& channels) {
    BenchIo io;
    auto objects = platform::Publisher<ObjectList>::create(channels.objects, 0);
    if (!objects) return fail(objects.error());
    io.m_objects = std::move(objects).value();
    auto tracks = platform::Subscriber<TrackList>::create(channels.tracks, QUEUE_CAPACITY);
    if (!tracks) return fail(tracks.error());
    io.m_tracks = std::move(tracks).value();
    auto intentions = platform::Subscriber<IntentionList>::create(channels.intentions, QUEUE_CAPACITY);
    if (!intentions) return fail(intentions.error());
    io.m_intentions = std::move(intentions).value();
    auto prediction = platform::Subscriber<MotionPrediction>::create(channels.prediction, QUEUE_CAPACITY);
    if (!prediction) return fail(prediction.error());
    io.m_prediction = std::move(prediction).value();
    auto health = platform::Subscriber<Health>::create(channels.health, QUEUE_CAPACITY);
    if (!health) return fail(health.error());
    io.m_health = std::move(health).value();
    auto platoons = platform::Subscriber<PlatoonList>::create(channels.platoons, QUEUE_CAPACITY);
    if (!platoons) return fail(platoons.error());
    io.m_platoons = std::move(platoons).value();
    return Result<BenchIo, platform::TransportError>(std::move(io));
}

bool BenchIo::runtimeSubscribed() const noexcept { return m_objects.hasSubscribers(); }

Result<void, platform::TransportError> BenchIo::publish(const ObjectList& list) noexcept {
    auto loan = m_objects.loan();
    if (!loan) {
        return fail(loan.error());
    }
    std::memcpy(loan->get(), &list, sizeof(ObjectList));
    loan->publish();
    return {};
}

void BenchIo::drain(Recording& recording) {
    drainInto(m_tracks, recording, [&recording](const TrackList& m) {
        RecordedTrackList r;
        if (!recordTrackList(m, r)) return false;
        recording.tracks.push_back(std::move(r));
        return true;
    });
    drainInto(m_intentions, recording, [&recording](const IntentionList& m) {
        RecordedIntentionList r;
        if (!recordIntentionList(m, r)) return false;
        recording.intentions.push_back(std::move(r));
        return true;
    });
    drainInto(m_prediction, recording, [&recording](const MotionPrediction& m) {
        RecordedPrediction r;
        if (!recordPrediction(m, r)) return false;
        recording.predictions.push_back(std::move(r));
        return true;
    });
    drainInto(m_platoons, recording, [&recording](const PlatoonList& m) {
        RecordedPlatoonList r;
        if (!recordPlatoonList(m, r)) return false;
        recording.platoons.push_back(std::move(r));
        return true;
    });
    drainInto(m_health, recording, [&recording](const Health& m) {
        if (m.header.schemaVersion != MESSAGE_SCHEMA_VERSION) return false;
        recording.health.push_back(m);
        return true;
    });
}

bool waitForRuntime(BenchIo& io, std::int64_t timeout_ns, const std::atomic<bool>& stop) {
    constexpr std::int64_t POLL_NS = 10'000'000;
    const std::int64_t end = platform::monotonicNow_ns() + timeout_ns;
    Recording discarded;
    while (!stop.load(std::memory_order_relaxed)) {
        discarded = Recording{};
        io.drain(discarded);
        if (io.runtimeSubscribed() && !discarded.health.empty()) {
            return true;
        }
        const std::int64_t now = platform::monotonicNow_ns();
        if (now >= end) {
            return false;
        }
        platform::sleepUntil_ns(std::min(end, now + POLL_NS));
    }
    return false;
}

ReplayLog replay(const Scenario& scenario, PerceptionEmulator& perception, BenchIo& io, Recording& recording,
                 const ReplayOptions& options, const std::atomic<bool>& stop) {
    AUGUR_ASSERT(options.speedFactor > 0.0 && options.firstStep < scenario.stepCount(),
                 "replay: speed factor must be positive and the first step inside the scenario");
    const std::size_t end =
        options.firstStep + std::min(options.stepCount, scenario.stepCount() - options.firstStep);
    const auto step_ns = static_cast<std::int64_t>(std::llround(scenario.step_s() * NS_PER_S));
    const double interval_ns = static_cast<double>(step_ns) / options.speedFactor;

    ReplayLog log;
    log.egoId = perception.config().egoId;
    log.step_s = scenario.step_s();
    log.firstStep = options.firstStep;
    log.lists.resize(end - options.firstStep);  // value-initialised: sequence 0 marks "not sent"
    recording = Recording{};
    const std::size_t expectedCycles = static_cast<std::size_t>(
        static_cast<double>(end - options.firstStep) * scenario.step_s() / options.speedFactor * 10.0) + 64;
    recording.health.reserve(expectedCycles);
    recording.tracks.reserve(expectedCycles);
    recording.predictions.reserve(expectedCycles);
    recording.intentions.reserve(expectedCycles);

    const std::int64_t start_ns = platform::monotonicNow_ns() + options.lead_ns;
    log.stampOfStep0_ns = start_ns - static_cast<std::int64_t>(options.firstStep) * step_ns;
    const double halfStep_us = interval_ns / 2e3;

    for (std::size_t step = options.firstStep; step < end && !stop.load(std::memory_order_relaxed); ++step) {
        const std::int64_t deadline =
            start_ns + static_cast<std::int64_t>(std::llround(static_cast<double>(step - options.firstStep) * interval_ns));
        for (std::int64_t now = platform::monotonicNow_ns(); now < deadline; now = platform::monotonicNow_ns()) {
            io.drain(recording);
            platform::sleepUntil_ns(std::min(deadline, platform::monotonicNow_ns() + options.pollPeriod_ns));
        }
        if (options.progress) {
            options.progress(step - options.firstStep, end - options.firstStep, recording);
        }
        ObjectList& list = log.lists[step - options.firstStep];
        if (perception.emit(step, list) != EmitStatus::Emitted) {
            ++log.egoAbsent;
            list = ObjectList{};
            continue;
        }
        list.header.stamp_ns = log.stampOfStep0_ns + static_cast<std::int64_t>(step) * step_ns;
        if (!io.publish(list)) {
            ++log.loanFailures;
            list.header.sequence = 0;
            continue;
        }
        ++log.published;
        const double lateness_us = static_cast<double>(platform::monotonicNow_ns() - deadline) / 1e3;
        log.maxLateness_us = std::max(log.maxLateness_us, lateness_us);
        if (lateness_us > halfStep_us) {
            ++log.lateSends;
        }
    }
    const std::int64_t tailEnd = platform::monotonicNow_ns() + options.tail_ns;
    for (std::int64_t now = platform::monotonicNow_ns(); now < tailEnd && !stop.load(std::memory_order_relaxed);
         now = platform::monotonicNow_ns()) {
        io.drain(recording);
        platform::sleepUntil_ns(std::min(tailEnd, now + options.pollPeriod_ns));
    }
    io.drain(recording);
    return log;
}

}  // namespace augur::hil
