// Platoons: every n-th cycle (the executor's schedule), the maximal flocks f(δ, μ, ε) of seeds/002 over
// the last δ cycles of track positions (TrackHistory) — groups of at least μ road users that stayed
// within a disk of radius ε for δ cycles — published as a PlatoonList on its own channel.
//
// Entities are the track ids seen in the window, numbered in ascending id order (deterministic); a
// track missing from a snapshot is absent at that step. CPU backend of kernels/flock with one worker.
// Run phase: noexcept, allocation-free (FlockFinder::find); a failed loan is counted.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "augur/kernels/flock/flock_finder.hpp"
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
    /// Reserves the finder, its output list and the trajectory buffers. Init phase.
    [[nodiscard]] static Result<std::unique_ptr<PlatoonStage>, kernels::flock::FlockFailure> create(
        const PlatoonStageSettings& settings, const TrackHistory& history, platform::Publisher<PlatoonList>& publisher,
        PipelineState& state);

    StageStatus run(CycleContext& context) noexcept override;

    /// The list built by the last run (also published).
    [[nodiscard]] const PlatoonList& last() const noexcept { return *m_list; }

private:
    PlatoonStage(const PlatoonStageSettings& settings, kernels::flock::FlockFinder finder, const TrackHistory& history,
                 platform::Publisher<PlatoonList>& publisher, PipelineState& state);
    /// The distinct track ids of the window into m_ids, ascending; when there are more than m_ids holds,
    /// those seen most recently (ties: the lower id). O(m log m) for the m entries of the window, in place.
    std::uint32_t collectEntities() noexcept;

    PlatoonStageSettings m_settings;
    kernels::flock::FlockFinder m_finder;
    kernels::flock::FlockList m_flocks;
    const TrackHistory& m_history;
    platform::Publisher<PlatoonList>& m_publisher;
    PipelineState& m_state;
    std::unique_ptr<PlatoonList> m_list;
    std::vector<std::uint32_t> m_ids;  ///< entity → track id (ascending)
    /// Every (track id, age in cycles) of the window: δ · MAX_TRACKS, the scratch of collectEntities().
    std::vector<std::pair<std::uint32_t, std::uint32_t>> m_sightings;
    std::vector<double> m_x;
    std::vector<double> m_y;
    std::vector<std::uint8_t> m_present;
};

}  // namespace augur::runtime
