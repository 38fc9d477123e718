// Publish: copies the cycle's tracks, intentions and motion prediction into loaned shared-memory
// chunks and publishes them (at most three of the 8 loans iceoryx allows per publisher are ever out).
// After a deadline miss the messages are marked stale. In HoldLast the last valid prediction is
// republished with its age; in NoPrediction an empty prediction says so. A failed loan is counted,
// never fatal.
#pragma once

#include "augur/platform/transport.hpp"
#include "augur/runtime/executor.hpp"
#include "augur/runtime/pipeline_state.hpp"

namespace augur::runtime {

struct OutputPublishers {
    platform::Publisher<TrackList>& tracks;
    platform::Publisher<IntentionList>& intentions;
    platform::Publisher<MotionPrediction>& prediction;
};

class PublishStage final : public StageRunner {
public:
    PublishStage(OutputPublishers publishers, PipelineState& state, std::int64_t holdLastMaxAge_ns) noexcept;

    StageStatus run(CycleContext& context) noexcept override;

private:
    template <typename T>
    bool publishCopy(platform::Publisher<T>& publisher, const T& message) noexcept;

    OutputPublishers m_publishers;
    PipelineState& m_state;
    std::int64_t m_holdLastMaxAge_ns;
};

}  // namespace augur::runtime
