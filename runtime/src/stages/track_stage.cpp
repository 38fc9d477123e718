#include "augur/runtime/stages/track_stage.hpp"

#include <algorithm>
#include <cmath>

namespace augur::runtime {

namespace kf = kernels::kf;

namespace {
constexpr float NS_PER_S = 1e9F;
constexpr float INITIAL_ACCEL_VAR_M2PS4 = 4.0F;  ///< (2 m/s²)²: a newborn's acceleration is unknown
}  // namespace

Result<std::unique_ptr<TrackStage>, kf::TrackTableError> TrackStage::create(const TrackStageSettings& settings,
                                                                           PipelineState& state, SceneFrame& frame,
                                                                           TrackHistory& history) {
    auto table = kf::TrackTable::create({settings.capacity, settings.maxMissedCycles});
    if (!table) {
        return fail(table.error());
    }
    return Result<std::unique_ptr<TrackStage>, kf::TrackTableError>(
        std::unique_ptr<TrackStage>(new TrackStage(settings, std::move(table).value(), state, frame, history)));
}

TrackStage::TrackStage(const TrackStageSettings& settings, kf::TrackTable table, PipelineState& state, SceneFrame& frame,
                       TrackHistory& history)
    : m_settings(settings),
      m_table(std::move(table)),
      m_state(state),
      m_frame(frame),
      m_history(history),
      m_dim(kf::stateDim(settings.model)) {
    const std::size_t n = settings.capacity;
    m_mean.assign(static_cast<std::size_t>(m_dim) * n, 0.0F);
    m_cov.assign(static_cast<std::size_t>(kf::packedSize(m_dim)) * n, 0.0F);
    m_dt.assign(n, 0.0F);
    m_z.assign(kf::MEAS_DIM * n, 0.0F);
    m_var.assign(kf::MEAS_DIM * n, 1.0F);
    m_zVel.assign(kf::MEAS_DIM * n, 0.0F);
    m_velCov.assign(3 * n, 1.0F);
    m_measured.assign(n, 0);
    m_deleted.assign(n, 0);
    m_lastStamp_ns.assign(n, 0);
    m_hits.assign(n, 0);
    m_age.assign(n, 0);
    m_class.assign(n, ObjectClass::Unknown);
    m_measurement.assign(n, TrackMeasurement{});
}

void TrackStage::track(const ObjectList& list) noexcept {
    const std::size_t n = m_settings.capacity;
    const kf::BankState<float> bank{m_mean.data(), m_cov.data(), n, n};
    std::fill(m_measured.begin(), m_measured.end(), std::uint8_t{0});
    m_table.beginCycle();
    for (std::uint32_t i = 0; i < list.objectCount; ++i) {
        const PerceivedObject& o = list.objects[i];
        const kf::Sighting sighting = m_table.observe(o.id);
        if (sighting.slot == kf::TrackTable::NO_SLOT) {
            continue;  // table full: counted by the table (overflows())
        }
        const std::uint32_t t = sighting.slot;
        if (sighting.born) {
            const float speedVar = o.stdSpeed_mps * o.stdSpeed_mps + 1.0F;
            kf::cpu::initializeTarget<float>(m_settings.model, bank, t, o.x_m, o.y_m, o.stdX_m * o.stdX_m, speedVar,
                                             INITIAL_ACCEL_VAR_M2PS4);
            m_mean[2 * n + t] = o.speed_mps * std::cos(o.heading_rad);
            m_mean[3 * n + t] = o.speed_mps * std::sin(o.heading_rad);
            m_lastStamp_ns[t] = list.header.stamp_ns;
            m_hits[t] = 0;
            m_age[t] = 0;
        }
        m_measured[t] = 1;
        m_z[t] = o.x_m;
        m_z[n + t] = o.y_m;
        m_var[t] = o.stdX_m * o.stdX_m;
        m_var[n + t] = o.stdY_m * o.stdY_m;
        // Speed and heading are measurements too (paper 003: all measured quantities update the filter):
        // the velocity they give, with its covariance to first order.
        m_zVel[t] = o.speed_mps * std::cos(o.heading_rad);
        m_zVel[n + t] = o.speed_mps * std::sin(o.heading_rad);
        kf::polarVelocityCovariance(o.speed_mps, o.heading_rad, o.stdSpeed_mps, o.stdHeading_rad, m_velCov[t],
                                    m_velCov[n + t], m_velCov[2 * n + t]);
        ++m_hits[t];
        m_class[t] = o.objectClass;
        m_measurement[t] = TrackMeasurement{o.heading_rad, o.speed_mps, o.length_m, o.width_m, o.stdX_m,
                                            o.stdY_m, o.stdHeading_rad, o.stdSpeed_mps, list.header.stamp_ns};
    }
    // Every live track is predicted to this list's time; free slots stand still.
    for (std::uint32_t t = 0; t < n; ++t) {
        if (m_table.isLive(t)) {
            m_dt[t] = static_cast<float>(std::max<std::int64_t>(list.header.stamp_ns - m_lastStamp_ns[t], 0)) / NS_PER_S;
            m_lastStamp_ns[t] = list.header.stamp_ns;
            ++m_age[t];
        } else {
            m_dt[t] = 0.0F;
        }
    }
    const kf::CycleInput<float> input{m_dt.data(),   m_z.data(),      m_var.data(),     m_measured.data(),
                                      nullptr,       m_zVel.data(),   m_velCov.data(),  m_measured.data()};
    kf::cpu::step<float>(kf::ModelParams<float>{m_settings.model, m_settings.noiseDensity}, bank, input);
    (void)m_table.endCycle(m_deleted);
}

std::uint32_t TrackStage::dropNonFiniteTracks() noexcept {
    const std::size_t n = m_settings.capacity;
    const auto packed = static_cast<std::size_t>(kf::packedSize(m_dim));
    std::uint32_t dropped = 0;
    for (std::uint32_t t = 0; t < n; ++t) {
        if (!m_table.isLive(t)) {
            continue;
        }
        bool finite = true;
        for (std::size_t i = 0; i < static_cast<std::size_t>(m_dim); ++i) {
            finite = finite && std::isfinite(m_mean[i * n + t]);
        }
        for (std::size_t i = 0; i < packed; ++i) {
            finite = finite && std::isfinite(m_cov[i * n + t]);
        }
        if (!finite) {
            m_table.remove(t);
            ++dropped;
        }
    }
    return dropped;
}

void TrackStage::writeTrackList() noexcept {
    const std::size_t n = m_settings.capacity;
    TrackList& out = m_state.tracks;
    std::uint32_t count = 0;
    for (std::uint32_t t = 0; t < n && count < MAX_TRACKS; ++t) {
        if (!m_table.isLive(t) || m_hits[t] < m_settings.confirmAfterHits) {
            continue;
        }
        Track& track = out.tracks[count];
        track = Track{};
        track.id = m_table.idOf(t);
        track.objectClass = m_class[t];
        track.missedCycles = static_cast<std::uint16_t>(std::min<std::uint32_t>(m_table.missedCycles(t), 0xFFFFU));
        track.ageCycles = m_age[t];
        track.x_m = m_mean[t];
        track.y_m = m_mean[n + t];
        track.vx_mps = m_mean[2 * n + t];
        track.vy_mps = m_mean[3 * n + t];
        if (m_dim == kf::stateDim(kf::MotionModel::ConstantAcceleration)) {
            track.ax_mps2 = m_mean[4 * n + t];
            track.ay_mps2 = m_mean[5 * n + t];
        }
        track.covXX_m2 = m_cov[static_cast<std::size_t>(kf::packedIndex(m_dim, 0, 0)) * n + t];
        track.covXY_m2 = m_cov[static_cast<std::size_t>(kf::packedIndex(m_dim, 0, 1)) * n + t];
        track.covYY_m2 = m_cov[static_cast<std::size_t>(kf::packedIndex(m_dim, 1, 1)) * n + t];
        track.covVxVx_m2ps2 = m_cov[static_cast<std::size_t>(kf::packedIndex(m_dim, 2, 2)) * n + t];
        track.covVyVy_m2ps2 = m_cov[static_cast<std::size_t>(kf::packedIndex(m_dim, 3, 3)) * n + t];
        TrackMeasurement& measurement = m_frame.measurements[count];
        measurement = m_measurement[t];
        // Speed and acceleration along the measured heading, with their variances (cᵀ P c, c = (cos, sin)).
        const float c = std::cos(measurement.heading_rad);
        const float s = std::sin(measurement.heading_rad);
        const auto along = [&](int i) {
            const auto at = [&](int a, int b) {
                return m_cov[static_cast<std::size_t>(kf::packedIndex(m_dim, a, b)) * n + t];
            };
            return c * c * at(i, i) + 2.0F * c * s * at(i, i + 1) + s * s * at(i + 1, i + 1);
        };
        measurement.trackSpeedStd_mps = std::sqrt(std::max(along(2), 0.0F));
        if (m_dim == kf::stateDim(kf::MotionModel::ConstantAcceleration)) {
            measurement.trackAccel_mps2 = c * track.ax_mps2 + s * track.ay_mps2;
            measurement.trackAccelStd_mps2 = std::sqrt(std::max(along(4), 0.0F));
        } else {
            measurement.trackAccel_mps2 = 0.0F;
            measurement.trackAccelStd_mps2 = 0.0F;
        }
        ++count;
    }
    out.trackCount = count;
}

StageStatus TrackStage::run(CycleContext& context) noexcept {
    if (m_state.inputCount == 0) {
        // No valid new input: the tracks stay at the last list's time; the prediction's sourceStamp says how old.
        m_history.record(m_state.tracks);
        return StageStatus::Skipped;
    }
    for (std::uint32_t i = 0; i < m_state.inputCount; ++i) {
        track(m_state.inputs[i]);
        m_frame.sourceStamp_ns = m_state.inputs[i].header.stamp_ns;
    }
    // The input gate keeps absurd values out, so this is defence in depth: a track the filter could
    // not keep finite is deleted (its id starts a new track) and never reaches a later stage.
    if (const std::uint32_t dropped = dropNonFiniteTracks(); dropped > 0) {
        m_state.counters.nonFiniteDropped += dropped;
        context.faults |= bit(HealthFault::NonFiniteOutput);
    }
    m_frame.tracksValid = true;
    writeTrackList();
    m_history.record(m_state.tracks);
    return StageStatus::Ok;
}

}  // namespace augur::runtime
