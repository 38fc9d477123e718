// The CUDA part of the Intention stage (intention_gpu.hpp).
#include "intention_gpu.hpp"

#include <algorithm>
#include <vector>

#include "augur/platform/stream.hpp"
#include "gpu_lane.hpp"

namespace augur::runtime::detail {

namespace pf = kernels::pf;
using Model = pf::SceneModel;

struct IntentionGpu::Impl {
    Shape shape{};
#if AUGUR_HAVE_CUDA
    /// One filter set: its filters and the captured step.
    struct FilterSet {
        std::vector<pf::cuda::ParticleFilter<Model>> filters;
        platform::Graph graph;
    };
    GpuLane lane;
    FilterSet sets[2];  ///< [0] Nominal, [1] ReducedParticles
#endif
    std::uint64_t replays{0};

    [[nodiscard]] std::size_t outputsPerFilter() const noexcept { return pf::outputCount<Model>(shape.vehiclesPerFilter); }
};

IntentionGpu::IntentionGpu(std::unique_ptr<Impl> impl) noexcept : m_impl(std::move(impl)) {}
IntentionGpu::~IntentionGpu() = default;

#if AUGUR_HAVE_CUDA

namespace {

constexpr std::size_t setIndex(bool nominal) noexcept { return nominal ? 0U : 1U; }

/// One cycle of a set, enqueued on `stream`: every filter's step. The filters write their outputs into
/// mapped page-locked memory, so the graph holds kernels only (H100, augur-bench-pf --only nodes: two
/// 32-vehicle filters 100 µs, against 106–109 µs with two copy nodes after the steps and 119–124 µs
/// with each filter's copy before the next filter's kernels).
platform::GpuStatus enqueueCycle(IntentionGpu::Impl::FilterSet& set, platform::StreamHandle stream) noexcept {
    for (auto& filter : set.filters) {
        AUGUR_CUDA_TRY(filter.step(stream));
    }
    return {};
}

std::string gpuFailure(const char* step, const platform::GpuError& error) {
    return std::string("intention filter on the GPU: ") + step + ": " + platform::describe(error);
}

}  // namespace

Result<std::unique_ptr<IntentionGpu>, std::string> IntentionGpu::create(const Shape& shape,
                                                                        const pf::FilterConfig& config,
                                                                        const Model::Params& model) {
    auto impl = std::make_unique<Impl>();
    impl->shape = shape;
    auto lane = GpuLane::create("intention filter on the GPU");
    if (!lane) {
        return fail(lane.error());
    }
    impl->lane = std::move(lane).value();

    for (const bool nominal : {true, false}) {
        Impl::FilterSet& set = impl->sets[setIndex(nominal)];
        for (std::uint32_t f = 0; f < shape.filters; ++f) {
            pf::FilterConfig filterConfig = config;
            filterConfig.vehicles = shape.vehiclesPerFilter;
            filterConfig.particles = nominal ? shape.particles : shape.particlesReduced;
            filterConfig.seed = config.seed + f;  // as the CPU filters: independent streams per filter
            auto filter = pf::cuda::ParticleFilter<Model>::create(filterConfig, model);
            if (!filter) {
                return fail(std::string("intention filter on the GPU: ") +
                            (filter.error() == pf::FilterError::Gpu
                                 ? "device memory for " + std::to_string(filterConfig.particles) + " particles × " +
                                       std::to_string(filterConfig.vehicles) + " vehicles could not be allocated"
                                 : "invalid particle count or parameters"));
            }
            set.filters.push_back(std::move(filter).value());
        }
        auto graph = platform::Graph::capture(impl->lane.stream.get(),
                                              [&set](platform::StreamHandle s) { return enqueueCycle(set, s); });
        if (!graph) {
            return fail(gpuFailure("capturing the filter step's graph", graph.error()));
        }
        set.graph = std::move(graph).value();
    }
    return Result<std::unique_ptr<IntentionGpu>, std::string>(
        std::unique_ptr<IntentionGpu>(new IntentionGpu(std::move(impl))));
}

platform::GpuStatus IntentionGpu::initialize(bool nominal, std::span<const pf::SceneVehicleInput> inputs) noexcept {
    Impl& g = *m_impl;
    Impl::FilterSet& set = g.sets[setIndex(nominal)];
    const std::size_t perFilter = g.shape.vehiclesPerFilter;
    for (std::size_t f = 0; f < set.filters.size(); ++f) {
        AUGUR_CUDA_TRY(set.filters[f].initialize(inputs.subspan(f * perFilter, perFilter), g.lane.stream.get()));
    }
    return g.lane.done.record(g.lane.stream.get());
}

void IntentionGpu::stage(bool nominal, std::span<const pf::SceneVehicleInput> inputs) noexcept {
    Impl& g = *m_impl;
    Impl::FilterSet& set = g.sets[setIndex(nominal)];
    const std::size_t perFilter = g.shape.vehiclesPerFilter;
    for (std::size_t f = 0; f < set.filters.size(); ++f) {
        // Accepted: the sizes match by construction (create() sized the filters from the same shape)
        // and IntentionStage::run checked the inputs (inputsValid) before staging them.
        (void)set.filters[f].setInputs(inputs.subspan(f * perFilter, perFilter));
    }
}

platform::GpuStatus IntentionGpu::launch(bool nominal) noexcept {
    Impl& g = *m_impl;
    AUGUR_CUDA_TRY(g.sets[setIndex(nominal)].graph.launch(g.lane.stream.get()));
    ++g.replays;
    return g.lane.done.record(g.lane.stream.get());
}

Result<bool, platform::GpuError> IntentionGpu::wait(std::int64_t poll_ns, std::int64_t timeout_ns) noexcept {
    return m_impl->lane.done.waitPolling(poll_ns, timeout_ns);
}

void IntentionGpu::copyOutputs(bool nominal, std::span<float> outputs) const noexcept {
    const Impl::FilterSet& set = m_impl->sets[setIndex(nominal)];
    const std::size_t perFilter = m_impl->outputsPerFilter();
    for (std::size_t f = 0; f < set.filters.size() && (f + 1) * perFilter <= outputs.size(); ++f) {
        const std::span<const float> written = set.filters[f].hostOutputs();
        std::copy(written.begin(), written.end(), outputs.begin() + static_cast<std::ptrdiff_t>(f * perFilter));
    }
}

#else  // CPU-only build

Result<std::unique_ptr<IntentionGpu>, std::string> IntentionGpu::create(const Shape& /*shape*/,
                                                                        const pf::FilterConfig& /*config*/,
                                                                        const Model::Params& /*model*/) {
    return fail(std::string("intention filter on the GPU: this build has no CUDA backend"));
}
platform::GpuStatus IntentionGpu::initialize(bool /*nominal*/, std::span<const pf::SceneVehicleInput> /*inputs*/) noexcept {
    return {};
}
void IntentionGpu::stage(bool /*nominal*/, std::span<const pf::SceneVehicleInput> /*inputs*/) noexcept {}
platform::GpuStatus IntentionGpu::launch(bool /*nominal*/) noexcept { return {}; }
Result<bool, platform::GpuError> IntentionGpu::wait(std::int64_t /*poll_ns*/, std::int64_t /*timeout_ns*/) noexcept {
    return true;
}
void IntentionGpu::copyOutputs(bool /*nominal*/, std::span<float> /*outputs*/) const noexcept {}

#endif

std::uint64_t IntentionGpu::replays() const noexcept { return m_impl->replays; }

}  // namespace augur::runtime::detail
