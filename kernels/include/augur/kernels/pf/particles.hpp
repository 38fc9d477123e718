// Particle storage: K particles, each `vehicles` slots of Model::SLOT_FLOATS floats, in one of two
// layouts, and the view a model uses to read and write one particle's slots.
//
//   ArrayOfStructs  (Hortelano et al. 2023, section 4.2.1, Fig. 5): particle k's slots are contiguous,
//                   element (k, f) at k·stride + f, stride = vehicles · SLOT_FLOATS.
//   StructOfArrays: element (k, f) at f·K + k; consecutive particles' same field are adjacent.
// docs/design/particle-filter.md says which one the filter uses by default and why (measured).
#pragma once

#include <cstdint>

#include "augur/kernels/pf/host_device.hpp"

namespace augur::kernels::pf {

enum class StateLayout : std::uint8_t { ArrayOfStructs, StructOfArrays };

/// One particle's slots inside a state array. A view: 24 bytes, no ownership, copies freely.
/// Slot loads/stores are whole-slot so the AoS path can use 16-byte vector accesses on the device.
struct ParticleRef {
    float* base;             ///< the whole state array (K · stride floats)
    std::uint32_t particle;  ///< k
    std::uint32_t count;     ///< K
    std::uint32_t stride;    ///< floats per particle
    StateLayout layout;

    AUGUR_HD_INLINE std::uint64_t index(std::uint32_t f) const noexcept {
        return layout == StateLayout::ArrayOfStructs
                   ? static_cast<std::uint64_t>(particle) * stride + f
                   : static_cast<std::uint64_t>(f) * count + particle;
    }
    AUGUR_HD_INLINE float get(std::uint32_t f) const noexcept { return base[index(f)]; }
    AUGUR_HD_INLINE void set(std::uint32_t f, float value) const noexcept { base[index(f)] = value; }

    /// Loads slot `vehicle` (N floats, N = slot size) into `out`. STREAM: on the device, the
    /// 16-byte loads of the array-of-structs layout are marked as read once (evict first).
    template <int N, bool STREAM = false>
    AUGUR_HD_INLINE void loadSlot(std::uint32_t vehicle, float (&out)[N]) const noexcept {
        const std::uint32_t first = vehicle * static_cast<std::uint32_t>(N);
#if defined(__CUDA_ARCH__)
        if constexpr (N % 4 == 0) {
            if (layout == StateLayout::ArrayOfStructs) {
                const float4* src = reinterpret_cast<const float4*>(base + index(first));
#pragma unroll
                for (int q = 0; q < N / 4; ++q) {
                    const float4 v = STREAM ? __ldcs(src + q) : src[q];
                    out[4 * q] = v.x;
                    out[4 * q + 1] = v.y;
                    out[4 * q + 2] = v.z;
                    out[4 * q + 3] = v.w;
                }
                return;
            }
        }
#endif
        for (int f = 0; f < N; ++f) {
            out[f] = get(first + static_cast<std::uint32_t>(f));
        }
    }

    /// Stores `in` into slot `vehicle` (STREAM: as loadSlot's).
    template <int N, bool STREAM = false>
    AUGUR_HD_INLINE void storeSlot(std::uint32_t vehicle, const float (&in)[N]) const noexcept {
        const std::uint32_t first = vehicle * static_cast<std::uint32_t>(N);
#if defined(__CUDA_ARCH__)
        if constexpr (N % 4 == 0) {
            if (layout == StateLayout::ArrayOfStructs) {
                float4* dst = reinterpret_cast<float4*>(base + index(first));
#pragma unroll
                for (int q = 0; q < N / 4; ++q) {
                    const float4 v = make_float4(in[4 * q], in[4 * q + 1], in[4 * q + 2], in[4 * q + 3]);
                    if constexpr (STREAM) {
                        __stcs(dst + q, v);
                    } else {
                        dst[q] = v;
                    }
                }
                return;
            }
        }
#endif
        for (int f = 0; f < N; ++f) {
            set(first + static_cast<std::uint32_t>(f), in[f]);
        }
    }
};

}  // namespace augur::kernels::pf
