// The device's hardware approximations of the elementary functions the particle filter evaluates
// per particle, each with its host counterpart from <cmath>. Shared code calls these, not the
// functions themselves, where a few ulp do not matter: the CPU reference and the kernels then agree
// to float tolerance, not bit for bit (docs/design/particle-filter.md, Determinism). Where bits must
// match on both sides (the CDF's quantised weights, the log-likelihood's reciprocals of σ), the
// shared code keeps exact arithmetic instead.
//
// The correctly rounded device functions these replace (sqrtf, __frcp_rn, expf, and __logf's
// denormal fix-up) each take a refinement and a branch to a slow path; in the particle filter's
// advance loop that was about a tenth of its instructions (augur-bench-pf, the step tables).
#pragma once

#include <cmath>

#include "augur/kernels/pf/host_device.hpp"

namespace augur::kernels::pf {

/// −2 ln u for u ∈ (0, 1] (Box–Muller's radicand). Device: the hardware log2 with denormals
/// flushed (lg2.approx.ftz; u ≥ 2⁻²⁴ is never denormal, so the value is __logf's — absolute error
/// ≤ 2^-21.4 on [0.5, 2], ≤ 3 ulp elsewhere — without its denormal fix-up), times −2 ln 2 in one
/// product (the same bits as −2 · (log2 u · ln 2): doubling is exact); host: −2 · std::log.
AUGUR_HD_INLINE float minusTwoLog(float u) noexcept {
#if defined(__CUDA_ARCH__)
    constexpr float LN2 = 0.693147180559945309F;
    float log2u = 0.0F;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(log2u) : "f"(u));
    return log2u * (-2.0F * LN2);
#else
    return -2.0F * std::log(u);
#endif
}

/// √x for x ≥ 0. Device: sqrt.approx.ftz (relative error within about an ulp); host: std::sqrt.
AUGUR_HD_INLINE float fastSqrt(float x) noexcept {
#if defined(__CUDA_ARCH__)
    float root = 0.0F;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(root) : "f"(x));
    return root;
#else
    return std::sqrt(x);
#endif
}

/// 1/x for normal x. Device: rcp.approx.ftz (within about an ulp); host: 1/x.
AUGUR_HD_INLINE float fastReciprocal(float x) noexcept {
#if defined(__CUDA_ARCH__)
    float inverse = 0.0F;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(inverse) : "f"(x));
    return inverse;
#else
    return 1.0F / x;
#endif
}

/// eˣ. Device: the hardware exp2 of t = x·log₂e (ex2.approx.ftz, as __expf: relative error about
/// 2⁻²², plus ln 2·|t|·2⁻²⁴ from rounding t; results below 2⁻¹²⁶ flush to zero); host: std::exp.
AUGUR_HD_INLINE float fastExp(float x) noexcept {
#if defined(__CUDA_ARCH__)
    constexpr float LOG2_E = 1.44269504088896341F;
    float e = 0.0F;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(x * LOG2_E));
    return e;
#else
    return std::exp(x);
#endif
}

/// sin a and cos a for |a| ≤ π. Device: the hardware sine/cosine (__sincosf, absolute error
/// ≤ 2^-21.4 ≈ 3.6·10⁻⁷ on [−π, π], growing slowly outside); host: std::sin, std::cos. For angles
/// the model keeps wrapped (headings after wrapAngle) and Box–Muller's angle.
AUGUR_HD_INLINE void fastSinCos(float a, float& s, float& c) noexcept {
#if defined(__CUDA_ARCH__)
    __sincosf(a, &s, &c);
#else
    s = std::sin(a);
    c = std::cos(a);
#endif
}

}  // namespace augur::kernels::pf
