#include "augur/runtime/stages/platoon_stage.hpp"

#include <algorithm>
#include <cstring>

namespace augur::runtime {

namespace flock = kernels::flock;

namespace {
constexpr std::size_t MAX_FLOCKS = 4 * MAX_PLATOONS;  ///< found before truncation to the message
}  // namespace

Result<std::unique_ptr<PlatoonStage>, flock::FlockFailure> PlatoonStage::create(const PlatoonStageSettings& settings,
                                                                               const TrackHistory& history,
                                                                               platform::Publisher<PlatoonList>& publisher,
                                                                               PipelineState& state) {
    const flock::FlockParams params{static_cast<int>(settings.minMembers), static_cast<int>(settings.windowCycles),
                                    settings.radius_m};
    flock::FlockStreamCapacities capacities{};
    capacities.maxPointsPerStep = static_cast<int>(MAX_TRACKS);
    auto stream = flock::FlockStream::create(params, capacities);
    if (!stream) {
        return fail(stream.error());
    }
    std::unique_ptr<PlatoonStage> stage(
        new PlatoonStage(settings, std::move(stream).value(), history, publisher, state));
    stage->m_flocks = flock::FlockList::create(MAX_FLOCKS, MAX_FLOCKS * MAX_TRACKS);
    stage->m_list = std::make_unique<PlatoonList>();
    stage->m_points.resize(MAX_TRACKS);
    return Result<std::unique_ptr<PlatoonStage>, flock::FlockFailure>(std::move(stage));
}

PlatoonStage::PlatoonStage(const PlatoonStageSettings& settings, flock::FlockStream stream, const TrackHistory& history,
                           platform::Publisher<PlatoonList>& publisher, PipelineState& state)
    : m_settings(settings), m_stream(std::move(stream)), m_history(history), m_publisher(publisher), m_state(state) {}

bool PlatoonStage::catchUp() noexcept {
    const std::uint64_t recorded = m_history.recorded();
    const auto fresh = static_cast<std::uint32_t>(
        std::min<std::uint64_t>({recorded - m_pushed, m_history.size(), m_settings.windowCycles}));
    m_pushed = recorded;
    for (std::uint32_t age = fresh; age-- > 0;) {
        std::uint32_t n = 0;
        const TrackHistory::Entry* entries = m_history.snapshot(age, n);
        for (std::uint32_t i = 0; i < n; ++i) {
            m_points[i] = flock::StreamPoint{entries[i].id, entries[i].x_m, entries[i].y_m};
        }
        if (!m_stream.push({m_points.data(), n})) {
            m_pushed = 0;  // the stream is empty: the next run pushes the last δ snapshots again
            return false;
        }
    }
    return true;
}

bool PlatoonStage::report() noexcept {
    PlatoonList& list = *m_list;
    if (!m_stream.find(m_flocks)) {
        return false;
    }
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
            p.memberTrackIds[i] = m_stream.key(members[i]);  // ranks ascend with the id
        }
        p.memberCount = static_cast<std::uint32_t>(kept);
    }
    return true;
}

StageStatus PlatoonStage::run(CycleContext& context) noexcept {
    PlatoonList& list = *m_list;
    list.header = MessageHeader{MESSAGE_SCHEMA_VERSION, 0, context.cycle, context.start_ns};
    list.windowCycles = m_settings.windowCycles;
    list.platoonCount = 0;
    list.truncated = 0;
    list.stale = 0;
    const bool ok = catchUp() && report();
    auto loan = m_publisher.loan();
    if (!loan) {
        ++m_state.counters.loanFailures;
        return StageStatus::Failed;
    }
    std::memcpy(loan->get(), &list, sizeof(PlatoonList));
    loan->publish();
    return ok ? StageStatus::Ok : StageStatus::Failed;
}

}  // namespace augur::runtime
