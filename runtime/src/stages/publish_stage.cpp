#include "augur/runtime/stages/publish_stage.hpp"

#include "augur/runtime/output_guard.hpp"

#include <cstring>

namespace augur::runtime {

PublishStage::PublishStage(OutputPublishers publishers, PipelineState& state, std::int64_t holdLastMaxAge_ns) noexcept
    : m_publishers(publishers), m_state(state), m_holdLastMaxAge_ns(holdLastMaxAge_ns) {}

template <typename T>
bool PublishStage::publishCopy(platform::Publisher<T>& publisher, const T& message) noexcept {
    auto loan = publisher.loan();
    if (!loan) {
        ++m_state.counters.loanFailures;
        return false;
    }
    std::memcpy(loan->get(), &message, sizeof(T));
    loan->publish();
    return true;
}

StageStatus PublishStage::run(CycleContext& context) noexcept {
    const std::uint32_t stale = context.deadlineMissed ? 1U : 0U;
    const MessageHeader header{MESSAGE_SCHEMA_VERSION, 0, context.cycle, context.start_ns};

    m_state.tracks.header = header;
    m_state.tracks.stale = stale;
    m_state.intentions.header = header;
    m_state.intentions.stale = stale;

    MotionPrediction& prediction = m_state.prediction;
    const bool computing = context.mode < RuntimeMode::HoldLast;
    if (computing) {
        // Computed this cycle (complete, or partial and marked stale after a deadline miss). The header
        // first: HoldLast measures the age of the last valid prediction from its own cycle's stamp.
        prediction.mode = context.mode;
        prediction.header = header;
        prediction.stale = stale;
        if (!context.deadlineMissed) {
            std::memcpy(&m_state.lastValidPrediction, &prediction, sizeof(MotionPrediction));
            m_state.hasLastValid = true;
        }
    } else if (context.mode == RuntimeMode::HoldLast && m_state.hasLastValid &&
               context.start_ns - m_state.lastValidPrediction.header.stamp_ns <= m_holdLastMaxAge_ns) {
        std::memcpy(&prediction, &m_state.lastValidPrediction, sizeof(MotionPrediction));
        prediction.mode = RuntimeMode::HoldLast;  // sourceStamp_ns keeps the age visible
    } else {
        prediction.vehicleCount = 0;
        prediction.grid.frameCount = 0;
        prediction.mode = RuntimeMode::NoPrediction;
    }
    prediction.header = header;
    prediction.stale = stale;

    const std::uint32_t nonFinite =
        dropNonFinite(m_state.tracks) + dropNonFinite(m_state.intentions) + dropNonFinite(prediction);
    if (nonFinite > 0) {
        m_state.counters.nonFiniteDropped += nonFinite;
        context.faults |= bit(HealthFault::NonFiniteOutput);
    }

    const bool ok = publishCopy(m_publishers.tracks, m_state.tracks) &
                    publishCopy(m_publishers.intentions, m_state.intentions) &
                    publishCopy(m_publishers.prediction, prediction);
    m_state.counters.loanFailureCycles = ok ? 0 : m_state.counters.loanFailureCycles + 1;
    return ok ? StageStatus::Ok : StageStatus::Failed;
}

}  // namespace augur::runtime
