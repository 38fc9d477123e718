#include "augur/runtime/stages/intention_stage.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <thread>

#include "augur/kernels/markov/prediction.hpp"
#include "augur/platform/clock.hpp"
#include "intention_gpu.hpp"
#include "../../../kernels/src/worker_pool.hpp"

namespace augur::runtime {

namespace pf = kernels::pf;
using Model = pf::SceneModel;

namespace {

constexpr float OFF_MAP_SPEED_LIMIT_MPS = 13.9F;
/// The longest step the filters take: after a longer gap in the input (a lost sensor) they start over
/// from the measurements, as after a restart.
constexpr std::int64_t MAX_STEP_NS = 1'000'000'000;
constexpr float MIN_STEP_S = 1e-3F;  ///< lists stamped closer together step by this much

/// The speed the go intention tends to on a lane limited to `limit_mps`: the driver's own speed, as the
/// motion prediction's free-road rule takes it (drivers keep their chosen speed; one held below the
/// limit is not pulled up to it); a driver evidently speeding up (markov::evidentAcceleration) heads for
/// the limit. The limit itself as every driver's aim made a vehicle cruising below it a misfit: its
/// particles ran ahead of the measurements, and on a straight multi-lane road the corridor of a lane
/// change, whose heading turns part of that surplus sideways, took the weight of the one it kept.
float goSpeed(float speed_mps, bool speedingUp, float limit_mps) noexcept {
    return speedingUp ? std::max(speed_mps, limit_mps) : std::max(speed_mps, 0.0F);
}

/// The input of an unused slot: far away, never measured, one straight corridor.
pf::SceneVehicleInput idleInput() noexcept {
    pf::SceneVehicleInput in{};
    in.present = 0;
    in.corridorCount = 1;
    in.corridors[0] = pf::SceneCorridor{};
    return in;
}

}  // namespace

Result<std::unique_ptr<IntentionStage>, pf::FilterError> IntentionStage::create(const IntentionStageSettings& settings,
                                                                               PipelineState& state, SceneFrame& frame) {
    std::unique_ptr<IntentionStage> stage(new IntentionStage(settings, state, frame));
    const std::uint32_t filters = std::max<std::uint32_t>(1, settings.maxVehicles);  // one per vehicle slot
    for (std::uint32_t f = 0; f < filters; ++f) {
        for (const bool reduced : {false, true}) {
            pf::FilterConfig config = settings.filter;
            config.vehicles = 1;
            config.cpuThreads = 1;  // the stage shares the filters among its workers
            config.particles = reduced ? settings.particlesReduced : settings.particles;
            config.seed = settings.filter.seed + f;  // independent streams per filter, fixed per deployment
            auto filter = Filter::create(config, settings.model);
            if (!filter) {
                return fail(filter.error());
            }
            (reduced ? stage->m_reduced : stage->m_nominal).push_back(std::move(filter).value());
        }
    }
    const unsigned workers = settings.filter.cpuThreads == 0 ? std::max(1U, std::thread::hardware_concurrency())
                                                             : settings.filter.cpuThreads;
    stage->m_pool = std::make_unique<kernels::detail::WorkerPool>(static_cast<int>(std::min(workers, filters)));
    stage->m_slots.assign(filters, Slot{});
    stage->m_inputs.assign(filters, idleInput());
    stage->m_slotOfFrame.assign(MAX_PREDICTED_VEHICLES, -1);
    stage->m_outputs.assign(static_cast<std::size_t>(filters) * pf::outputCount<Model>(1), 0.0F);
    return Result<std::unique_ptr<IntentionStage>, pf::FilterError>(std::move(stage));
}

IntentionStage::IntentionStage(const IntentionStageSettings& settings, PipelineState& state, SceneFrame& frame)
    : m_settings(settings), m_state(state), m_frame(frame) {}

IntentionStage::~IntentionStage() = default;

Result<void, std::string> IntentionStage::enableGpu() {
    const detail::IntentionGpu::Shape shape{static_cast<std::uint32_t>(m_nominal.size()), 1,
                                            m_settings.particles, m_settings.particlesReduced};
    auto gpu = detail::IntentionGpu::create(shape, m_settings.filter, m_settings.model);
    if (!gpu) {
        return fail(gpu.error());
    }
    m_gpu = std::move(gpu).value();
    m_gpuFailed = false;
    m_initialized = false;  // the GPU sets start from the next cycle's inputs
    return {};
}

bool IntentionStage::onGpu() const noexcept { return m_gpu != nullptr && !m_gpuFailed; }

void IntentionStage::fallBackToCpu() noexcept {
    if (onGpu()) {
        m_gpuFailed = true;
        m_initialized = false;
    }
}

std::uint64_t IntentionStage::graphReplays() const noexcept { return m_gpu != nullptr ? m_gpu->replays() : 0U; }

void IntentionStage::assignSlots() noexcept {
    for (Slot& slot : m_slots) {
        slot.seen = false;
        slot.fresh = false;
    }
    const std::uint32_t count = m_frame.vehicleCount;
    // Keep the slots of vehicles already tracked (linear search: ≤ 64 slots).
    for (std::uint32_t v = 0; v < count; ++v) {
        m_slotOfFrame[v] = -1;
        for (std::size_t s = 0; s < m_slots.size(); ++s) {
            if (m_slots[s].occupied && !m_slots[s].seen && m_slots[s].trackId == m_frame.vehicles[v].trackId) {
                m_slots[s].seen = true;
                m_slots[s].frameIndex = v;
                m_slotOfFrame[v] = static_cast<std::int32_t>(s);
                break;
            }
        }
    }
    // Release the slots of vehicles no longer predicted, then seat the newcomers in order.
    for (Slot& slot : m_slots) {
        if (slot.occupied && !slot.seen) {
            slot = Slot{};
        }
    }
    for (std::uint32_t v = 0; v < count; ++v) {
        if (m_slotOfFrame[v] >= 0) {
            continue;
        }
        for (std::size_t s = 0; s < m_slots.size(); ++s) {
            if (!m_slots[s].occupied) {
                m_slots[s] = Slot{true, true, true, m_frame.vehicles[v].trackId, v};
                m_slotOfFrame[v] = static_cast<std::int32_t>(s);
                break;
            }
        }
        if (m_slotOfFrame[v] < 0) {
            ++m_unassigned;
        }
    }
}

bool IntentionStage::keepsItsCorridors(Slot& slot, const FrameVehicle& vehicle, std::span<const float> prior) noexcept {
    const std::uint32_t count =
        std::min<std::uint32_t>(vehicle.corridorCount, static_cast<std::uint32_t>(pf::SceneVehicleInput::MAX_CORRIDORS));
    bool same = count == slot.corridorCount;
    for (std::uint32_t k = 0; k < count && same; ++k) {
        same = continuesRoute(slot.routes[k], slot.routeLanes[k], vehicle.corridors[k].route, vehicle.corridors[k].routeLanes);
    }
    // Two corridors of one group (corridor_groups.hpp) that now start differently.
    std::array<std::uint8_t, pf::SceneVehicleInput::MAX_CORRIDORS> group{};
    groupsOf(vehicle, std::span<std::uint8_t>(group.data(), count));
    slot.passedFork = false;
    for (std::uint32_t k = 0; k < count && same && !slot.passedFork; ++k) {
        for (std::uint32_t j = k + 1; j < count && !slot.passedFork; ++j) {
            slot.passedFork = slot.group[k] == slot.group[j] && group[k] != group[j];
        }
    }
    std::fill(std::begin(slot.carried), std::end(slot.carried), 0.0F);
    if (!same || slot.passedFork) {
        const PreviousCorridors before{slot.corridorCount, slot.routes, slot.routeLanes, slot.published};
        carryOver(before, vehicle, prior.first(count), std::span<float>(slot.carried, count));
    }
    slot.corridorCount = count;
    for (std::uint32_t k = 0; k < count; ++k) {
        slot.routeLanes[k] = vehicle.corridors[k].routeLanes;
        std::copy(vehicle.corridors[k].route, vehicle.corridors[k].route + FRAME_ROUTE_LANES, slot.routes[k]);
        slot.group[k] = group[k];
    }
    return same && !slot.passedFork;
}

void IntentionStage::buildInputs(bool measured, bool restart, float dt_s) noexcept {
    for (std::size_t s = 0; s < m_slots.size(); ++s) {
        const Slot& slot = m_slots[s];
        if (!slot.occupied) {
            m_inputs[s] = idleInput();
            continue;
        }
        const FrameVehicle& v = m_frame.vehicles[slot.frameIndex];
        const TrackMeasurement& m = m_frame.measurements[v.trackIndex];
        std::array<float, MAX_CORRIDORS_PER_VEHICLE> prior{};
        corridorPriors(v, m_settings.laneChangePrior, std::span<float>(prior.data(), v.corridorCount));
        if (!keepsItsCorridors(m_slots[s], v, std::span<const float>(prior.data(), v.corridorCount))) {
            m_slots[s].fresh = true;
        }
        pf::SceneVehicleInput& in = m_inputs[s];
        in = pf::SceneVehicleInput{};
        in.x_m = v.x_m;
        in.y_m = v.y_m;
        in.theta_rad = v.heading_rad;
        in.v_mps = v.speed_mps;
        in.sigmaX_m = std::max(m.stdX_m, 0.05F);
        in.sigmaY_m = std::max(m.stdY_m, 0.05F);
        in.sigmaTheta_rad = std::max(m.stdHeading_rad, 0.01F);
        in.sigmaV_mps = std::max(m.stdSpeed_mps, 0.05F);
        in.dt_s = dt_s;
        // Weighted only when this cycle's list saw the vehicle (a coasting track is a prediction, not a measurement).
        const bool seen = measured && m_state.tracks.tracks[v.trackIndex].missedCycles == 0;
        in.present = seen || slot.fresh ? 1 : 0;
        // A new vehicle, and every vehicle when the filters start over, is drawn from its measurement:
        // stepped from a draw of this very measurement, its particles would move on by a step while the
        // measurement stands still, and the ones that move least (the slowest, those turned away from
        // the road) would take the weight.
        in.redraw = slot.fresh || restart ? 1 : 0;
        const bool speedingUp = kernels::markov::evidentAcceleration(m.trackAccel_mps2, m.trackAccelStd_mps2) > 0.0F;
        const std::uint32_t corridors =
            std::min<std::uint32_t>(v.corridorCount, static_cast<std::uint32_t>(pf::SceneVehicleInput::MAX_CORRIDORS));
        if (corridors == 0) {
            // Off the map: one corridor straight along the measured heading, no stop point.
            in.corridorCount = 1;
            in.corridors[0] = pf::SceneCorridor{v.heading_rad, 0.0F, 1e9F, goSpeed(v.speed_mps, speedingUp, OFF_MAP_SPEED_LIMIT_MPS), 0, -1};
            continue;
        }
        in.corridorCount = static_cast<std::int32_t>(corridors);
        float modelledPrior = 0.0F;
        for (std::uint32_t k = 0; k < corridors; ++k) {
            modelledPrior += prior[k];
        }
        float carried = 0.0F;
        for (std::uint32_t k = 0; k < corridors; ++k) {
            carried += slot.carried[k];
        }
        if (carried > 0.0F) {
            // Where the corridors changed the redraw starts from what the last cycle published, carried
            // onto them: past a fork, the group's split by its prior and the braking evidence, not the
            // filter's impoverished one; elsewhere, what the filter had learnt about the corridors the
            // vehicle is still on.
            std::copy(slot.carried, slot.carried + corridors, prior.begin());
            modelledPrior = carried;
        }
        for (std::uint32_t k = 0; k < corridors; ++k) {
            pf::SceneCorridor c = v.corridors[k].road;
            c.goSpeed_mps = goSpeed(v.speed_mps, speedingUp, c.goSpeed_mps);
            c.giveWayTo = -1;  // the vehicle's filter holds no other vehicle: it yields to nobody in particular
            c.prior = modelledPrior > 0.0F ? prior[k] : 1.0F;
            in.corridors[k] = c;
        }
    }
}

void IntentionStage::readOutputs() noexcept {
    IntentionList& list = m_state.intentions;
    std::uint32_t written = 0;
    for (std::uint32_t v = 0; v < m_frame.vehicleCount; ++v) {
        FrameVehicle& fv = m_frame.vehicles[v];
        const std::int32_t slot = m_slotOfFrame[v];
        IntentionEstimate& e = list.vehicles[written++];
        e = IntentionEstimate{};
        e.trackId = fv.trackId;
        e.corridorCount = fv.corridorCount;
        for (std::uint32_t k = 0; k < fv.corridorCount; ++k) {
            e.corridorIds[k] = fv.corridors[k].id;
        }
        if (slot < 0 || fv.corridorCount == 0) {
            // Not estimated: the relations stage's uniform corridor probabilities stand.
            for (std::uint32_t k = 0; k < fv.corridorCount; ++k) {
                e.corridorProbability[k] = fv.corridorProbability[k];
            }
            continue;
        }
        // Slot s is filter s; the filters' outputs are contiguous.
        const std::span<const float> out(m_outputs);
        const std::size_t base = static_cast<std::size_t>(slot) * Model::OUTPUTS_PER_VEHICLE;
        e.stopProbability = out[base + Model::OUT_P_STOP];
        e.laneChangeProbability = out[base + Model::OUT_P_CHANGE];
        const std::uint32_t modelled =
            std::min<std::uint32_t>(fv.corridorCount, static_cast<std::uint32_t>(pf::SceneVehicleInput::MAX_CORRIDORS));
        float sum = 0.0F;
        for (std::uint32_t k = 0; k < modelled; ++k) {
            sum += out[base + Model::OUT_P_CORRIDOR0 + k];
        }
        for (std::uint32_t k = 0; k < fv.corridorCount; ++k) {
            fv.corridorProbability[k] = k < modelled && sum > 0.0F ? out[base + Model::OUT_P_CORRIDOR0 + k] / sum : 0.0F;
        }
        // The filter separates lanes and lane changes; corridors that coincide up to a fork ahead split
        // by their prior and by how the vehicle slows (corridor_groups.hpp).
        const TrackMeasurement& m = m_frame.measurements[fv.trackIndex];
        std::array<float, MAX_CORRIDORS_PER_VEHICLE> slowing{};
        const std::span<float> likelihood(slowing.data(), fv.corridorCount);
        slowingLikelihoods(fv, SlowingEvidence{fv.speed_mps, m.trackAccel_mps2, m.trackAccelStd_mps2, e.stopProbability},
                           m_settings.slowing, likelihood);
        splitWithinGroups(fv, likelihood, std::span<float>(fv.corridorProbability, fv.corridorCount));
        std::copy(fv.corridorProbability, fv.corridorProbability + modelled,
                  m_slots[static_cast<std::size_t>(slot)].published);
        std::copy(fv.corridorProbability, fv.corridorProbability + fv.corridorCount, e.corridorProbability);
        fv.stopProbability = e.stopProbability;
    }
    list.vehicleCount = written;
}

bool IntentionStage::inputsValid() const noexcept {
    const std::span<const pf::SceneVehicleInput> inputs(m_inputs);
    for (std::size_t slot = 0; slot < inputs.size(); ++slot) {
        if (!pf::validateInputs<Model>(inputs.subspan(slot, 1), 1)) {
            return false;
        }
    }
    return true;
}

bool IntentionStage::stepCpu(bool nominal, bool restart) noexcept {
    std::vector<Filter>& filters = nominal ? m_nominal : m_reduced;
    std::atomic<bool> ok{true};
    auto work = [&](int worker) noexcept {
        const auto share = kernels::detail::shareOf(static_cast<std::int64_t>(filters.size()), worker, m_pool->size());
        for (auto f = static_cast<std::size_t>(share.begin); f < static_cast<std::size_t>(share.end); ++f) {
            const std::span<const pf::SceneVehicleInput> inputs(m_inputs.data() + f, 1);
            if ((restart && !filters[f].initialize(inputs)) || !filters[f].setInputs(inputs)) {
                ok.store(false, std::memory_order_relaxed);
                continue;
            }
            filters[f].step();
            std::copy(filters[f].outputs().begin(), filters[f].outputs().end(),
                      m_outputs.begin() + static_cast<std::ptrdiff_t>(f * Model::OUTPUTS_PER_VEHICLE));
        }
    };
    m_pool->forEach(work);
    return ok.load(std::memory_order_relaxed);
}

bool IntentionStage::stepGpu(bool nominal, bool restart) noexcept {
    if (m_injectGpuError.exchange(false, std::memory_order_relaxed)) {
        return false;
    }
    if (restart) {
        // Drawn from this cycle's inputs, then stepped with them (as the CPU filters): the draw must
        // have read its staging before the step's inputs overwrite it.
        if (!m_gpu->initialize(nominal, m_inputs)) {
            return false;
        }
        const auto drawn = m_gpu->wait(m_settings.gpuPoll_ns, m_settings.gpuTimeout_ns);
        if (!drawn || !drawn.value()) {
            return false;
        }
    }
    m_gpu->stage(nominal, m_inputs);
    const std::int64_t launched_ns = platform::monotonicNow_ns();
    if (!m_gpu->launch(nominal)) {
        return false;
    }
    const auto done = m_gpu->wait(m_settings.gpuPoll_ns, m_settings.gpuTimeout_ns);
    if (!done || !done.value()) {
        return false;
    }
    m_lastGpuSpan = GpuSpan{launched_ns, platform::monotonicNow_ns()};
    m_gpu->copyOutputs(nominal, m_outputs);
    return true;
}

StageStatus IntentionStage::run(CycleContext& context) noexcept {
    if (context.mode >= RuntimeMode::ConstantVelocity) {
        m_state.intentions.vehicleCount = 0;
        return StageStatus::Skipped;
    }
    const bool nominal = context.mode == RuntimeMode::Nominal;
    assignSlots();
    // The filters step by the sensor time since the tracks they last stepped with, not by the cycle
    // period: lists come late, a cycle may have none, and a replay may run slower than real time.
    const std::int64_t elapsed_ns = m_frame.sourceStamp_ns - m_steppedStamp_ns;
    if (m_initialized && nominal == m_nominalActive && elapsed_ns == 0) {
        readOutputs();  // no newer list: the tracks, and so the estimates, are those of the last step
        return StageStatus::Ok;
    }
    const bool restart = !m_initialized || nominal != m_nominalActive || elapsed_ns < 0 || elapsed_ns > MAX_STEP_NS;
    // A restart draws every slot from its measurement; the step's length is then not used.
    const float dt_s = restart ? MIN_STEP_S : std::max(static_cast<float>(elapsed_ns) * 1e-9F, MIN_STEP_S);
    buildInputs(context.hadInput, restart, dt_s);
    if (!inputsValid()) {
        // Nothing is stepped; the filters start over from the next cycle's inputs (a slot that took
        // a new vehicle this cycle would otherwise never be redrawn from its measurement).
        ++m_rejectedCycles;
        m_initialized = false;
        m_state.intentions.vehicleCount = 0;
        return StageStatus::Failed;
    }
    StageStatus status = StageStatus::Ok;
    if (onGpu() && !stepGpu(nominal, restart)) {
        m_gpuFailed = true;  // from now on the CPU filters run, starting over from this cycle's inputs
        ++m_gpuErrors;
        ++m_state.counters.gpuErrors;
        buildInputs(context.hadInput, true, dt_s);
        if (!stepCpu(nominal, true)) {
            return StageStatus::Failed;
        }
        status = StageStatus::GpuError;
    } else if (!onGpu() && !stepCpu(nominal, restart)) {
        return StageStatus::Failed;
    }
    m_initialized = true;
    m_nominalActive = nominal;
    m_steppedStamp_ns = m_frame.sourceStamp_ns;
    readOutputs();
    return status;
}

}  // namespace augur::runtime
