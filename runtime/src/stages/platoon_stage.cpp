#include "augur/runtime/stages/platoon_stage.hpp"

#include <algorithm>
#include <cstring>

namespace augur::runtime {

namespace flock = kernels::flock;

namespace {
/// Distinct track ids within one window: every snapshot holds ≤ MAX_TRACKS, ids churn slowly.
constexpr std::size_t MAX_WINDOW_ENTITIES = 2 * MAX_TRACKS;
constexpr std::size_t MAX_FLOCKS = 4 * MAX_PLATOONS;  ///< found before truncation to the message
}  // namespace

Result<std::unique_ptr<PlatoonStage>, flock::FlockFailure> PlatoonStage::create(const PlatoonStageSettings& settings,
                                                                               const TrackHistory& history,
                                                                               platform::Publisher<PlatoonList>& publisher,
                                                                               PipelineState& state) {
    const flock::FlockParams params{static_cast<int>(settings.minMembers), static_cast<int>(settings.windowCycles),
                                    settings.radius_m};
    flock::FlockCapacities capacities{};
    capacities.maxEntities = static_cast<int>(MAX_WINDOW_ENTITIES);
    capacities.maxBatchSteps = static_cast<int>(std::max<std::uint32_t>(settings.windowCycles, 1));
    capacities.gridCellsPerStep = 1024;
    capacities.maxDisksPerStep = 1 << 14;
    capacities.maxCandidateMembersPerStep = 1 << 16;
    capacities.maxFamilySetsPerBatch = 1 << 14;
    capacities.maxFamilyMembersPerBatch = 1 << 18;
    capacities.maxWorkSets = 1 << 12;
    capacities.maxWorkMembers = 1 << 16;
    capacities.maxFlocksPerBatch = 1 << 12;
    capacities.maxFlockMembersPerBatch = 1 << 16;
    capacities.workerThreads = 1;
    auto finder = flock::FlockFinder::create(params, capacities, kernels::Backend::Cpu);
    if (!finder) {
        return fail(finder.error());
    }
    std::unique_ptr<PlatoonStage> stage(
        new PlatoonStage(settings, std::move(finder).value(), history, publisher, state));
    stage->m_flocks = flock::FlockList::create(MAX_FLOCKS, MAX_FLOCKS * MAX_WINDOW_ENTITIES);
    stage->m_list = std::make_unique<PlatoonList>();
    stage->m_ids.assign(MAX_WINDOW_ENTITIES, 0);
    stage->m_sightings.assign(static_cast<std::size_t>(settings.windowCycles) * MAX_TRACKS, {0U, 0U});
    const std::size_t samples = MAX_WINDOW_ENTITIES * settings.windowCycles;
    stage->m_x.assign(samples, 0.0);
    stage->m_y.assign(samples, 0.0);
    stage->m_present.assign(samples, 0);
    return Result<std::unique_ptr<PlatoonStage>, flock::FlockFailure>(std::move(stage));
}

PlatoonStage::PlatoonStage(const PlatoonStageSettings& settings, flock::FlockFinder finder, const TrackHistory& history,
                           platform::Publisher<PlatoonList>& publisher, PipelineState& state)
    : m_settings(settings), m_finder(std::move(finder)), m_history(history), m_publisher(publisher), m_state(state) {}

std::uint32_t PlatoonStage::collectEntities() noexcept {
    // Every sighting of the window sorted by (id, age): the first of each id is its most recent one.
    std::size_t sightings = 0;
    for (std::uint32_t age = 0; age < m_settings.windowCycles; ++age) {
        std::uint32_t n = 0;
        const TrackHistory::Entry* entries = m_history.snapshot(age, n);
        for (std::uint32_t i = 0; i < n; ++i) {
            m_sightings[sightings++] = {entries[i].id, age};
        }
    }
    const auto begin = m_sightings.begin();
    auto end = begin + static_cast<std::ptrdiff_t>(sightings);
    std::sort(begin, end);
    end = std::unique(begin, end, [](const auto& a, const auto& b) { return a.first == b.first; });
    auto distinct = static_cast<std::size_t>(end - begin);
    if (distinct > m_ids.size()) {
        // More distinct ids than the window holds: the most recently seen are kept, the rest left out.
        const auto byRecency = [](const auto& a, const auto& b) { return a.second < b.second || (a.second == b.second && a.first < b.first); };
        std::nth_element(begin, begin + static_cast<std::ptrdiff_t>(m_ids.size()), end, byRecency);
        distinct = m_ids.size();
        std::sort(begin, begin + static_cast<std::ptrdiff_t>(distinct));
    }
    for (std::size_t i = 0; i < distinct; ++i) {
        m_ids[i] = m_sightings[i].first;
    }
    return static_cast<std::uint32_t>(distinct);
}

StageStatus PlatoonStage::run(CycleContext& context) noexcept {
    PlatoonList& list = *m_list;
    list.header = MessageHeader{MESSAGE_SCHEMA_VERSION, 0, context.cycle, context.start_ns};
    list.windowCycles = m_settings.windowCycles;
    list.platoonCount = 0;
    list.truncated = 0;
    list.stale = 0;
    StageStatus status = StageStatus::Ok;
    if (m_history.size() >= m_settings.windowCycles) {
        const std::uint32_t entities = collectEntities();
        const std::uint32_t steps = m_settings.windowCycles;
        std::fill(m_present.begin(), m_present.begin() + static_cast<std::ptrdiff_t>(entities * steps), std::uint8_t{0});
        for (std::uint32_t step = 0; step < steps; ++step) {
            std::uint32_t n = 0;
            const TrackHistory::Entry* entries = m_history.snapshot(steps - 1 - step, n);  // oldest first
            for (std::uint32_t i = 0; i < n; ++i) {
                const auto end = m_ids.begin() + entities;
                const auto at = std::lower_bound(m_ids.begin(), end, entries[i].id);
                if (at == end || *at != entries[i].id) {
                    continue;
                }
                const std::size_t k = static_cast<std::size_t>(step) * entities + static_cast<std::size_t>(at - m_ids.begin());
                m_x[k] = entries[i].x_m;
                m_y[k] = entries[i].y_m;
                m_present[k] = 1;
            }
        }
        const flock::TrajectoryView view{m_x.data(), m_y.data(), m_present.data(), static_cast<int>(entities),
                                         static_cast<int>(steps)};
        auto found = m_finder.find(view, m_flocks, nullptr);
        if (!found) {
            status = StageStatus::Failed;
        } else {
            for (const flock::Flock& f : m_flocks.flocks()) {
                if (list.platoonCount == MAX_PLATOONS) {
                    ++list.truncated;
                    continue;
                }
                Platoon& p = list.platoons[list.platoonCount++];
                p = Platoon{};
                const auto members = m_flocks.members(f);
                const std::size_t kept = std::min(members.size(), MAX_PLATOON_MEMBERS);
                list.truncated += members.size() > kept ? 1U : 0U;
                for (std::size_t i = 0; i < kept; ++i) {
                    p.memberTrackIds[i] = m_ids[static_cast<std::size_t>(members[i])];  // ids ascend with entity index
                }
                p.memberCount = static_cast<std::uint32_t>(kept);
            }
        }
    }
    auto loan = m_publisher.loan();
    if (!loan) {
        ++m_state.counters.loanFailures;
        return StageStatus::Failed;
    }
    std::memcpy(loan->get(), &list, sizeof(PlatoonList));
    loan->publish();
    return status;
}

}  // namespace augur::runtime
