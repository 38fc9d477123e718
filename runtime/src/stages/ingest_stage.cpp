#include "augur/runtime/stages/ingest_stage.hpp"

#include "augur/platform/clock.hpp"

namespace augur::runtime {

IngestStage::IngestStage(platform::Subscriber<ObjectList>& subscriber, const ObjectListLimits& limits,
                         PipelineState& state) noexcept
    : m_subscriber(subscriber), m_gate(limits), m_state(state) {}

StageStatus IngestStage::run(CycleContext& context) noexcept {
    PipelineCounters& counters = m_state.counters;
    m_state.inputCount = 0;
    if (m_subscriber.hasMissedData()) {
        ++counters.inputQueueOverflows;
        context.faults |= bit(HealthFault::InputQueueOverflow);
    }
    for (std::size_t taken = 0; taken < MAX_TAKES_PER_CYCLE && m_state.inputCount < MAX_INPUTS_PER_CYCLE; ++taken) {
        auto sample = m_subscriber.take();
        if (!sample) {
            if (sample.error() != platform::TransportError::PayloadSize) {
                break;  // queue empty (or the subscriber's hold limit, which the samples here never reach)
            }
            ++counters.rejections[static_cast<std::size_t>(RejectReason::PayloadSize)];
            context.faults |= bit(HealthFault::InputRejected);
            continue;
        }
        const ObjectList& list = **sample;
        const Admission admission = m_gate.admit(list, platform::monotonicNow_ns(), m_state.inputs[m_state.inputCount]);
        if (admission.reason != RejectReason::None) {
            ++counters.rejections[static_cast<std::size_t>(admission.reason)];
            context.faults |= bit(HealthFault::InputRejected);
            continue;
        }
        for (std::size_t r = 0; r < REJECT_REASON_COUNT; ++r) {
            counters.objectRejections[r] += admission.objectReasons[r];
        }
        if (admission.droppedObjects > 0) {
            context.faults |= bit(HealthFault::InputRejected);
        }
        if (admission.resynchronised) {
            ++counters.sequenceResets;
            context.faults |= bit(HealthFault::InputResynchronised);
        }
        counters.newestInputStamp_ns = list.header.stamp_ns;
        ++m_state.inputCount;
        ++counters.accepted;
    }
    context.hadInput = m_state.inputCount > 0;
    return context.hadInput ? StageStatus::Ok : StageStatus::Skipped;
}

}  // namespace augur::runtime
