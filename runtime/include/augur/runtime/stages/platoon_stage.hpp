// Platoons: every n-th cycle (the executor's schedule), the maximal flocks f(δ, μ, ε) of seeds/002 over
// the last δ cycles of track positions (TrackHistory) — groups of at least μ road users that stayed
// within a disk of radius ε for δ cycles — published as a PlatoonList on its own channel.
//
// Each run pushes the snapshots recorded since the last one into a FlockStream (kernels/flock), which
// finds a snapshot's potential flocks once and keeps them while the snapshot is in the window: a run
// every n cycles finds n snapshots' potential flocks, not δ. Entities are track ids; a track missing
// from a snapshot is absent at that step. Members are reported in ascending id order, platoons in
// lexicographic order of their members (deterministic).
// Run phase: noexcept, allocation-free; a failed loan is counted.
#pragma once

#include <memory>
#include <vector>

#include "augur/kernels/flock/flock_stream.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/executor.hpp"
#include "augur/runtime/pipeline_state.hpp"
#include "augur/runtime/track_history.hpp"

namespace augur::runtime {

struct PlatoonStageSettings {
    std::uint32_t minMembers{3};    ///< μ ≥ 2
    std::uint32_t windowCycles{10}; ///< δ ≤ the history's capacity
    double radius_m{10.0};          ///< ε
};

class PlatoonStage final : public StageRunner {
public:
    /// Reserves the stream (δ snapshots of MAX_TRACKS) and its output list. Init phase.
    [[nodiscard]] static Result<std::unique_ptr<PlatoonStage>, kernels::flock::FlockFailure> create(
        const PlatoonStageSettings& settings, const TrackHistory& history, platform::Publisher<PlatoonList>& publisher,
        PipelineState& state);

    StageStatus run(CycleContext& context) noexcept override;

    /// The list built by the last run (also published).
    [[nodiscard]] const PlatoonList& last() const noexcept { return *m_list; }

private:
    PlatoonStage(const PlatoonStageSettings& settings, kernels::flock::FlockStream stream, const TrackHistory& history,
                 platform::Publisher<PlatoonList>& publisher, PipelineState& state);
    /// Pushes the snapshots recorded since the last run (at most δ, oldest first). False on a failed
    /// push: the stream is then empty and the next run pushes the last δ snapshots again.
    bool catchUp() noexcept;
    /// The stream's flocks into m_list (truncated to the message's capacities).
    bool report() noexcept;

    PlatoonStageSettings m_settings;
    kernels::flock::FlockStream m_stream;
    kernels::flock::FlockList m_flocks;
    const TrackHistory& m_history;
    platform::Publisher<PlatoonList>& m_publisher;
    PipelineState& m_state;
    std::unique_ptr<PlatoonList> m_list;
    std::vector<kernels::flock::StreamPoint> m_points;  ///< one snapshot (MAX_TRACKS)
    std::uint64_t m_pushed{0};                          ///< history snapshots pushed (TrackHistory::recorded)
};

}  // namespace augur::runtime
