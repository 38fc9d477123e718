// The cuda:: entry points of the kf family in a build without the CUDA backend: each reports
// cudaErrorNoDevice (100) so that callers get a checked error instead of a link failure.
#include "augur/kernels/kf/kalman_bank.hpp"
#include "augur/kernels/kf/smoother.hpp"

#if !AUGUR_HAVE_CUDA

namespace augur::kernels::kf::cuda {
namespace {
constexpr int NO_DEVICE = 100;  // cudaErrorNoDevice
}

template <typename Real>
platform::GpuStatus step(const ModelParams<Real>&, BankState<Real>, const CycleInput<Real>&,
                         platform::StreamHandle) noexcept {
    return platform::checkCuda(NO_DEVICE, "kf::cuda::step (CUDA backend not built)", __FILE__, __LINE__);
}

std::size_t smootherScratchBytes(MotionModel, std::size_t, std::size_t, std::size_t) noexcept { return 0; }

template <typename Real>
platform::GpuStatus smoothParallel(const ModelParams<Real>&, const FilteredHistory<Real>&, SmoothedHistory<Real>,
                                   void*, std::size_t, platform::StreamHandle) noexcept {
    return platform::checkCuda(NO_DEVICE, "kf::cuda::smoothParallel (CUDA backend not built)", __FILE__, __LINE__);
}

template <typename Real>
platform::GpuStatus smoothSequential(const ModelParams<Real>&, const FilteredHistory<Real>&, SmoothedHistory<Real>,
                                     platform::StreamHandle) noexcept {
    return platform::checkCuda(NO_DEVICE, "kf::cuda::smoothSequential (CUDA backend not built)", __FILE__, __LINE__);
}

template platform::GpuStatus step<float>(const ModelParams<float>&, BankState<float>, const CycleInput<float>&,
                                         platform::StreamHandle) noexcept;
template platform::GpuStatus step<double>(const ModelParams<double>&, BankState<double>, const CycleInput<double>&,
                                          platform::StreamHandle) noexcept;
template platform::GpuStatus smoothParallel<float>(const ModelParams<float>&, const FilteredHistory<float>&,
                                                   SmoothedHistory<float>, void*, std::size_t,
                                                   platform::StreamHandle) noexcept;
template platform::GpuStatus smoothParallel<double>(const ModelParams<double>&, const FilteredHistory<double>&,
                                                    SmoothedHistory<double>, void*, std::size_t,
                                                    platform::StreamHandle) noexcept;
template platform::GpuStatus smoothSequential<float>(const ModelParams<float>&, const FilteredHistory<float>&,
                                                     SmoothedHistory<float>, platform::StreamHandle) noexcept;
template platform::GpuStatus smoothSequential<double>(const ModelParams<double>&, const FilteredHistory<double>&,
                                                      SmoothedHistory<double>, platform::StreamHandle) noexcept;

}  // namespace augur::kernels::kf::cuda

#endif
