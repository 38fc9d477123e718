// The level structure of the blocked suffix scan shared by the CPU and CUDA smoothers (smoother.hpp):
// level 0 is the history (T elements per target); level l+1 holds one aggregate per chunk of level l,
// n_{l+1} = ⌈n_l / chunk⌉, until a level fits in one chunk. Internal to kernels/kf.
#pragma once

#include <cstddef>

namespace augur::kernels::kf::detail {

struct ScanLevels {
    static constexpr int MAX = 64;
    std::size_t size[MAX]{};    ///< elements per target on each level
    std::size_t offset[MAX]{};  ///< first element of level l ≥ 1 in the scratch, per target, in elements
    std::size_t scratchElements{0};  ///< Σ_{l≥1} n_l per target
    int count{0};
};

/// Levels for `steps` elements and chunk length `chunk` ≥ 2. O(log T).
constexpr ScanLevels scanLevels(std::size_t steps, std::size_t chunk) noexcept {
    ScanLevels levels;
    levels.size[0] = steps;
    levels.count = 1;
    while (levels.size[levels.count - 1] > chunk && levels.count < ScanLevels::MAX) {
        const std::size_t n = (levels.size[levels.count - 1] + chunk - 1) / chunk;
        levels.size[levels.count] = n;
        levels.offset[levels.count] = levels.scratchElements;
        levels.scratchElements += n;
        ++levels.count;
    }
    return levels;
}

}  // namespace augur::kernels::kf::detail
