// The data one cycle passes from stage to stage, allocated once at init.
//
// Inputs: the object lists accepted this cycle, in arrival order (the tracker consumes every one, so
// nothing accepted is lost even when several arrive within one cycle). Outputs: the messages the
// Publish stage copies into loaned shared-memory chunks, and the last valid prediction for the
// HoldLast mode. Counters feed the Health message.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "augur/core/messages.hpp"

namespace augur::runtime {

/// Object lists taken per cycle at most; the rest stay queued in shared memory for the next cycle.
inline constexpr std::size_t MAX_INPUTS_PER_CYCLE = 8;

/// Object lists taken from the queue per cycle at most, rejected ones included: a flood of bad lists
/// cannot hold the ingest stage (the rest stay queued, or are discarded and counted by the queue).
inline constexpr std::size_t MAX_TAKES_PER_CYCLE = 32;

struct PipelineCounters {
    std::uint64_t accepted{0};
    std::array<std::uint64_t, REJECT_REASON_COUNT> rejections{};        ///< whole lists, by reason
    std::array<std::uint64_t, REJECT_REASON_COUNT> objectRejections{};  ///< objects dropped from accepted lists
    std::uint64_t sequenceResets{0};       ///< restarted publishers the input gate resynchronised to
    std::int64_t newestInputStamp_ns{0};   ///< stamp of the newest accepted list (0: none yet)
    std::uint64_t inputQueueOverflows{0};  ///< times the shared-memory queue discarded unread lists
    std::uint64_t loanFailures{0};
    std::uint32_t loanFailureCycles{0};    ///< consecutive cycles in which an output loan failed
    std::uint64_t nonFiniteDropped{0};     ///< tracks and predicted vehicles dropped as non-finite
    std::uint64_t gpuErrors{0};
};

struct PipelineState {
    std::array<ObjectList, MAX_INPUTS_PER_CYCLE> inputs;
    std::uint32_t inputCount{0};  ///< valid entries in `inputs` this cycle

    TrackList tracks;
    IntentionList intentions;
    MotionPrediction prediction;

    MotionPrediction lastValidPrediction;  ///< for HoldLast
    bool hasLastValid{false};

    PipelineCounters counters;
};

/// Allocates a zeroed PipelineState (about 2 MB: keep it off the stack). Init phase.
[[nodiscard]] std::unique_ptr<PipelineState> makePipelineState();

}  // namespace augur::runtime
