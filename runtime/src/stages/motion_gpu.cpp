// The CUDA part of the Motion stage (motion_gpu.hpp).
#include "motion_gpu.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"
#include "gpu_lane.hpp"

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
    bool zeroCopy{false};
#if AUGUR_HAVE_CUDA
    markov::cuda::DeviceChain chain;
    GpuLane lane;
    platform::PinnedMemory stagingCorridors;
    platform::PinnedMemory stagingPolylines;  // x, y, s: 3 × maxCorridors × maxPolylinePoints floats
    platform::PinnedMemory resultPoints;
    platform::PinnedMemory resultGrid;
    platform::DeviceBuffer<markov::CorridorInput> corridors;  // copy mode only
    platform::DeviceBuffer<float> polylines;                  // copy mode only
    platform::DeviceBuffer<float> positionMarginal;
    platform::DeviceBuffer<float> speedMarginal;
    platform::DeviceBuffer<CorridorPoint> points;  // copy mode only
    platform::DeviceBuffer<std::uint16_t> grid;    // copy mode only
    // What the kernels address: the device buffers above, or (zero copy) the mapped staging / results.
    markov::CorridorInput* deviceCorridors{nullptr};
    float* devicePolylines{nullptr};
    CorridorPoint* devicePoints{nullptr};
    std::uint16_t* deviceGrid{nullptr};
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
    if (!g.zeroCopy) {
        AUGUR_CUDA_TRY(platform::copyToDevice(g.deviceCorridors, g.stagingCorridors.get(),
                                              count * sizeof(markov::CorridorInput), stream));
        const auto* line = static_cast<const float*>(g.stagingPolylines.get());
        for (std::size_t axis = 0; axis < 3; ++axis) {
            AUGUR_CUDA_TRY(platform::copyToDevice(g.devicePolylines + axis * lineFloats, line + axis * lineFloats,
                                                  count * points * sizeof(float), stream));
        }
    }
    const markov::Polylines polylines{g.devicePolylines, g.devicePolylines + lineFloats, g.devicePolylines + 2 * lineFloats};
    const markov::PredictionOutputs out{g.positionMarginal.data(), g.speedMarginal.data(), g.devicePoints, g.deviceGrid,
                                        g.frameCells};
    AUGUR_CUDA_TRY(markov::cuda::predict(g.chain, g.prediction, g.psi, g.deviceCorridors, corridorCount, polylines,
                                         markov::GridPlacement{0.0F, 0.0F}, out, g.scratch.get(), g.scratch.bytes(),
                                         stream));
    if (g.zeroCopy) {
        return {};
    }
    AUGUR_CUDA_TRY(platform::copyToHost(g.resultPoints.get(), g.devicePoints, count * steps * sizeof(CorridorPoint), stream));
    return platform::copyToHost(g.resultGrid.get(), g.deviceGrid, g.resultGrid.bytes(), stream);
}

std::string gpuFailure(const char* step, const platform::GpuError& error) {
    return std::string("motion prediction on the GPU: ") + step + ": " + platform::describe(error);
}

/// The page-locked staging of the inputs and the results (mapped when zero copy), zeroed.
Result<void, std::string> allocateStaging(MotionGpu::Impl& g) {
    const auto corridors = static_cast<std::size_t>(g.prediction.maxCorridors);
    const auto steps = static_cast<std::size_t>(g.prediction.horizonSteps);
    const std::size_t gridCells = static_cast<std::size_t>(g.prediction.gridFrames) * g.frameCells;
    struct PinnedRequest {
        platform::PinnedMemory* memory;
        std::size_t bytes;
        const char* what;
    };
    const PinnedRequest pinned[] = {
        {&g.stagingCorridors, corridors * sizeof(markov::CorridorInput), "page-locked corridor staging"},
        {&g.stagingPolylines, 3 * g.polylineFloats() * sizeof(float), "page-locked centreline staging"},
        {&g.resultPoints, corridors * steps * sizeof(CorridorPoint), "page-locked corridor points"},
        {&g.resultGrid, gridCells * sizeof(std::uint16_t), "page-locked grid"},
    };
    for (const PinnedRequest& request : pinned) {
        auto memory = platform::PinnedMemory::allocate(request.bytes, g.zeroCopy);
        if (!memory) {
            return fail(gpuFailure(request.what, memory.error()));
        }
        *request.memory = std::move(memory).value();
        std::memset(request.memory->get(), 0, request.bytes);
    }
    return {};
}

/// The device memory of the prediction (marginals, scratch) and, unless zero copy, the device copies of
/// the staging and the results; then the addresses the kernels use.
Result<void, std::string> allocateDeviceBuffers(MotionGpu::Impl& g, const markov::MarkovChain& chain) {
    const auto corridors = static_cast<std::size_t>(g.prediction.maxCorridors);
    const auto steps = static_cast<std::size_t>(g.prediction.horizonSteps);
    const std::size_t gridCells = static_cast<std::size_t>(g.prediction.gridFrames) * g.frameCells;
    auto positionMarginal = platform::DeviceBuffer<float>::create(
        corridors * steps * static_cast<std::size_t>(chain.config().positionCells));
    auto speedMarginal = platform::DeviceBuffer<float>::create(
        corridors * steps * static_cast<std::size_t>(chain.config().speedCells));
    auto scratch = platform::DeviceMemory::allocate(markov::cuda::predictScratchBytes(chain.config(), g.prediction));
    const auto memoryFailure = [corridors] {
        return std::string("motion prediction on the GPU: device memory for ") + std::to_string(corridors) +
               " corridors could not be allocated";
    };
    if (!positionMarginal || !speedMarginal || !scratch) {
        return fail(memoryFailure());
    }
    g.positionMarginal = std::move(positionMarginal).value();
    g.speedMarginal = std::move(speedMarginal).value();
    g.scratch = std::move(scratch).value();
    if (g.zeroCopy) {
        g.deviceCorridors = static_cast<markov::CorridorInput*>(g.stagingCorridors.devicePointer());
        g.devicePolylines = static_cast<float*>(g.stagingPolylines.devicePointer());
        g.devicePoints = static_cast<CorridorPoint*>(g.resultPoints.devicePointer());
        g.deviceGrid = static_cast<std::uint16_t*>(g.resultGrid.devicePointer());
        return {};
    }
    auto deviceCorridors = platform::DeviceBuffer<markov::CorridorInput>::create(corridors);
    auto polylines = platform::DeviceBuffer<float>::create(3 * g.polylineFloats());
    auto points = platform::DeviceBuffer<CorridorPoint>::create(corridors * steps);
    auto grid = platform::DeviceBuffer<std::uint16_t>::create(gridCells);
    if (!deviceCorridors || !polylines || !points || !grid) {
        return fail(memoryFailure());
    }
    g.corridors = std::move(deviceCorridors).value();
    g.polylines = std::move(polylines).value();
    g.points = std::move(points).value();
    g.grid = std::move(grid).value();
    g.deviceCorridors = g.corridors.data();
    g.devicePolylines = g.polylines.data();
    g.devicePoints = g.points.data();
    g.deviceGrid = g.grid.data();
    return {};
}

/// One graph of the cycle per corridor-count bucket: FIRST_BUCKET_CORRIDORS, doubling, up to the capacity.
Result<void, std::string> captureGraphs(MotionGpu::Impl& g) {
    for (int bucket = FIRST_BUCKET_CORRIDORS;; bucket *= 2) {
        const int count = std::min(bucket, g.prediction.maxCorridors);
        auto graph = platform::Graph::capture(
            g.lane.stream.get(), [&g, count](platform::StreamHandle s) { return enqueueCycle(g, count, s); });
        if (!graph) {
            return fail(gpuFailure("capturing the cycle's graph", graph.error()));
        }
        g.bucketCorridors.push_back(count);
        g.graphs.push_back(std::move(graph).value());
        if (count == g.prediction.maxCorridors) {
            return {};
        }
    }
}
}  // namespace

Result<std::unique_ptr<MotionGpu>, std::string> MotionGpu::create(const markov::MarkovChain& chain,
                                                                  const markov::PredictionConfig& prediction,
                                                                  const markov::InputDynamics& psi, bool zeroCopy) {
    auto impl = std::make_unique<Impl>();
    impl->prediction = prediction;
    impl->psi = psi;
    impl->zeroCopy = zeroCopy;
    impl->frameCells = static_cast<std::size_t>(prediction.gridWidthCells) * static_cast<std::size_t>(prediction.gridHeightCells);
    auto deviceChain = markov::cuda::DeviceChain::create(chain, markov::cuda::Propagation::Auto);
    if (!deviceChain) {
        return fail(std::string("motion prediction on the GPU: the chain does not fit the device (") +
                    markov::toString(deviceChain.error()) + ")");
    }
    impl->chain = std::move(deviceChain).value();
    auto lane = GpuLane::create("motion prediction on the GPU");
    if (!lane) {
        return fail(lane.error());
    }
    impl->lane = std::move(lane).value();
    if (auto staging = allocateStaging(*impl); !staging) {
        return fail(staging.error());
    }
    if (auto buffers = allocateDeviceBuffers(*impl, chain); !buffers) {
        return fail(buffers.error());
    }
    if (auto captured = captureGraphs(*impl); !captured) {
        return fail(captured.error());
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
    AUGUR_CUDA_TRY(g.graphs[bucket].launch(g.lane.stream.get()));
    ++g.replays;
    return g.lane.done.record(g.lane.stream.get());
}

Result<bool, platform::GpuError> MotionGpu::wait(std::int64_t poll_ns, std::int64_t timeout_ns) noexcept {
    return m_impl->lane.done.waitPolling(poll_ns, timeout_ns);
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
bool MotionGpu::zeroCopy() const noexcept { return m_impl->zeroCopy; }

#else  // CPU-only build

Result<std::unique_ptr<MotionGpu>, std::string> MotionGpu::create(const markov::MarkovChain& /*chain*/,
                                                                  const markov::PredictionConfig& /*prediction*/,
                                                                  const markov::InputDynamics& /*psi*/, bool /*zeroCopy*/) {
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
bool MotionGpu::zeroCopy() const noexcept { return false; }

#endif

std::uint64_t MotionGpu::replays() const noexcept { return m_impl->replays; }

}  // namespace augur::runtime::detail
