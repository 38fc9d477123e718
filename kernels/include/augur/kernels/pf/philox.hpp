// Philox-4x32-10 counter-based random numbers, shared by the CPU reference and the CUDA kernels.
//
// Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3" (SC'11). A draw is a pure
// function of (key, counter): the particle filter keys it by the filter seed and counts by
// (particle, vehicle, step, draw), so the CPU and the GPU produce the same numbers for the same
// particle in any thread order, and a run is reproducible. The blocks and the uniforms are integer
// arithmetic plus correctly rounded conversions: bit-identical on host and device. The normals
// (Box–Muller) take the device's approximate log, square root, sine and cosine (fast_math.hpp):
// host and device agree to float tolerance.
#pragma once

#include <cmath>
#include <cstdint>

#include "augur/kernels/pf/fast_math.hpp"
#include "augur/kernels/pf/host_device.hpp"

namespace augur::kernels::pf {

struct Philox4 {
    std::uint32_t v[4];
};

namespace detail {
inline constexpr std::uint32_t PHILOX_M0 = 0xD2511F53U;
inline constexpr std::uint32_t PHILOX_M1 = 0xCD9E8D57U;
inline constexpr std::uint32_t PHILOX_W0 = 0x9E3779B9U;  // golden ratio
inline constexpr std::uint32_t PHILOX_W1 = 0xBB67AE85U;  // sqrt(3) - 1
}  // namespace detail

/// How the device forms Philox's 64-bit products (the host: always the C++ product). The results
/// are the same bits; the instructions are not, and which is faster depends on the kernel's register
/// allocation (tuning.hpp says which kernel uses which, and what each measured).
///   Product  the product of the 64-bit zero extensions, as written in C++: compiled to a widening
///            multiply plus an add of zero to the high word (20 adds per Philox block). With __umulhi
///            and a 32-bit multiply instead, as cuRAND's Philox, the step's kernels ran 3–4 % fewer
///            warp instructions, yet the K = 10⁶ one-vehicle step measured 0.1–0.9 µs slower in the
///            structure-of-arrays layout and 2.2–3.4 µs slower in the array-of-structs one (H200,
///            augur-bench-pf --only floor).
///   Wide     PTX mul.wide.u32: the widening multiply alone.
enum class PhiloxMultiply { Product, Wide };

namespace detail {
/// The 64-bit product of a and b as two words.
template <PhiloxMultiply MULTIPLY>
AUGUR_HD_INLINE void mulHiLo(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) {
#if defined(__CUDA_ARCH__)
    if constexpr (MULTIPLY == PhiloxMultiply::Wide) {
        std::uint64_t product = 0;
        asm("mul.wide.u32 %0, %1, %2;" : "=l"(product) : "r"(a), "r"(b));
        hi = static_cast<std::uint32_t>(product >> 32U);
        lo = static_cast<std::uint32_t>(product);
        return;
    }
#endif
    const std::uint64_t product = static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b);
    hi = static_cast<std::uint32_t>(product >> 32U);
    lo = static_cast<std::uint32_t>(product);
}

/// One Philox-4x32 round with round key (key0, key1).
template <PhiloxMultiply MULTIPLY>
AUGUR_HD_INLINE Philox4 philoxRound(const Philox4& counter, std::uint32_t key0, std::uint32_t key1) noexcept {
    std::uint32_t hi0 = 0;
    std::uint32_t lo0 = 0;
    std::uint32_t hi1 = 0;
    std::uint32_t lo1 = 0;
    mulHiLo<MULTIPLY>(PHILOX_M0, counter.v[0], hi0, lo0);
    mulHiLo<MULTIPLY>(PHILOX_M1, counter.v[2], hi1, lo1);
    return Philox4{{hi1 ^ counter.v[1] ^ key0, lo1, hi0 ^ counter.v[3] ^ key1, lo0}};
}
}  // namespace detail

/// Philox-4x32 with 10 rounds: four 32-bit words from a 128-bit counter and a 64-bit key.
/// Pure, noexcept, allocation-free; about 10 × 2 32-bit multiplies.
template <PhiloxMultiply MULTIPLY = PhiloxMultiply::Product>
AUGUR_HD_INLINE Philox4 philox4x32_10(Philox4 counter, std::uint32_t key0, std::uint32_t key1) noexcept {
    for (int round = 0; round < 10; ++round) {
        counter = detail::philoxRound<MULTIPLY>(counter, key0, key1);
        key0 += detail::PHILOX_W0;
        key1 += detail::PHILOX_W1;
    }
    return counter;
}

/// Two counters under one key, their rounds interleaved: the same words as two philox4x32_10 calls,
/// as two independent chains of multiplies that the scheduler can overlap. Computed one after the
/// other, as the compiler ordered two calls, each round waited for the one before it.
template <PhiloxMultiply MULTIPLY = PhiloxMultiply::Product>
AUGUR_HD_INLINE void philox4x32_10(Philox4& a, Philox4& b, std::uint32_t key0, std::uint32_t key1) noexcept {
    for (int round = 0; round < 10; ++round) {
        a = detail::philoxRound<MULTIPLY>(a, key0, key1);
        b = detail::philoxRound<MULTIPLY>(b, key0, key1);
        key0 += detail::PHILOX_W0;
        key1 += detail::PHILOX_W1;
    }
}

/// A uniform float in [0, 1) from the top 24 bits of `bits` (exact: every value is k·2⁻²⁴).
AUGUR_HD_INLINE float uniform01(std::uint32_t bits) noexcept {
    return static_cast<float>(bits >> 8U) * (1.0F / 16777216.0F);
}

/// A uniform float in (0, 1]: never zero, safe for log().
AUGUR_HD_INLINE float uniformOpen0(std::uint32_t bits) noexcept {
    return static_cast<float>((bits >> 8U) + 1U) * (1.0F / 16777216.0F);
}

/// A uniform float in [0, 1) (every value k·2⁻¹⁶) from the low bytes of two words — the bits
/// uniform01 leaves unused — so one block gives four 24-bit and two 16-bit independent uniforms.
AUGUR_HD_INLINE float uniformLowBytes(std::uint32_t bitsA, std::uint32_t bitsB) noexcept {
    return static_cast<float>((bitsA & 0xFFU) | ((bitsB & 0xFFU) << 8U)) * (1.0F / 65536.0F);
}

/// The stream of draws of one (seed, step, particle, vehicle) tuple. Each block() call returns four
/// fresh words (the draw index is the fourth counter word), so a model asks for as many as it needs.
/// Copyable, 24 bytes, lives in registers. MULTIPLY: how the device forms Philox's products (the
/// same numbers either way).
template <PhiloxMultiply MULTIPLY = PhiloxMultiply::Product>
class BasicRandomStream {
public:
    AUGUR_HD_INLINE BasicRandomStream(std::uint64_t seed, std::uint32_t step, std::uint32_t particle,
                                      std::uint32_t vehicle) noexcept
        : m_key0(static_cast<std::uint32_t>(seed)),
          m_key1(static_cast<std::uint32_t>(seed >> 32U)),
          m_particle(particle),
          m_vehicle(vehicle),
          m_step(step) {}

    /// Four fresh 32-bit words.
    AUGUR_HD_INLINE Philox4 block() noexcept {
        return philox4x32_10<MULTIPLY>(Philox4{{m_particle, m_vehicle, m_step, m_draw++}}, m_key0, m_key1);
    }

    /// The next two blocks: the same words as two block() calls, computed side by side.
    AUGUR_HD_INLINE void blocks(Philox4& first, Philox4& second) noexcept {
        first = Philox4{{m_particle, m_vehicle, m_step, m_draw}};
        second = Philox4{{m_particle, m_vehicle, m_step, m_draw + 1}};
        m_draw += 2;
        philox4x32_10<MULTIPLY>(first, second, m_key0, m_key1);
    }

    /// One standard normal: the first of Box–Muller's pair from a fresh block (the scalar models'
    /// draws; the block's other words go unused).
    AUGUR_HD_INLINE float normal() noexcept;

    /// Four independent standard normals from one block (two Box–Muller pairs, no word unused).
    AUGUR_HD_INLINE void normals4(float (&n)[4]) noexcept;

private:
    std::uint32_t m_key0;
    std::uint32_t m_key1;
    std::uint32_t m_particle;
    std::uint32_t m_vehicle;
    std::uint32_t m_step;
    std::uint32_t m_draw{0};
};

using RandomStream = BasicRandomStream<>;

/// Box–Muller (Box and Muller 1958): two independent standard normals from two words,
/// r = √(−2 ln u₀) with u₀ ∈ (0, 1], angle π·(2u₁ − 1) ∈ [−π, π) (exact in float; the range where
/// the device's hardware sine is accurate). The radicand is clamped at 0: within about 2⁻²² of
/// u₀ = 1 the device's ln may come out slightly positive.
AUGUR_HD_INLINE void boxMuller(std::uint32_t bits0, std::uint32_t bits1, float& n0, float& n1) noexcept {
    constexpr float PI = 3.14159265358979323846F;
    const float radius = fastSqrt(std::fmax(0.0F, minusTwoLog(uniformOpen0(bits0))));
    const float angle = PI * (2.0F * uniform01(bits1) - 1.0F);
    float s = 0.0F;
    float c = 0.0F;
    fastSinCos(angle, s, c);
    n0 = radius * c;
    n1 = radius * s;
}

template <PhiloxMultiply MULTIPLY>
AUGUR_HD_INLINE float BasicRandomStream<MULTIPLY>::normal() noexcept {
    const Philox4 r = block();
    float n0 = 0.0F;
    float n1 = 0.0F;
    boxMuller(r.v[0], r.v[1], n0, n1);
    return n0;
}

/// Four independent standard normals from the words of one block (two Box–Muller pairs).
AUGUR_HD_INLINE void normals4(const Philox4& r, float (&n)[4]) noexcept {
    boxMuller(r.v[0], r.v[1], n[0], n[1]);
    boxMuller(r.v[2], r.v[3], n[2], n[3]);
}

template <PhiloxMultiply MULTIPLY>
AUGUR_HD_INLINE void BasicRandomStream<MULTIPLY>::normals4(float (&n)[4]) noexcept {
    pf::normals4(block(), n);
}

}  // namespace augur::kernels::pf
