// The bench's end of the shared-memory interface: publishes a scenario's emulated object lists to a
// running augur-runtime on a fixed schedule and records every output message it publishes.
//
// Schedule: step i of the replay (scenario step firstStep + i) is published at the absolute monotonic
// time start_ns + i · step_s / speedFactor (platform::sleepUntil_ns; no drift from accumulated sleeps).
// Its stamp is sensor time, stampOfStep0_ns + step · step_s, with stampOfStep0_ns chosen so that the first
// list's stamp is its publish time: at speed 1 every stamp is its publish time; faster replays stamp
// ahead of the clock, slower ones behind it (which the runtime's staleness check,
// runtime.max_input_age_ms, rejects once the lag exceeds it).
// Between sends the bench drains the runtime's output channels every pollPeriod_ns, so no queue of
// BenchIo::QUEUE_CAPACITY samples overflows at the runtime's 5–10 Hz.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>

#include "augur/core/messages.hpp"
#include "augur/core/result.hpp"
#include "augur/hil/perception_emulator.hpp"
#include "augur/hil/recording.hpp"
#include "augur/hil/scenario.hpp"
#include "augur/platform/transport.hpp"

namespace augur::hil {

/// Where the runtime subscribes and publishes (the deployment's transport section).
struct BenchChannels {
    platform::ServiceName objects{"perception", "front", "objects"};
    platform::ServiceName tracks{"augur", "main", "tracks"};
    platform::ServiceName intentions{"augur", "main", "intentions"};
    platform::ServiceName prediction{"augur", "main", "prediction"};
    platform::ServiceName health{"augur", "main", "health"};
    platform::ServiceName platoons{"augur", "main", "platoons"};
};

/// One publisher (object lists) and five subscribers (the runtime's outputs).
class BenchIo {
public:
    /// Samples each subscriber queues; config/roudi.toml's pools are sized for it.
    static constexpr std::uint64_t QUEUE_CAPACITY = 64;

    /// Init phase: the process must be connected to RouDi (platform::connectToRouDi) or host an
    /// EmbeddedRouDi.
    static Result<BenchIo, platform::TransportError> create(const BenchChannels& channels);

    /// True once a subscriber (the runtime) listens to the object lists.
    [[nodiscard]] bool runtimeSubscribed() const noexcept;

    /// Publishes a copy of `list`; LoanFailed when no chunk is free.
    Result<void, platform::TransportError> publish(const ObjectList& list) noexcept;

    /// Takes every queued output message and appends a copy to `recording` (allocates).
    void drain(Recording& recording);

private:
    BenchIo() = default;
    platform::Publisher<ObjectList> m_objects;
    platform::Subscriber<TrackList> m_tracks;
    platform::Subscriber<IntentionList> m_intentions;
    platform::Subscriber<MotionPrediction> m_prediction;
    platform::Subscriber<Health> m_health;
    platform::Subscriber<PlatoonList> m_platoons;
};

/// Waits until the runtime subscribes to the object lists and publishes health (its cycle runs),
/// draining and discarding what arrives meanwhile. False after `timeout_ns` or when `stop` is set.
bool waitForRuntime(BenchIo& io, std::int64_t timeout_ns, const std::atomic<bool>& stop);

struct ReplayOptions {
    std::size_t firstStep{0};
    std::size_t stepCount{std::numeric_limits<std::size_t>::max()};  ///< clipped to the scenario's end
    double speedFactor{1.0};                     ///< > 0; 2 replays twice as fast as real time
    std::int64_t tail_ns{1'000'000'000};         ///< keep recording this long after the last list
    std::int64_t pollPeriod_ns{2'000'000};       ///< drain the outputs at least this often
    std::int64_t lead_ns{20'000'000};            ///< first list this long after the call
    /// Called before each step is sent with (steps done, steps in all) and the recording so far, on the
    /// replay's thread; keep it short (the bench prints a progress line from it). Empty: not called.
    std::function<void(std::size_t, std::size_t, const Recording&)> progress;
};

/// Replays `scenario` through `perception` (created with any startStamp_ns: the replay sets the stamps
/// as described above, so the emulator's stamps are overwritten) and records the runtime's outputs into
/// `recording` (cleared first). Returns the log of what was sent. Stops early when `stop` is set.
/// Preconditions: options.speedFactor > 0, firstStep < scenario.stepCount().
ReplayLog replay(const Scenario& scenario, PerceptionEmulator& perception, BenchIo& io, Recording& recording,
                 const ReplayOptions& options, const std::atomic<bool>& stop);

}  // namespace augur::hil
