#include "augur/runtime/stages/track_stage.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace augur::runtime {

namespace kf = kernels::kf;

namespace {
constexpr float NS_PER_S = 1e9F;
constexpr float INITIAL_ACCEL_VAR_M2PS4 = 4.0F;  ///< (2 m/s²)²: a newborn's acceleration is unknown
constexpr std::uint32_t MAX_CONFIRM_WINDOW = 64;  ///< bits of the hit window
}  // namespace

Result<std::unique_ptr<TrackStage>, kf::AssociationError> TrackStage::create(const TrackStageSettings& settings,
                                                                              PipelineState& state, SceneFrame& frame,
                                                                              TrackHistory& history) {
    if (settings.capacity > MAX_TRACKS) {
        return fail(kf::AssociationError::CapacityTooLarge);
    }
    auto associator = kf::Associator::create(
        {MAX_OBJECTS, settings.capacity, settings.gateMahalanobisSq, settings.gateDistance_m, settings.idBonus});
    if (!associator) {
        return fail(associator.error());
    }
    constexpr float MAX_GATE_SQ = 1000.0F;
    auto rescue = kf::Associator::create({MAX_OBJECTS, settings.capacity,
                                          std::min(RESCUE_GATE_FACTOR * settings.gateMahalanobisSq, MAX_GATE_SQ),
                                          settings.gateDistance_m, settings.idBonus});
    if (!rescue) {
        return fail(rescue.error());
    }
    return Result<std::unique_ptr<TrackStage>, kf::AssociationError>(std::unique_ptr<TrackStage>(new TrackStage(
        settings, std::move(associator).value(), std::move(rescue).value(), state, frame, history)));
}

TrackStage::TrackStage(const TrackStageSettings& settings, kf::Associator associator, kf::Associator rescue,
                       PipelineState& state, SceneFrame& frame, TrackHistory& history)
    : m_settings(settings),
      m_associator(std::move(associator)),
      m_rescue(std::move(rescue)),
      m_state(state),
      m_frame(frame),
      m_history(history),
      m_dim(kf::stateDim(settings.model)) {
    const std::size_t n = settings.capacity;
    m_settings.confirmWindow = std::min<std::uint32_t>(settings.confirmWindow, MAX_CONFIRM_WINDOW);
    m_mean.assign(static_cast<std::size_t>(m_dim) * n, 0.0F);
    m_cov.assign(static_cast<std::size_t>(kf::packedSize(m_dim)) * n, 0.0F);
    m_dt.assign(n, 0.0F);
    m_z.assign(kf::MEAS_DIM * n, 0.0F);
    m_var.assign(kf::MEAS_DIM * n, 1.0F);
    m_zVel.assign(kf::MEAS_DIM * n, 0.0F);
    m_velCov.assign(3 * n, 1.0F);
    m_measured.assign(n, 0);
    m_noMeasurement.assign(n, 0);
    m_update.assign(n, 0);
    m_objX.assign(MAX_OBJECTS, 0.0F);
    m_objY.assign(MAX_OBJECTS, 0.0F);
    m_objVarX.assign(MAX_OBJECTS, 1.0F);
    m_objVarY.assign(MAX_OBJECTS, 1.0F);
    m_objId.assign(MAX_OBJECTS, 0);
    m_objectToTrack.assign(MAX_OBJECTS, kf::Associator::NO_TRACK);
    m_gated.assign(MAX_OBJECTS, 0);
    m_restIndex.assign(MAX_OBJECTS, 0);
    m_restX.assign(MAX_OBJECTS, 0.0F);
    m_restY.assign(MAX_OBJECTS, 0.0F);
    m_restVarX.assign(MAX_OBJECTS, 1.0F);
    m_restVarY.assign(MAX_OBJECTS, 1.0F);
    m_restId.assign(MAX_OBJECTS, 0);
    m_restToTrack.assign(MAX_OBJECTS, kf::Associator::NO_TRACK);
    m_restGated.assign(MAX_OBJECTS, 0);
    m_restLive.assign(n, 0);
    m_live.assign(n, 0);
    m_confirmed.assign(n, 0);
    m_trackId.assign(n, 0);
    m_perceptionId.assign(n, 0);
    m_hitWindow.assign(n, 0);
    m_missed.assign(n, 0);
    m_freeSlots.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        m_freeSlots[i] = static_cast<std::uint32_t>(n - 1 - i);  // slots fill 0, 1, 2, …
    }
    m_freeCount = static_cast<std::uint32_t>(n);
    m_lastStamp_ns.assign(n, 0);
    m_hits.assign(n, 0);
    m_age.assign(n, 0);
    m_class.assign(n, ObjectClass::Unknown);
    m_measurement.assign(n, TrackMeasurement{});
    m_speedRate.assign(n, kf::SpeedRateState{});
}

std::uint32_t TrackStage::allocateSlot() noexcept {
    if (m_freeCount == 0) {
        return NO_SLOT;
    }
    const std::uint32_t t = m_freeSlots[--m_freeCount];
    m_live[t] = 1;
    m_confirmed[t] = 0;
    m_trackId[t] = m_nextTrackId;
    m_nextTrackId = m_nextTrackId == 0xFFFF'FFFFU ? 1U : m_nextTrackId + 1U;  // 0 is never an id
    m_hitWindow[t] = 0;
    m_missed[t] = 0;
    m_hits[t] = 0;
    m_age[t] = 1;
    ++m_liveCount;
    return t;
}

void TrackStage::removeTrack(std::uint32_t slot) noexcept {
    if (slot >= m_live.size() || m_live[slot] == 0) {
        return;
    }
    m_live[slot] = 0;
    m_confirmed[slot] = 0;
    m_freeSlots[m_freeCount++] = slot;
    --m_liveCount;
}

void TrackStage::setMeasurement(std::uint32_t t, const PerceivedObject& o, std::int64_t stamp_ns) noexcept {
    const std::size_t n = m_settings.capacity;
    m_measured[t] = 1;
    m_update[t] = 1;
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
    m_perceptionId[t] = o.id;
    m_class[t] = o.objectClass;
    m_measurement[t] = TrackMeasurement{o.heading_rad, o.speed_mps, o.length_m, o.width_m, o.stdX_m,
                                        o.stdY_m, o.stdHeading_rad, o.stdSpeed_mps, stamp_ns};
}

void TrackStage::track(const ObjectList& list) noexcept {
    const std::size_t n = m_settings.capacity;
    const kf::BankState<float> bank{m_mean.data(), m_cov.data(), n, n};
    const kf::ModelParams<float> params{m_settings.model, m_settings.noiseDensity};
    const std::int64_t stamp_ns = list.header.stamp_ns;

    // 1. Predict every live track to this list's time; free slots stand still.
    for (std::uint32_t t = 0; t < n; ++t) {
        m_measured[t] = 0;
        m_update[t] = 0;
        if (m_live[t] != 0) {
            m_dt[t] = static_cast<float>(std::max<std::int64_t>(stamp_ns - m_lastStamp_ns[t], 0)) / NS_PER_S;
            m_lastStamp_ns[t] = stamp_ns;
            ++m_age[t];
            kf::predictSpeedRate(m_speedRate[t], m_dt[t], m_settings.noiseDensity);
        } else {
            m_dt[t] = 0.0F;
        }
    }
    kf::cpu::step<float>(params, bank, kf::CycleInput<float>{m_dt.data(), m_z.data(), m_var.data(), m_noMeasurement.data()});

    // 2. Associate the list's objects with the predicted tracks.
    const std::uint32_t objects = std::min<std::uint32_t>(list.objectCount, static_cast<std::uint32_t>(MAX_OBJECTS));
    for (std::uint32_t j = 0; j < objects; ++j) {
        const PerceivedObject& o = list.objects[j];
        m_objX[j] = o.x_m;
        m_objY[j] = o.y_m;
        m_objVarX[j] = o.stdX_m * o.stdX_m;
        m_objVarY[j] = o.stdY_m * o.stdY_m;
        m_objId[j] = o.id;
    }
    const auto cov = [&](int a, int b) { return &m_cov[static_cast<std::size_t>(kf::packedIndex(m_dim, a, b)) * n]; };
    const kf::PredictedTracks predicted{&m_mean[0], &m_mean[n], cov(0, 0), cov(0, 1), cov(1, 1),
                                        m_live.data(), m_perceptionId.data(), n};
    const kf::Detections detections{m_objX.data(), m_objY.data(), m_objVarX.data(), m_objVarY.data(), m_objId.data(),
                                    objects};
    const kf::AssociationStats stats = m_associator.associate(predicted, detections, m_objectToTrack, m_gated);
    m_objectsOffered += objects;
    m_objectsContested += stats.contestedObjects;
    rescueLeftovers(objects);

    // 3. Measurements of associated tracks; births from objects outside every gate.
    for (std::uint32_t j = 0; j < objects; ++j) {
        const PerceivedObject& o = list.objects[j];
        std::uint32_t t = m_objectToTrack[j];
        if (t == kf::Associator::NO_TRACK) {
            if (nearAnyTrack(j)) {
                ++m_duplicatesSuppressed;
                continue;
            }
            startTrack(o, bank, stamp_ns);
            continue;
        }
        setMeasurement(t, o, stamp_ns);
    }

    // 4. Update (time step 0: the prediction is done).
    std::fill(m_dt.begin(), m_dt.end(), 0.0F);
    const kf::CycleInput<float> input{m_dt.data(),   m_z.data(),      m_var.data(),     m_update.data(),
                                      nullptr,       m_zVel.data(),   m_velCov.data(),  m_update.data()};
    kf::cpu::step<float>(params, bank, input);
    for (std::uint32_t t = 0; t < n; ++t) {
        if (m_update[t] != 0) {
            const TrackMeasurement& measured = m_measurement[t];
            kf::updateSpeedRate(m_speedRate[t], measured.speed_mps, measured.stdSpeed_mps * measured.stdSpeed_mps);
        }
    }
    manageTracks();
    mergeDuplicates();
}

void TrackStage::startTrack(const PerceivedObject& o, const kf::BankState<float>& bank, std::int64_t stamp_ns) noexcept {
    const std::size_t n = m_settings.capacity;
    const std::uint32_t t = allocateSlot();
    if (t == NO_SLOT) {
        ++m_overflows;
        return;
    }
    const float speedVar = o.stdSpeed_mps * o.stdSpeed_mps + 1.0F;
    kf::cpu::initializeTarget<float>(m_settings.model, bank, t, o.x_m, o.y_m, o.stdX_m * o.stdX_m, speedVar,
                                     INITIAL_ACCEL_VAR_M2PS4);
    m_mean[2 * n + t] = o.speed_mps * std::cos(o.heading_rad);
    m_mean[3 * n + t] = o.speed_mps * std::sin(o.heading_rad);
    m_speedRate[t] = kf::initialSpeedRate(o.speed_mps, speedVar, INITIAL_ACCEL_VAR_M2PS4);
    m_lastStamp_ns[t] = stamp_ns;
    setMeasurement(t, o, stamp_ns);
    m_update[t] = 0;  // initialised from this object: updating with it again would count it twice
}

void TrackStage::rescueLeftovers(std::uint32_t objects) noexcept {
    const std::size_t n = m_settings.capacity;
    std::uint32_t rest = 0;
    for (std::uint32_t j = 0; j < objects; ++j) {
        if (m_objectToTrack[j] != kf::Associator::NO_TRACK) {
            continue;
        }
        m_restIndex[rest] = j;
        m_restX[rest] = m_objX[j];
        m_restY[rest] = m_objY[j];
        m_restVarX[rest] = m_objVarX[j];
        m_restVarY[rest] = m_objVarY[j];
        m_restId[rest] = m_objId[j];
        ++rest;
    }
    if (rest == 0) {
        return;
    }
    std::uint32_t unmeasured = 0;
    for (std::uint32_t t = 0; t < n; ++t) {
        m_restLive[t] = m_confirmed[t];  // a tentative track earns confirmation inside the plain gate
    }
    for (std::uint32_t j = 0; j < objects; ++j) {
        if (m_objectToTrack[j] != kf::Associator::NO_TRACK) {
            m_restLive[m_objectToTrack[j]] = 0;
        }
    }
    for (std::uint32_t t = 0; t < n; ++t) {
        unmeasured += m_restLive[t];
    }
    if (unmeasured == 0) {
        return;
    }
    const auto cov = [&](int a, int b) { return &m_cov[static_cast<std::size_t>(kf::packedIndex(m_dim, a, b)) * n]; };
    const kf::PredictedTracks predicted{&m_mean[0], &m_mean[n], cov(0, 0), cov(0, 1), cov(1, 1),
                                        m_restLive.data(), m_perceptionId.data(), n};
    const kf::Detections detections{m_restX.data(), m_restY.data(), m_restVarX.data(), m_restVarY.data(),
                                    m_restId.data(), rest};
    (void)m_rescue.associate(predicted, detections, m_restToTrack, m_restGated);
    for (std::uint32_t r = 0; r < rest; ++r) {
        if (m_restToTrack[r] != kf::Associator::NO_TRACK) {
            m_objectToTrack[m_restIndex[r]] = m_restToTrack[r];
        }
    }
}

bool TrackStage::nearAnyTrack(std::uint32_t j) const noexcept {
    const std::size_t n = m_settings.capacity;
    const kf::AssociationConfig& wide = m_rescue.config();
    const auto at = [&](int a, int b, std::uint32_t t) {
        return m_cov[static_cast<std::size_t>(kf::packedIndex(m_dim, a, b)) * n + t];
    };
    for (std::uint32_t t = 0; t < n; ++t) {
        if (m_live[t] == 0) {
            continue;
        }
        const float dx = m_objX[j] - m_mean[t];
        const float dy = m_objY[j] - m_mean[n + t];
        if (!(dx * dx + dy * dy <= wide.distanceGate_m * wide.distanceGate_m)) {
            continue;
        }
        const float d2 = kf::Associator::mahalanobisSq(dx, dy, at(0, 0, t) + m_objVarX[j], at(0, 1, t),
                                                       at(1, 1, t) + m_objVarY[j]);
        if (d2 <= wide.mahalanobisGateSq) {
            return true;
        }
    }
    return false;
}

void TrackStage::manageTracks() noexcept {
    const std::size_t n = m_settings.capacity;
    const std::uint32_t window = m_settings.confirmWindow;
    const std::uint64_t windowMask = window >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << window) - 1U;
    for (std::uint32_t t = 0; t < n; ++t) {
        if (m_live[t] == 0) {
            continue;
        }
        const bool hit = m_measured[t] != 0;
        m_hitWindow[t] = (m_hitWindow[t] << 1U) | (hit ? 1U : 0U);
        if (hit) {
            ++m_hits[t];
            m_missed[t] = 0;
        } else {
            ++m_missed[t];
        }
        if (m_confirmed[t] == 0) {
            const std::uint32_t recentHits =
                window == 0 ? m_hits[t] : static_cast<std::uint32_t>(std::popcount(m_hitWindow[t] & windowMask));
            m_confirmed[t] = recentHits >= m_settings.confirmAfterHits ? 1 : 0;
        }
        // A track coasts on the evidence it has: at most as many lists as it was associated in, at most
        // maxMissedCycles. A track born of two chance reports (clutter) ends soon after them; one followed
        // for seconds coasts through an occlusion.
        const bool expired = m_missed[t] > std::min(m_settings.maxMissedCycles, m_hits[t]);
        const bool neverConfirmed = m_confirmed[t] == 0 && window != 0 && m_age[t] >= window;
        if (expired || neverConfirmed) {
            removeTrack(t);
        }
    }
}

bool TrackStage::footprintsOverlap(std::uint32_t a, std::uint32_t b) const noexcept {
    // Boxes of the last measured length and width, both taken along a's heading (the merge also asks for
    // velocities within MERGE_SPEED_MPS, so the headings of moving tracks agree).
    const std::size_t n = m_settings.capacity;
    const TrackMeasurement& ma = m_measurement[a];
    const TrackMeasurement& mb = m_measurement[b];
    const float dx = m_mean[b] - m_mean[a];
    const float dy = m_mean[n + b] - m_mean[n + a];
    const float c = std::cos(ma.heading_rad);
    const float s = std::sin(ma.heading_rad);
    const float along = std::fabs(c * dx + s * dy);
    const float across = std::fabs(-s * dx + c * dy);
    return along < 0.5F * (ma.length_m + mb.length_m) && across < 0.5F * (ma.width_m + mb.width_m);
}

void TrackStage::takeOverState(std::uint32_t keep, std::uint32_t from) noexcept {
    const std::size_t n = m_settings.capacity;
    for (std::size_t i = 0; i < static_cast<std::size_t>(m_dim); ++i) {
        m_mean[i * n + keep] = m_mean[i * n + from];
    }
    const auto packed = static_cast<std::size_t>(kf::packedSize(m_dim));
    for (std::size_t i = 0; i < packed; ++i) {
        m_cov[i * n + keep] = m_cov[i * n + from];
    }
    m_lastStamp_ns[keep] = m_lastStamp_ns[from];
    m_perceptionId[keep] = m_perceptionId[from];
    m_class[keep] = m_class[from];
    m_measurement[keep] = m_measurement[from];
    // The kept track was associated in this list after all (through the other): a hit, not a miss.
    m_measured[keep] = 1;
    m_hitWindow[keep] |= 1U;
    if (m_missed[keep] > 0) {
        ++m_hits[keep];
    }
    m_missed[keep] = 0;
}

void TrackStage::mergeDuplicates() noexcept {
    const std::size_t n = m_settings.capacity;
    const auto at = [&](int a, int b, std::uint32_t t) {
        return m_cov[static_cast<std::size_t>(kf::packedIndex(m_dim, a, b)) * n + t];
    };
    for (std::uint32_t a = 0; a < n; ++a) {
        for (std::uint32_t b = a + 1; b < n && m_live[a] != 0; ++b) {
            if (m_live[b] == 0) {
                continue;
            }
            const float dvx = m_mean[2 * n + b] - m_mean[2 * n + a];
            const float dvy = m_mean[3 * n + b] - m_mean[3 * n + a];
            if (!(dvx * dvx + dvy * dvy <= MERGE_SPEED_MPS * MERGE_SPEED_MPS)) {
                continue;
            }
            const float dx = m_mean[b] - m_mean[a];
            const float dy = m_mean[n + b] - m_mean[n + a];
            const float d2 = kf::Associator::mahalanobisSq(dx, dy, at(0, 0, a) + at(0, 0, b), at(0, 1, a) + at(0, 1, b),
                                                           at(1, 1, a) + at(1, 1, b));
            // One road user, two tracks: their estimates agree, or one followed this list's object while
            // the other coasted inside its footprint (two road users do not overlap). The second is what a
            // jump of the detections leaves: a track born where the objects now are, beside the old one
            // whose covariance is too small for the estimates to agree.
            const bool oneCoasted = m_measured[a] != m_measured[b];
            if (!(d2 <= MERGE_GATE_SQ) && !(oneCoasted && footprintsOverlap(a, b))) {
                continue;
            }
            // Keep the confirmed one, then the older one (ties: the lower slot); if it coasted, it goes on
            // from the state of the one that followed the object.
            const bool keepA = m_confirmed[a] != m_confirmed[b] ? m_confirmed[a] != 0 : m_age[a] >= m_age[b];
            const std::uint32_t keep = keepA ? a : b;
            const std::uint32_t drop = keepA ? b : a;
            if (m_measured[keep] == 0 && m_measured[drop] != 0) {
                takeOverState(keep, drop);
            }
            removeTrack(drop);
            ++m_tracksMerged;
        }
    }
}

std::uint32_t TrackStage::dropNonFiniteTracks() noexcept {
    const std::size_t n = m_settings.capacity;
    const auto packed = static_cast<std::size_t>(kf::packedSize(m_dim));
    std::uint32_t dropped = 0;
    for (std::uint32_t t = 0; t < n; ++t) {
        if (m_live[t] == 0) {
            continue;
        }
        bool finite = true;
        for (std::size_t i = 0; i < static_cast<std::size_t>(m_dim); ++i) {
            finite = finite && std::isfinite(m_mean[i * n + t]);
        }
        for (std::size_t i = 0; i < packed; ++i) {
            finite = finite && std::isfinite(m_cov[i * n + t]);
        }
        const kf::SpeedRateState& speedRate = m_speedRate[t];
        finite = finite && std::isfinite(speedRate.speed_mps) && std::isfinite(speedRate.rate_mps2) &&
                 std::isfinite(speedRate.varSpeed_m2ps2) && std::isfinite(speedRate.covSpeedRate_m2ps3) &&
                 std::isfinite(speedRate.varRate_m2ps4);
        if (!finite) {
            removeTrack(t);
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
        if (m_live[t] == 0 || m_confirmed[t] == 0) {
            continue;
        }
        Track& track = out.tracks[count];
        track = Track{};
        track.id = m_trackId[t];
        track.perceptionId = m_perceptionId[t];
        track.objectClass = m_class[t];
        track.missedCycles = static_cast<std::uint16_t>(std::min<std::uint32_t>(m_missed[t], 0xFFFFU));
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
        // The speed's deviation along the measured heading (cᵀ P c, c = (cos, sin)).
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
            // The rate of change of the speed, not the bank's acceleration along the heading: that one
            // holds part of the centripetal acceleration of a turn (kf/speed_rate_filter.hpp).
            measurement.trackAccel_mps2 = m_speedRate[t].rate_mps2;
            measurement.trackAccelStd_mps2 = std::sqrt(std::max(m_speedRate[t].varRate_m2ps4, 0.0F));
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
    // not keep finite is deleted (its next object starts a new track) and never reaches a later stage.
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
