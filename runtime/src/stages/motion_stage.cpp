#include "augur/runtime/stages/motion_stage.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../../../kernels/src/worker_pool.hpp"
#include "augur/runtime/stages/relations_stage.hpp"
#include "augur/platform/clock.hpp"
#include "motion_gpu.hpp"

namespace augur::runtime {

namespace markov = kernels::markov;

namespace {
/// Corridors below this intention probability are not propagated (their mass goes to the others).
constexpr float MIN_CORRIDOR_PROBABILITY = 0.01F;
/// Below this speed estimate, and with a tracked acceleration below STARTING_ACCEL_MPS2, a vehicle is
/// predicted from standstill (the bench's own class boundary for standing road users is the same speed).
constexpr float STANDING_SPEED_MPS = 0.5F;
constexpr float STARTING_ACCEL_MPS2 = 0.5F;
/// A track faster than this many times the limit gives its driver no wish to go faster still.
constexpr float MAX_DESIRED_SPEED_FACTOR = 1.5F;
}  // namespace

Result<std::unique_ptr<MotionStage>, markov::MarkovError> MotionStage::create(const MotionStageSettings& settings,
                                                                             PipelineState& state, SceneFrame& frame) {
    auto valid = markov::validate(settings.chain, settings.prediction);
    if (!valid) {
        return fail(valid.error());
    }
    auto chain = markov::MarkovChain::build(settings.chain);
    if (!chain) {
        return fail(chain.error());
    }
    std::unique_ptr<MotionStage> stage(new MotionStage(settings, std::move(chain).value(), state, frame));
    // The CPU sizing's chains: each a coarser discretisation of the chain before it (deployment → the CPU's
    // full chain → the coarse one).
    const auto coarser = [&settings](const markov::ChainConfig& fine,
                                     const markov::ChainConfig& coarse) -> Result<markov::MarkovChain, markov::MarkovError> {
        const bool sameModel = coarse.positionMax_m == fine.positionMax_m && coarse.speedMax_mps == fine.speedMax_mps &&
                               coarse.inputCells == fine.inputCells && coarse.accelMax_mps2 == fine.accelMax_mps2 &&
                               coarse.step_s == fine.step_s && coarse.samplesPerAxis == fine.samplesPerAxis &&
                               coarse.intervalSamples == fine.intervalSamples;
        if (!sameModel || coarse.positionCells > fine.positionCells || coarse.speedCells > fine.speedCells) {
            return fail(markov::MarkovError::InvalidGrid);  // not a coarser discretisation of the same chain
        }
        auto coarseValid = markov::validate(coarse, settings.prediction);
        if (!coarseValid) {
            return fail(coarseValid.error());
        }
        return markov::MarkovChain::build(coarse);
    };
    const markov::ChainConfig& cpuFull = settings.cpuFullChain ? *settings.cpuFullChain : settings.chain;
    if (settings.cpuFullChain) {
        auto built = coarser(settings.chain, cpuFull);
        if (!built) {
            return fail(built.error());
        }
        stage->m_cpuFullChain.emplace(std::move(built).value());
    }
    if (settings.cpuChain) {
        auto built = coarser(cpuFull, *settings.cpuChain);
        if (!built) {
            return fail(built.error());
        }
        stage->m_coarseChain.emplace(std::move(built).value());
    }
    const auto& p = settings.prediction;
    const auto corridors = static_cast<std::size_t>(p.maxCorridors);
    const auto steps = static_cast<std::size_t>(p.horizonSteps);
    stage->m_corridors.assign(corridors, markov::CorridorInput{});
    stage->m_corridorVehicle.assign(corridors, 0);
    stage->m_corridorSlot.assign(corridors, 0);
    stage->m_polyX.assign(corridors * static_cast<std::size_t>(p.maxPolylinePoints), 0.0F);
    stage->m_polyY.assign(stage->m_polyX.size(), 0.0F);
    stage->m_polyS.assign(stage->m_polyX.size(), 0.0F);
    stage->m_positionMarginal.assign(corridors * steps * static_cast<std::size_t>(settings.chain.positionCells), 0.0F);
    stage->m_speedMarginal.assign(corridors * steps * static_cast<std::size_t>(settings.chain.speedCells), 0.0F);
    stage->m_points.assign(corridors * steps, CorridorPoint{});
    stage->m_chunkConfig = p;
    stage->m_chunkConfig.maxCorridors = std::min(p.maxCorridors, MOTION_CHUNK_CORRIDORS);
    const int workers = std::max(1, settings.cpuWorkers);
    const auto gridCells = static_cast<std::size_t>(p.gridFrames) * static_cast<std::size_t>(p.gridWidthCells) *
                           static_cast<std::size_t>(p.gridHeightCells);
    stage->m_workers.resize(static_cast<std::size_t>(workers));
    // The CPU's chains have no more cells than the deployment's: its scratch fits them all.
    const std::size_t predictBytes = markov::cpu::predictScratchBytes(settings.chain, stage->m_chunkConfig);
    for (WorkerScratch& w : stage->m_workers) {
        w.predict.assign(predictBytes + 16, std::byte{0});
        w.chunkGrid.assign(gridCells, 0);
        w.gridSum.assign(gridCells, 0);
    }
    stage->m_pool = std::make_unique<kernels::detail::WorkerPool>(workers);
    const float tau = settings.chain.step_s;
    stage->m_psi = markov::relaxingInputDynamics(settings.chain.inputCells, std::min(1.0F, tau / settings.cruiseHold_s),
                                                 std::min(1.0F, tau / settings.pedalHold_s),
                                                 std::min(1.0F, settings.surpriseRate_hz * tau));
    return Result<std::unique_ptr<MotionStage>, markov::MarkovError>(std::move(stage));
}

MotionStage::MotionStage(const MotionStageSettings& settings, markov::MarkovChain chain, PipelineState& state,
                         SceneFrame& frame)
    : m_settings(settings), m_chain(std::move(chain)), m_state(state), m_frame(frame) {}

MotionStage::~MotionStage() = default;

namespace {
/// 16-byte aligned start of a scratch vector (cpu::predict's requirement).
void* aligned16(std::vector<std::byte>& bytes) noexcept {
    const auto address = reinterpret_cast<std::uintptr_t>(bytes.data());
    return bytes.data() + ((16U - address % 16U) % 16U);
}
}  // namespace

void MotionStage::propagateChunks(int worker) noexcept {
    const markov::PredictionConfig& pc = m_settings.prediction;
    WorkerScratch& w = m_workers[static_cast<std::size_t>(worker)];
    std::fill(w.gridSum.begin(), w.gridSum.end(), 0U);
    const auto steps = static_cast<std::size_t>(pc.horizonSteps);
    const auto points = static_cast<std::size_t>(pc.maxPolylinePoints);
    const auto ns = static_cast<std::size_t>(m_settings.chain.positionCells);
    const auto nv = static_cast<std::size_t>(m_settings.chain.speedCells);
    const std::size_t frameCells = static_cast<std::size_t>(pc.gridWidthCells) * static_cast<std::size_t>(pc.gridHeightCells);
    // Two groups of chunks, none straddling them: [0, m_fullCorridorCount) with the full chain, the rest
    // with the coarse one.
    const int fullChunks = (m_fullCorridorCount + MOTION_CHUNK_CORRIDORS - 1) / MOTION_CHUNK_CORRIDORS;
    const int coarseChunks = (m_corridorCount - m_fullCorridorCount + MOTION_CHUNK_CORRIDORS - 1) / MOTION_CHUNK_CORRIDORS;
    const int chunks = fullChunks + coarseChunks;
    for (int chunk = m_nextChunk.fetch_add(1, std::memory_order_relaxed); chunk < chunks;
         chunk = m_nextChunk.fetch_add(1, std::memory_order_relaxed)) {
        const bool coarse = chunk >= fullChunks;
        const int first = coarse ? m_fullCorridorCount + (chunk - fullChunks) * MOTION_CHUNK_CORRIDORS
                                 : chunk * MOTION_CHUNK_CORRIDORS;
        const int end = coarse ? m_corridorCount : m_fullCorridorCount;
        const int count = std::min(MOTION_CHUNK_CORRIDORS, end - first);
        const markov::MarkovChain& chain = coarse ? *m_coarseChain : *m_fullChainUsed;
        const auto c0 = static_cast<std::size_t>(first);
        const markov::PredictionOutputs outputs{&m_positionMarginal[c0 * steps * ns], &m_speedMarginal[c0 * steps * nv],
                                                &m_points[c0 * steps], w.chunkGrid.data(), frameCells};
        markov::cpu::predict(chain, m_chunkConfig, m_psi, &m_corridors[c0], count,
                             markov::Polylines{&m_polyX[c0 * points], &m_polyY[c0 * points], &m_polyS[c0 * points]},
                             m_placement, outputs, aligned16(w.predict), w.predict.size() - 16);
        for (std::size_t i = 0; i < w.gridSum.size(); ++i) {
            w.gridSum[i] += w.chunkGrid[i];  // integers: the sum does not depend on which worker took the chunk
        }
    }
}

void MotionStage::writeConstantVelocity(VehiclePrediction& out, const Track& track) const noexcept {
    const int steps = m_settings.prediction.horizonSteps;
    const float dt = m_settings.chain.step_s;
    const float speed = std::hypot(track.vx_mps, track.vy_mps);
    const float speedStd = std::sqrt(std::max(track.covVxVx_m2ps2 + track.covVyVy_m2ps2, 0.0F));
    const float positionStd = std::sqrt(std::max(track.covXX_m2 + track.covYY_m2, 0.0F));
    out.trackId = track.id;
    out.corridorCount = 1;
    CorridorPrediction& c = out.corridors[0];
    c.corridorId = 0;
    c.probability = 1.0F;
    for (int k = 0; k < steps; ++k) {
        const float t = dt * static_cast<float>(k + 1);
        CorridorPoint& p = c.points[k];
        p.sMean_m = speed * t;
        p.sStd_m = positionStd + speedStd * t;
        p.x_m = track.x_m + track.vx_mps * t;
        p.y_m = track.y_m + track.vy_mps * t;
    }
}

void MotionStage::predictConstantVelocity() noexcept {
    MotionPrediction& out = m_state.prediction;
    const TrackList& tracks = m_state.tracks;
    std::uint32_t count = 0;
    for (std::uint32_t i = 0; i < tracks.trackCount && count < m_settings.maxVehicles; ++i) {
        if (isPredictedClass(tracks.tracks[i].objectClass)) {
            writeConstantVelocity(out.vehicles[count++], tracks.tracks[i]);
        }
    }
    out.vehicleCount = count;
    out.grid.frameCount = 0;
}

Result<void, std::string> MotionStage::enableGpu() {
    auto gpu = detail::MotionGpu::create(m_chain, m_settings.prediction, m_psi, m_settings.gpuZeroCopy);
    if (!gpu) {
        return fail(gpu.error());
    }
    m_gpu = std::move(gpu).value();
    m_gpuFailed = false;
    return {};
}

bool MotionStage::onGpu() const noexcept { return m_gpu != nullptr && !m_gpuFailed; }

std::uint64_t MotionStage::graphReplays() const noexcept { return m_gpu != nullptr ? m_gpu->replays() : 0U; }

bool MotionStage::propagateGpu(int corridorCount) noexcept {
    const markov::PredictionConfig& pc = m_settings.prediction;
    const auto count = static_cast<std::size_t>(corridorCount);
    const auto line = static_cast<std::size_t>(pc.maxPolylinePoints);
    std::memcpy(m_gpu->corridors(), m_corridors.data(), count * sizeof(markov::CorridorInput));
    // The graph was captured with the grid origin at 0: the centrelines go relative to this cycle's origin.
    float* x = m_gpu->polyX();
    float* y = m_gpu->polyY();
    for (std::size_t i = 0; i < count * line; ++i) {
        x[i] = m_polyX[i] - m_placement.originX_m;
        y[i] = m_polyY[i] - m_placement.originY_m;
    }
    std::memcpy(m_gpu->polyS(), m_polyS.data(), count * line * sizeof(float));
    if (m_injectGpuError.exchange(false, std::memory_order_relaxed)) {
        return false;
    }
    const std::int64_t launched_ns = platform::monotonicNow_ns();
    if (!m_gpu->launch(corridorCount)) {
        return false;
    }
    const auto done = m_gpu->wait(m_settings.gpuPoll_ns, m_settings.gpuTimeout_ns);
    if (!done || !done.value()) {
        return false;
    }
    m_lastGpuSpan = GpuSpan{launched_ns, platform::monotonicNow_ns()};
    const auto steps = static_cast<std::size_t>(pc.horizonSteps);
    const CorridorPoint* points = m_gpu->points();
    for (std::size_t i = 0; i < count * steps; ++i) {
        m_points[i] = points[i];
        m_points[i].x_m += m_placement.originX_m;
        m_points[i].y_m += m_placement.originY_m;
    }
    const std::size_t frameCells = static_cast<std::size_t>(pc.gridWidthCells) * static_cast<std::size_t>(pc.gridHeightCells);
    for (int f = 0; f < pc.gridFrames; ++f) {
        std::memcpy(m_state.prediction.grid.cells[f], m_gpu->grid() + static_cast<std::size_t>(f) * frameCells,
                    frameCells * sizeof(std::uint16_t));
    }
    return true;
}

void MotionStage::rankByDistanceToEgo() noexcept {
    const std::uint32_t count = m_frame.vehicleCount;
    for (std::uint32_t v = 0; v < count; ++v) {
        const FrameVehicle& fv = m_frame.vehicles[v];
        const float dx = fv.x_m - m_ego.x_m;
        const float dy = fv.y_m - m_ego.y_m;
        m_distanceSq[v] = dx * dx + dy * dy;
        m_byDistance[v] = v;
        m_fullChain[v] = false;
    }
    const std::uint32_t nearest = std::min(count, m_settings.cpuFullChainVehicles);
    // O(n log n) in the vehicles, in place (no allocation); ties to the lower frame index.
    std::partial_sort(m_byDistance.begin(), m_byDistance.begin() + nearest, m_byDistance.begin() + count,
                      [this](std::uint32_t a, std::uint32_t b) {
                          return m_distanceSq[a] < m_distanceSq[b] || (m_distanceSq[a] == m_distanceSq[b] && a < b);
                      });
    for (std::uint32_t i = 0; i < nearest; ++i) {
        m_fullChain[m_byDistance[i]] = true;
    }
}

int MotionStage::gatherCorridors(bool cpuSizing) noexcept {
    int corridorCount = 0;
    m_coarseVehicles = 0;
    m_fullChainUsed = cpuSizing && m_cpuFullChain ? &*m_cpuFullChain : &m_chain;
    const markov::ChainConfig& full = m_fullChainUsed->config();
    if (!cpuSizing || !m_coarseChain) {
        for (std::uint32_t v = 0; v < m_frame.vehicleCount; ++v) {
            gatherVehicle(v, full, corridorCount);
        }
        m_fullCorridorCount = corridorCount;
        return corridorCount;
    }
    rankByDistanceToEgo();
    for (std::uint32_t v = 0; v < m_frame.vehicleCount; ++v) {
        if (m_fullChain[v]) {
            gatherVehicle(v, full, corridorCount);
        }
    }
    m_fullCorridorCount = corridorCount;
    for (std::uint32_t v = 0; v < m_frame.vehicleCount; ++v) {
        if (!m_fullChain[v]) {
            const int before = corridorCount;
            gatherVehicle(v, m_coarseChain->config(), corridorCount);
            m_coarseVehicles += corridorCount > before ? 1U : 0U;
        }
    }
    return corridorCount;
}

void MotionStage::gatherVehicle(std::uint32_t v, const markov::ChainConfig& chain, int& corridorCount) noexcept {
    const markov::PredictionConfig& pc = m_settings.prediction;
    const auto pointsPerCorridor = static_cast<std::size_t>(pc.maxPolylinePoints);
    // The vehicle at the centre of the first position cell: its mass is spread uniformly over the cell,
    // so s = 0 at the cell's near edge would put the vehicle half a cell ahead of itself.
    const float halfCell_m = 0.5F * markov::positionCellSize_m(chain);
    const FrameVehicle& fv = m_frame.vehicles[v];
    const TrackMeasurement& m = m_frame.measurements[fv.trackIndex];
    float inputs[markov::MAX_INPUT_CELLS];
    // A standing vehicle whose track does not say it is starting stays put: it starts in the
    // standstill cell at the cruise input. Spreading its speed estimate instead (never below 0, so
    // biased upwards by the track's noise) would put mass on a moving speed cell: creep.
    const bool standing = fv.speed_mps < STANDING_SPEED_MPS && m.trackAccel_mps2 < STARTING_ACCEL_MPS2;
    // The evidence in the tracked acceleration (markov::evidentAcceleration) split over the two nearest
    // inputs (its mean kept; its uncertainty is not spread further: symmetric input noise, cut by the speed
    // bounds and the limit, biases the mean speed).
    const float evident = standing ? 0.0F : markov::evidentAcceleration(m.trackAccel_mps2, m.trackAccelStd_mps2);
    markov::inputDistribution(m_settings.chain, evident, 0.0F, inputs);
    // Corridors the intention filter all but rules out are not propagated (each costs a whole
    // horizon of the chain); the kept ones share their probability mass.
    float kept = 0.0F;
    for (std::uint32_t k = 0; k < fv.corridorCount; ++k) {
        kept += fv.corridorProbability[k] >= MIN_CORRIDOR_PROBABILITY ? fv.corridorProbability[k] : 0.0F;
    }
    for (std::uint32_t k = 0; k < fv.corridorCount && corridorCount < pc.maxCorridors; ++k) {
        if (fv.corridorProbability[k] < MIN_CORRIDOR_PROBABILITY || !(kept > 0.0F)) {
            continue;
        }
        const FrameCorridor& fc = fv.corridors[k];
        markov::CorridorInput& in = m_corridors[static_cast<std::size_t>(corridorCount)];
        in = markov::CorridorInput{};
        in.probability = fv.corridorProbability[k] / kept;
        in.initialSpeed_mps = standing ? 0.0F : std::min(fv.speed_mps, m_settings.chain.speedMax_mps);
        in.initialSpeedStd_mps = standing ? 0.0F : m.trackSpeedStd_mps;
        std::copy(inputs, inputs + m_settings.chain.inputCells, in.initialInput);
        in.constraints = fc.limits;
        in.constraints.standing = standing;
        in.constraints.startSpeed_mps = fv.speed_mps;
        // The driver's chosen fraction of the limit that binds where the vehicle is (the free-road rule's
        // desired speed is this fraction of the limit ahead): the limit here, or lower when a slower
        // stretch ahead (a turn) already holds the vehicle down. A driver who is still speeding up has not
        // reached the speed they want: at least the limit.
        const float limit = markov::bindingLimit_mps(fc.limits, pc.rules.comfortDecel_mps2);
        const float fraction = evident > 0.0F ? std::max(fv.speed_mps / limit, 1.0F) : fv.speed_mps / limit;
        in.constraints.desiredSpeedFactor =
            limit > 0.0F && limit < markov::NO_LIMIT ? std::min(fraction, MAX_DESIRED_SPEED_FACTOR) : 1.0F;
        in.constraints.stopProbability = fc.road.mustGiveWay != 0 ? fv.stopProbability : 0.0F;
        in.constraints.stopDistance_m += halfCell_m;  // NO_LIMIT stays NO_LIMIT
        in.constraints.leadGap_m += halfCell_m;
        for (float& from : in.constraints.limitFrom_m) {
            from += halfCell_m;
        }
        in.constraints.leadDecel_mps2 = pc.rules.comfortDecel_mps2;
        const auto points = std::min<std::size_t>(static_cast<std::size_t>(fc.polylinePoints), pointsPerCorridor);
        in.polylinePoints = static_cast<std::int32_t>(points);
        const std::size_t from = polylineOffset(v, k);
        const std::size_t to = static_cast<std::size_t>(corridorCount) * pointsPerCorridor;
        std::memcpy(&m_polyX[to], &m_frame.polyX_m[from], points * sizeof(float));
        std::memcpy(&m_polyY[to], &m_frame.polyY_m[from], points * sizeof(float));
        for (std::size_t i = 0; i < points; ++i) {
            m_polyS[to + i] = m_frame.polyS_m[from + i] + halfCell_m;
        }
        m_corridorVehicle[static_cast<std::size_t>(corridorCount)] = v;
        m_corridorSlot[static_cast<std::size_t>(corridorCount)] = k;
        ++corridorCount;
    }
}

float MotionStage::halfCellOf(int corridor) const noexcept {
    const markov::ChainConfig& chain = corridor < m_fullCorridorCount ? m_fullChainUsed->config() : m_coarseChain->config();
    return 0.5F * markov::positionCellSize_m(chain);
}

bool MotionStage::predictMarkov() noexcept {
    const markov::PredictionConfig& pc = m_settings.prediction;
    const int corridorCount = gatherCorridors(!onGpu());  // the CPU sizing applies wherever the CPU propagates
    const float width_m = static_cast<float>(pc.gridWidthCells) * pc.gridResolution_m;
    const float height_m = static_cast<float>(pc.gridHeightCells) * pc.gridResolution_m;
    m_placement = markov::GridPlacement{m_ego.x_m - 0.5F * width_m, m_ego.y_m - 0.5F * height_m};
    if (onGpu()) {
        if (!propagateGpu(corridorCount)) {
            m_gpuFailed = true;  // from now on the CPU propagates, with the CPU sizing
            ++m_gpuErrors;
            ++m_state.counters.gpuErrors;
            return false;
        }
    } else {
        propagateCpu(corridorCount);
    }
    writeMarkovOutputs(corridorCount);
    return true;
}

void MotionStage::propagateCpu(int corridorCount) noexcept {
    const markov::PredictionConfig& pc = m_settings.prediction;
    MotionPrediction& out = m_state.prediction;
    m_corridorCount = corridorCount;
    m_nextChunk.store(0, std::memory_order_relaxed);
    m_pool->run([](void* self, int worker) noexcept { static_cast<MotionStage*>(self)->propagateChunks(worker); },
                this);
    const std::size_t frameCells = static_cast<std::size_t>(pc.gridWidthCells) * static_cast<std::size_t>(pc.gridHeightCells);
    for (int f = 0; f < pc.gridFrames; ++f) {
        std::uint16_t* frameOut = out.grid.cells[f];
        for (std::size_t i = 0; i < frameCells; ++i) {
            std::uint32_t sum = 0;
            for (const WorkerScratch& w : m_workers) {
                sum += w.gridSum[static_cast<std::size_t>(f) * frameCells + i];
            }
            frameOut[i] = static_cast<std::uint16_t>(std::min<std::uint32_t>(sum, 65535U));
        }
    }
}

void MotionStage::writeMarkovOutputs(int corridorCount) noexcept {
    const markov::PredictionConfig& pc = m_settings.prediction;
    MotionPrediction& out = m_state.prediction;
    const markov::GridPlacement& placement = m_placement;
    // Vehicles in frame order; those off the map (no corridor) get the constant-velocity extrapolation.
    const auto steps = static_cast<std::size_t>(pc.horizonSteps);
    for (std::uint32_t v = 0; v < m_frame.vehicleCount; ++v) {
        const FrameVehicle& fv = m_frame.vehicles[v];
        VehiclePrediction& vp = out.vehicles[v];
        if (fv.corridorCount == 0) {
            writeConstantVelocity(vp, m_state.tracks.tracks[fv.trackIndex]);
            continue;
        }
        vp.trackId = fv.trackId;
        vp.corridorCount = 0;
    }
    for (int c = 0; c < corridorCount; ++c) {
        const std::uint32_t v = m_corridorVehicle[static_cast<std::size_t>(c)];
        const std::uint32_t k = m_corridorSlot[static_cast<std::size_t>(c)];
        VehiclePrediction& vp = out.vehicles[v];
        CorridorPrediction& cp = vp.corridors[vp.corridorCount++];  // predicted corridors, in corridor order
        cp.corridorId = m_frame.vehicles[v].corridors[k].id;
        cp.probability = m_corridors[static_cast<std::size_t>(c)].probability;
        std::memcpy(cp.points, &m_points[static_cast<std::size_t>(c) * steps], steps * sizeof(CorridorPoint));
        const float halfCell_m = halfCellOf(c);
        for (std::size_t t = 0; t < steps; ++t) {
            cp.points[t].sMean_m -= halfCell_m;  // from the vehicle (gatherCorridors)
        }
    }
    out.vehicleCount = m_frame.vehicleCount;
    out.grid.originX_m = placement.originX_m;
    out.grid.originY_m = placement.originY_m;
    out.grid.resolution_m = pc.gridResolution_m;
    out.grid.frameInterval_s = m_settings.gridFrameInterval_s;
    out.grid.widthCells = static_cast<std::uint32_t>(pc.gridWidthCells);
    out.grid.heightCells = static_cast<std::uint32_t>(pc.gridHeightCells);
    out.grid.frameCount = m_settings.gridEnabled ? static_cast<std::uint32_t>(pc.gridFrames) : 0U;
}

StageStatus MotionStage::run(CycleContext& context) noexcept {
    if (m_state.inputCount > 0) {
        m_ego = m_state.inputs[m_state.inputCount - 1].ego;
    }
    MotionPrediction& out = m_state.prediction;
    out.step_s = m_settings.chain.step_s;
    out.horizonSteps = static_cast<std::uint32_t>(m_settings.prediction.horizonSteps);
    out.sourceStamp_ns = m_frame.sourceStamp_ns;
    if (context.mode >= RuntimeMode::HoldLast) {
        return StageStatus::Skipped;  // Publish republishes the last prediction or says there is none
    }
    if (context.mode == RuntimeMode::ConstantVelocity) {
        predictConstantVelocity();
    } else if (!predictMarkov()) {
        predictConstantVelocity();  // this cycle's output; the next ones propagate on the CPU
        return StageStatus::GpuError;
    }
    return StageStatus::Ok;
}

}  // namespace augur::runtime
