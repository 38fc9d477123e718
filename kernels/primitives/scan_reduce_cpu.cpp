// CPU references of the scan and reduction primitives, and the variants' names.
#include <algorithm>

#include "augur/core/panic.hpp"
#include "augur/kernels/primitives/reduce.hpp"
#include "augur/kernels/primitives/scan.hpp"

namespace augur::kernels::primitives {

std::string_view toString(ScanVariant variant) noexcept {
    switch (variant) {
        case ScanVariant::WorkEfficientPadded: return "work-efficient padded";
        case ScanVariant::Unrolled2: return "unrolled x2";
        case ScanVariant::Unrolled4: return "unrolled x4";
        case ScanVariant::Unrolled8: return "unrolled x8";
        case ScanVariant::WarpUnrolled: return "warp-unrolled";
        case ScanVariant::CompleteUnrolled: return "complete unrolling";
        case ScanVariant::SinglePassLookback: return "single-pass look-back";
        case ScanVariant::Cub: return "CUB DeviceScan";
    }
    return "invalid";
}

std::string_view toString(ReduceVariant variant) noexcept {
    switch (variant) {
        case ReduceVariant::SequentialAddressing: return "sequential addressing";
        case ReduceVariant::WarpUnrolled: return "warp-unrolled";
        case ReduceVariant::Cub: return "CUB DeviceReduce";
        case ReduceVariant::AtomicAdd: return "atomicAdd";
    }
    return "invalid";
}

namespace cpu {

void exclusiveScan(std::span<const float> in, std::span<float> out) noexcept {
    AUGUR_ASSERT(out.size() >= in.size(), "exclusiveScan: output shorter than input");
    double running = 0.0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const double value = in[i];
        out[i] = static_cast<float>(running);
        running += value;
    }
}

double reduceSum(std::span<const float> in) noexcept {
    double sum = 0.0;
    for (const float v : in) {
        sum += v;
    }
    return sum;
}

}  // namespace cpu
}  // namespace augur::kernels::primitives
