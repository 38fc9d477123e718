// Ingest: takes the perception object lists queued in shared memory (zero-copy), validates each
// (core/message_validation.hpp), counts rejections by reason, and copies accepted lists into the
// pipeline state. Bad or stale input never reaches the later stages and never stops the runtime.
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

    /// Takes up to MAX_INPUTS_PER_CYCLE lists (oldest first); sets context.hadInput when one was valid.
    StageStatus run(CycleContext& context) noexcept override;

    [[nodiscard]] const IngestHistory& history() const noexcept { return m_history; }

private:
    platform::Subscriber<ObjectList>& m_subscriber;
    ObjectListLimits m_limits;
    PipelineState& m_state;
    IngestHistory m_history;
};

}  // namespace augur::runtime
