// Speed-rate filter: a one-dimensional constant-acceleration Kalman filter on a road user's speed |v|,
// whose second state is the rate of change of the speed: the longitudinal acceleration, whatever the
// heading does. The 2-D constant-acceleration bank's acceleration projected on the heading is not that
// quantity in a turn: a vehicle holding its speed through a curve accelerates towards the centre
// (v²/R), and the bank, which models a constant acceleration vector, lags the rotating one, so part of it
// shows along the heading. The speed does not rotate: a turn at constant speed is a constant measured
// speed, which this filter's model describes exactly.
//
// State [v, a] (m/s, m/s²), covariance [[P_vv, P_va], [P_va, P_aa]]. Model (Bar-Shalom, Li, Kirubarajan,
// "Estimation with Applications to Tracking and Navigation", §6.2.2, the white-noise acceleration model one
// derivative up): v̇ = a, ȧ = white jerk of spectral density q (m²/s⁵, the same density as the 2-D
// constant-acceleration bank's: kf::ModelParams::noiseDensity), so over dt
//   F = [1 dt; 0 1],  Q = q·[dt³/3 dt²/2; dt²/2 dt].
// Measurement z = v + r, r ~ N(0, R): a perceived speed. Update in Joseph form (as the bank's):
//   S = P_vv + R,  K = (P_vv, P_va)/S,  x ← x + K (z − v),  P ← (I − K H) P (I − K H)ᵀ + K R Kᵀ.
// In steady state at 10 Hz with q = 2 m²/s⁵ and a speed noise of 0.3 m/s the rate's standard deviation is
// about 0.8 m/s² (the Riccati fixed point; tests/kernels/kf/speed_rate_filter_test.cpp).
//
// Host code, header only; every function is noexcept, allocation-free and O(1).
#pragma once

namespace augur::kernels::kf {

/// One road user's speed and speed rate with their covariance.
struct SpeedRateState {
    float speed_mps{0.0F};
    float rate_mps2{0.0F};
    float varSpeed_m2ps2{1.0F};
    float covSpeedRate_m2ps3{0.0F};
    float varRate_m2ps4{1.0F};
};

/// A new road user: speed measured as speed_mps with variance speedVar, rate 0 with variance rateVar
/// (both > 0), uncorrelated.
[[nodiscard]] constexpr SpeedRateState initialSpeedRate(float speed_mps, float speedVar_m2ps2,
                                                        float rateVar_m2ps4) noexcept {
    return SpeedRateState{speed_mps, 0.0F, speedVar_m2ps2, 0.0F, rateVar_m2ps4};
}

/// Predicts `s` by dt_s ≥ 0 seconds under white jerk of spectral density q (m²/s⁵, > 0). dt_s = 0 leaves
/// it unchanged.
constexpr void predictSpeedRate(SpeedRateState& s, float dt_s, float jerkDensity_m2ps5) noexcept {
    const float dt = dt_s;
    const float q = jerkDensity_m2ps5;
    const float pvv = s.varSpeed_m2ps2;
    const float pva = s.covSpeedRate_m2ps3;
    const float paa = s.varRate_m2ps4;
    s.speed_mps += dt * s.rate_mps2;
    s.varSpeed_m2ps2 = pvv + 2.0F * dt * pva + dt * dt * paa + q * dt * dt * dt / 3.0F;
    s.covSpeedRate_m2ps3 = pva + dt * paa + q * dt * dt / 2.0F;
    s.varRate_m2ps4 = paa + q * dt;
}

/// Updates `s` with a measured speed z (m/s) of variance r (m²/s², ≥ 0), Joseph form. Left unchanged when
/// the innovation variance P_vv + r is not positive (a degenerate state measured without noise).
constexpr void updateSpeedRate(SpeedRateState& s, float measuredSpeed_mps, float measVar_m2ps2) noexcept {
    const float pvv = s.varSpeed_m2ps2;
    const float pva = s.covSpeedRate_m2ps3;
    const float paa = s.varRate_m2ps4;
    const float r = measVar_m2ps2;
    const float innovationVar = pvv + r;
    if (!(innovationVar > 0.0F)) {
        return;
    }
    const float k0 = pvv / innovationVar;
    const float k1 = pva / innovationVar;
    const float innovation = measuredSpeed_mps - s.speed_mps;
    s.speed_mps += k0 * innovation;
    s.rate_mps2 += k1 * innovation;
    // (I − K H) = [1 − k0, 0; −k1, 1]
    const float a = 1.0F - k0;
    s.varSpeed_m2ps2 = a * a * pvv + r * k0 * k0;
    s.covSpeedRate_m2ps3 = a * (pva - k1 * pvv) + r * k0 * k1;
    s.varRate_m2ps4 = k1 * k1 * pvv - 2.0F * k1 * pva + paa + r * k1 * k1;
}

}  // namespace augur::kernels::kf
