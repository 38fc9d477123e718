#include "augur/runtime/stages/ingest_stage.hpp"

#include <cstring>

#include "augur/platform/clock.hpp"

namespace augur::runtime {

IngestStage::IngestStage(platform::Subscriber<ObjectList>& subscriber, const ObjectListLimits& limits,
                         PipelineState& state) noexcept
    : m_subscriber(subscriber), m_limits(limits), m_state(state) {}

StageStatus IngestStage::run(CycleContext& context) noexcept {
    m_state.inputCount = 0;
    if (m_subscriber.hasMissedData()) {
        ++m_state.counters.inputQueueOverflows;
    }
    while (m_state.inputCount < MAX_INPUTS_PER_CYCLE) {
        auto sample = m_subscriber.take();
        if (!sample) {
            break;  // queue empty
        }
        const ObjectList& list = **sample;
        const RejectReason reason = validateObjectList(list, m_limits, m_history, platform::monotonicNow_ns());
        if (reason != RejectReason::None) {
            ++m_state.counters.rejections[static_cast<std::size_t>(reason)];
            continue;
        }
        recordAccepted(m_history, list);
        std::memcpy(&m_state.inputs[m_state.inputCount], &list, sizeof(ObjectList));
        ++m_state.inputCount;
        ++m_state.counters.accepted;
    }
    context.hadInput = m_state.inputCount > 0;
    return context.hadInput ? StageStatus::Ok : StageStatus::Skipped;
}

}  // namespace augur::runtime
