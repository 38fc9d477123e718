// What the bench records from a running augur-runtime: every output message (tracks, intentions,
// motion prediction, platoons, health), copied out of shared memory into host memory, plus the object lists the
// bench itself published. Scoring (bench_scoring.hpp) works on this record after the run.
//
// The copies keep only the used part of each message (tracks up to trackCount, predicted vehicles up to
// vehicleCount, grid frames up to frameCount), so a minute of 5 Hz output is tens of MB, not hundreds.
// Offline code: the copy functions allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "augur/core/messages.hpp"

namespace augur::hil {

/// A TrackList without its unused capacity. stamp_ns is the cycle start; the tracks themselves are at
/// the time of the newest object list the cycle took (MotionPrediction::sourceStamp_ns of the same cycle).
struct RecordedTrackList {
    std::uint64_t cycle{0};   ///< header.sequence (the runtime's cycle number)
    std::int64_t stamp_ns{0};
    bool stale{false};
    std::vector<Track> tracks;
};

struct RecordedIntentionList {
    std::uint64_t cycle{0};
    std::int64_t stamp_ns{0};
    bool stale{false};
    std::vector<IntentionEstimate> vehicles;
};

/// The used frames of an OccupancyGrid: cells holds frameCount · heightCells · widthCells values,
/// frame-major, each frame row-major (row r covers y ∈ [originY + r·res, +res)).
struct RecordedGrid {
    float originX_m{0.0F};
    float originY_m{0.0F};
    float resolution_m{0.0F};
    float frameInterval_s{0.0F};
    std::uint32_t widthCells{0};
    std::uint32_t heightCells{0};
    std::uint32_t frameCount{0};
    std::vector<std::uint16_t> cells;
};

struct RecordedPrediction {
    std::uint64_t cycle{0};
    std::int64_t stamp_ns{0};        ///< cycle start
    std::int64_t sourceStamp_ns{0};  ///< newest object list the prediction is based on (its t0)
    RuntimeMode mode{RuntimeMode::Nominal};
    bool stale{false};
    float step_s{0.0F};              ///< corridor point k (0-based) is at t0 + (k + 1)·step_s
    std::uint32_t horizonSteps{0};
    std::vector<VehiclePrediction> vehicles;
    RecordedGrid grid;
};

struct RecordedPlatoonList {
    std::uint64_t cycle{0};
    std::int64_t stamp_ns{0};
    bool stale{false};
    std::uint32_t windowCycles{0};
    std::uint32_t truncated{0};
    std::vector<Platoon> platoons;
};

/// Everything received during one run, in arrival order per channel.
struct Recording {
    std::vector<RecordedTrackList> tracks;
    std::vector<RecordedIntentionList> intentions;
    std::vector<RecordedPrediction> predictions;
    std::vector<RecordedPlatoonList> platoons;
    std::vector<Health> health;
    std::uint64_t queueOverflows{0};  ///< times a subscriber queue discarded samples before the bench took them
    std::uint64_t invalidMessages{0}; ///< messages with another schema version or counts over capacity (dropped)
};

/// Copies of the used part of a message; false (nothing written) for a message with another schema
/// version or a count over its compiled capacity. Allocate.
bool recordTrackList(const TrackList& message, RecordedTrackList& out);
bool recordIntentionList(const IntentionList& message, RecordedIntentionList& out);
bool recordPrediction(const MotionPrediction& message, RecordedPrediction& out);
bool recordPlatoonList(const PlatoonList& message, RecordedPlatoonList& out);

/// Writes `recorded` back into an OccupancyGrid (frames beyond frameCount untouched), for the
/// occupancy metrics of occupancy_metrics.hpp. Precondition: recorded dimensions within the compiled
/// limits (recordPrediction guarantees it). O(frames · cells), allocation-free.
void restoreGrid(const RecordedGrid& recorded, OccupancyGrid& out) noexcept;

}  // namespace augur::hil

namespace augur::hil {

/// The object lists the bench published, one slot per replayed scenario step, and how the replay kept
/// its schedule. Stamps are sensor time: stamp(step) = stampOfStep0_ns + step · step_s (the perception
/// emulator's), so scenario time t_s = (stamp − stampOfStep0_ns) / 1e9.
struct ReplayLog {
    std::uint32_t egoId{0};
    double step_s{0.1};
    std::int64_t stampOfStep0_ns{0};
    std::size_t firstStep{0};
    std::vector<ObjectList> lists;    ///< lists[i] is step firstStep + i; header.sequence 0: none was sent
    std::uint64_t published{0};
    std::uint64_t egoAbsent{0};       ///< steps without a list (the ego was not in the scenario)
    std::uint64_t loanFailures{0};    ///< lists not sent: no shared-memory chunk
    std::uint64_t lateSends{0};       ///< lists sent more than half a step after their deadline
    double maxLateness_us{0.0};       ///< largest delay of a send after its deadline
};

}  // namespace augur::hil
