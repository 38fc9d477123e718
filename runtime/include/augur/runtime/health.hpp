// Builds the Health message every cycle from the executor's statistics and the pipeline counters.
// Run-phase safe: noexcept, allocation-free.
#pragma once

#include "augur/runtime/executor.hpp"
#include "augur/runtime/pipeline_state.hpp"

namespace augur::runtime {

/// Fills `health` for the cycle described by `report`. `backendIsCuda`: the backend the cycle used.
void fillHealth(Health& health, const CycleReport& report, const Executor& executor, const PipelineCounters& counters,
                bool backendIsCuda) noexcept;

}  // namespace augur::runtime
