// The CUDA part of the Motion stage (motion_gpu.hpp).
#include "motion_gpu.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"

namespace augur::runtime::detail {

namespace markov = kernels::markov;

namespace {
/// Smallest corridor-count bucket; the next ones double up to the capacity.
constexpr int FIRST_BUCKET_CORRIDORS = 32;
}  // namespace

struct MotionGpu::Impl {
    markov::PredictionConfig prediction{};
    markov::InputDynamics psi{};
    std::size_t frameCells{0};
#if AUGUR_HAVE_CUDA
    markov::cuda::DeviceChain chain;
    platform::Stream stream;
    platform::Event done;
    platform::PinnedMemory stagingCorridors;
    platform::PinnedMemory stagingPolylines;  // x, y, s: 3 × maxCorridors × maxPolylinePoints floats
    platform::PinnedMemory resultPoints;
    platform::PinnedMemory resultGrid;
    platform::DeviceBuffer<markov::CorridorInput> corridors;
    platform::DeviceBuffer<float> polylines;
    platform::DeviceBuffer<float> positionMarginal;
    platform::DeviceBuffer<float> speedMarginal;
    platform::DeviceBuffer<CorridorPoint> points;
    platform::DeviceBuffer<std::uint16_t> grid;
    platform::DeviceMemory scratch;
    std::vector<int> bucketCorridors;
    std::vector<platform::Graph> graphs;
#endif
    std::uint64_t replays{0};

    [[nodiscard]] std::size_t polylineFloats() const noexcept {
        return static_cast<std::size_t>(prediction.maxCorridors) * static_cast<std::size_t>(prediction.maxPolylinePoints);
    }
};

MotionGpu::MotionGpu(std::unique_ptr<Impl> impl) noexcept : m_impl(std::move(impl)) {}
MotionGpu::~MotionGpu() = default;

#if AUGUR_HAVE_CUDA

namespace {
/// The work of one cycle for `corridorCount` corridors (a bucket), enqueued on `stream`: stage in,
/// predict, results out. Captured once per bucket at init.
platform::GpuStatus enqueueCycle(MotionGpu::Impl& g, int corridorCount, platform::StreamHandle stream) noexcept {
    const auto count = static_cast<std::size_t>(corridorCount);
    const auto points = static_cast<std::size_t>(g.prediction.maxPolylinePoints);
    const std::size_t lineFloats = g.polylineFloats();
    const auto steps = static_cast<std::size_t>(g.prediction.horizonSteps);
    AUGUR_CUDA_TRY(platform::copyToDevice(g.corridors.data(), g.stagingCorridors.get(),
                                          count * sizeof(markov::CorridorInput), stream));
    const auto* line = static_cast<const float*>(g.stagingPolylines.get());
    for (std::size_t axis = 0; axis < 3; ++axis) {
        AUGUR_CUDA_TRY(platform::copyToDevice(g.polylines.data() + axis * lineFloats, line + axis * lineFloats,
                                              count * points * sizeof(float), stream));
    }
    const markov::Polylines polylines{g.polylines.data(), g.polylines.data() + lineFloats,
                                      g.polylines.data() + 2 * lineFloats};
    const markov::PredictionOutputs out{g.positionMarginal.data(), g.speedMarginal.data(), g.points.data(),
                                        g.grid.data(), g.frameCells};
    AUGUR_CUDA_TRY(markov::cuda::predict(g.chain, g.prediction, g.psi, g.corridors.data(), corridorCount, polylines,
                                         markov::GridPlacement{0.0F, 0.0F}, out, g.scratch.get(), g.scratch.bytes(),
                                         stream));
    AUGUR_CUDA_TRY(platform::copyToHost(g.resultPoints.get(), g.points.data(), count * steps * sizeof(CorridorPoint), stream));
    return platform::copyToHost(g.resultGrid.get(), g.grid.data(), g.grid.bytes(), stream);
}

std::string gpuFailure(const char* step, const platform::GpuError& error) {
    return std::string("motion prediction on the GPU: ") + step + ": " + platform::describe(error);
}
}  // namespace

Result<std::unique_ptr<MotionGpu>, std::string> MotionGpu::create(const markov::MarkovChain& chain,
                                                                  const markov::PredictionConfig& prediction,
                                                                  const markov::InputDynamics& psi) {
    auto impl = std::make_unique<Impl>();
    impl->prediction = prediction;
    impl->psi = psi;
    impl->frameCells = static_cast<std::size_t>(prediction.gridWidthCells) * static_cast<std::size_t>(prediction.gridHeightCells);
    auto deviceChain = markov::cuda::DeviceChain::create(chain, markov::cuda::Propagation::Auto);
    if (!deviceChain) {
        return fail(std::string("motion prediction on the GPU: the chain does not fit the device (") +
                    markov::toString(deviceChain.error()) + ")");
    }
    impl->chain = std::move(deviceChain).value();
    auto stream = platform::Stream::create(platform::StreamPriority::High);
    if (!stream) {
        return fail(gpuFailure("high-priority stream", stream.error()));
    }
    impl->stream = std::move(stream).value();
    auto done = platform::Event::create(false);
    if (!done) {
        return fail(gpuFailure("completion event", done.error()));
    }
    impl->done = std::move(done).value();

    const auto corridors = static_cast<std::size_t>(prediction.maxCorridors);
    const auto steps = static_cast<std::size_t>(prediction.horizonSteps);
    const std::size_t gridCells = static_cast<std::size_t>(prediction.gridFrames) * impl->frameCells;
    struct PinnedRequest {
        platform::PinnedMemory* memory;
        std::size_t bytes;
        const char* what;
    };
    const PinnedRequest pinned[] = {
        {&impl->stagingCorridors, corridors * sizeof(markov::CorridorInput), "page-locked corridor staging"},
        {&impl->stagingPolylines, 3 * impl->polylineFloats() * sizeof(float), "page-locked centreline staging"},
        {&impl->resultPoints, corridors * steps * sizeof(CorridorPoint), "page-locked corridor points"},
        {&impl->resultGrid, gridCells * sizeof(std::uint16_t), "page-locked grid"},
    };
    for (const PinnedRequest& request : pinned) {
        auto memory = platform::PinnedMemory::allocate(request.bytes, false);
        if (!memory) {
            return fail(gpuFailure(request.what, memory.error()));
        }
        *request.memory = std::move(memory).value();
        std::memset(request.memory->get(), 0, request.bytes);
    }
    auto deviceCorridors = platform::DeviceBuffer<markov::CorridorInput>::create(corridors);
    auto polylines = platform::DeviceBuffer<float>::create(3 * impl->polylineFloats());
    auto positionMarginal = platform::DeviceBuffer<float>::create(
        corridors * steps * static_cast<std::size_t>(chain.config().positionCells));
    auto speedMarginal = platform::DeviceBuffer<float>::create(
        corridors * steps * static_cast<std::size_t>(chain.config().speedCells));
    auto points = platform::DeviceBuffer<CorridorPoint>::create(corridors * steps);
    auto grid = platform::DeviceBuffer<std::uint16_t>::create(gridCells);
    auto scratch = platform::DeviceMemory::allocate(markov::cuda::predictScratchBytes(chain.config(), prediction));
    if (!deviceCorridors || !polylines || !positionMarginal || !speedMarginal || !points || !grid || !scratch) {
        return fail(std::string("motion prediction on the GPU: device memory for ") + std::to_string(corridors) +
                    " corridors could not be allocated");
    }
    impl->corridors = std::move(deviceCorridors).value();
    impl->polylines = std::move(polylines).value();
    impl->positionMarginal = std::move(positionMarginal).value();
    impl->speedMarginal = std::move(speedMarginal).value();
    impl->points = std::move(points).value();
    impl->grid = std::move(grid).value();
    impl->scratch = std::move(scratch).value();

    for (int bucket = FIRST_BUCKET_CORRIDORS;; bucket *= 2) {
        const int count = std::min(bucket, prediction.maxCorridors);
        Impl& g = *impl;
        auto graph = platform::Graph::capture(
            g.stream.get(), [&g, count](platform::StreamHandle s) { return enqueueCycle(g, count, s); });
        if (!graph) {
            return fail(gpuFailure("capturing the cycle's graph", graph.error()));
        }
        impl->bucketCorridors.push_back(count);
        impl->graphs.push_back(std::move(graph).value());
        if (count == prediction.maxCorridors) {
            break;
        }
    }
    return Result<std::unique_ptr<MotionGpu>, std::string>(std::unique_ptr<MotionGpu>(new MotionGpu(std::move(impl))));
}

platform::GpuStatus MotionGpu::launch(int corridorCount) noexcept {
    Impl& g = *m_impl;
    std::size_t bucket = 0;
    while (bucket + 1 < g.bucketCorridors.size() && g.bucketCorridors[bucket] < corridorCount) {
        ++bucket;
    }
    const int padded = g.bucketCorridors[bucket];
    auto* staged = corridors();
    for (int c = std::max(corridorCount, 0); c < padded; ++c) {
        staged[c] = markov::CorridorInput{};  // probability 0: no grid contribution, points unread
        staged[c].polylinePoints = 0;
    }
    AUGUR_CUDA_TRY(g.graphs[bucket].launch(g.stream.get()));
    ++g.replays;
    return g.done.record(g.stream.get());
}

Result<bool, platform::GpuError> MotionGpu::wait(std::int64_t poll_ns, std::int64_t timeout_ns) noexcept {
    return m_impl->done.waitPolling(poll_ns, timeout_ns);
}

markov::CorridorInput* MotionGpu::corridors() noexcept {
    return static_cast<markov::CorridorInput*>(m_impl->stagingCorridors.get());
}
float* MotionGpu::polyX() noexcept { return static_cast<float*>(m_impl->stagingPolylines.get()); }
float* MotionGpu::polyY() noexcept { return polyX() + m_impl->polylineFloats(); }
float* MotionGpu::polyS() noexcept { return polyX() + 2 * m_impl->polylineFloats(); }
const CorridorPoint* MotionGpu::points() const noexcept {
    return static_cast<const CorridorPoint*>(m_impl->resultPoints.get());
}
const std::uint16_t* MotionGpu::grid() const noexcept {
    return static_cast<const std::uint16_t*>(m_impl->resultGrid.get());
}
int MotionGpu::graphCount() const noexcept { return static_cast<int>(m_impl->graphs.size()); }

#else  // CPU-only build

Result<std::unique_ptr<MotionGpu>, std::string> MotionGpu::create(const markov::MarkovChain& /*chain*/,
                                                                  const markov::PredictionConfig& /*prediction*/,
                                                                  const markov::InputDynamics& /*psi*/) {
    return fail(std::string("motion prediction on the GPU: this build has no CUDA backend"));
}
platform::GpuStatus MotionGpu::launch(int /*corridorCount*/) noexcept { return {}; }
Result<bool, platform::GpuError> MotionGpu::wait(std::int64_t /*poll_ns*/, std::int64_t /*timeout_ns*/) noexcept {
    return true;
}
markov::CorridorInput* MotionGpu::corridors() noexcept { return nullptr; }
float* MotionGpu::polyX() noexcept { return nullptr; }
float* MotionGpu::polyY() noexcept { return nullptr; }
float* MotionGpu::polyS() noexcept { return nullptr; }
const CorridorPoint* MotionGpu::points() const noexcept { return nullptr; }
const std::uint16_t* MotionGpu::grid() const noexcept { return nullptr; }
int MotionGpu::graphCount() const noexcept { return 0; }

#endif

std::uint64_t MotionGpu::replays() const noexcept { return m_impl->replays; }

}  // namespace augur::runtime::detail
