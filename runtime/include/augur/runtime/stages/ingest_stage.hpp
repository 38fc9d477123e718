// Ingest: takes the perception object lists queued in shared memory (zero-copy), passes each through
// the input gate (core/message_validation.hpp), counts rejections by reason (lists and single objects),
// and copies what was accepted into the pipeline state. Bad or stale input never reaches the later
// stages and never stops the runtime; a restarted publisher is followed, not locked out.
#pragma once

#include "augur/core/message_validation.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/executor.hpp"
#include "augur/runtime/pipeline_state.hpp"

namespace augur::runtime {

class IngestStage final : public StageRunner {
public:
    IngestStage(platform::Subscriber<ObjectList>& subscriber, const ObjectListLimits& limits,
                PipelineState& state) noexcept;

    /// Takes up to MAX_INPUTS_PER_CYCLE accepted lists (oldest first) and at most MAX_TAKES_PER_CYCLE
    /// lists in all; sets context.hadInput when one was accepted and raises the input HealthFault bits.
    StageStatus run(CycleContext& context) noexcept override;

    [[nodiscard]] const IngestHistory& history() const noexcept { return m_gate.history(); }

private:
    platform::Subscriber<ObjectList>& m_subscriber;
    ObjectListGate m_gate;
    PipelineState& m_state;
};

}  // namespace augur::runtime
