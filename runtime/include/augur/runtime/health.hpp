// Builds the Health message every cycle from the executor's statistics and the pipeline counters.
// Run-phase safe: noexcept, allocation-free.
#pragma once

#include "augur/runtime/executor.hpp"
#include "augur/runtime/pipeline_state.hpp"

namespace augur::runtime {

/// Fills `health` for the cycle described by `report`. `backendIsCuda`: the backend the cycle used.
template <platform::Clock ClockT>
void fillHealth(Health& health, const CycleReport& report, const BasicExecutor<ClockT>& executor,
                const PipelineCounters& counters, bool backendIsCuda) noexcept {
    health.header = MessageHeader{MESSAGE_SCHEMA_VERSION, 0, report.cycle, 0};
    health.cycle = report.cycle;
    health.mode = executor.ladder().mode();
    health.backendIsCuda = backendIsCuda ? 1 : 0;
    health.lastCycleHadInput = report.hadInput ? 1 : 0;
    health.consecutiveMisses = executor.ladder().consecutiveMisses();
    health.deadlineMisses = executor.deadlineMisses();
    health.modeChanges = executor.ladder().transitions();
    health.loanFailures = counters.loanFailures;
    health.gpuErrors = counters.gpuErrors;
    health.acceptedInputs = counters.accepted;
    health.inputQueueOverflows = counters.inputQueueOverflows;
    health.stageFailures = executor.stageFailures();
    for (std::size_t i = 0; i < REJECT_REASON_COUNT; ++i) {
        health.rejections[i] = counters.rejections[i];
        health.objectRejections[i] = counters.objectRejections[i];
    }
    health.sequenceResets = counters.sequenceResets;
    health.nonFiniteDropped = counters.nonFiniteDropped;
    health.faults = report.faults;
    health.cyclesWithoutInput = report.cyclesWithoutInput;
    health.newestInputStamp_ns = counters.newestInputStamp_ns;
    health.stagesRun = report.stagesRun;
    health.stageTrail = report.stageTrail;
    health.cycleLatency = executor.cycleLatency();
    for (std::size_t i = 0; i < STAGE_COUNT; ++i) {
        health.stageLatency[i] = executor.stageLatency(static_cast<Stage>(i));
    }
}


}  // namespace augur::runtime
