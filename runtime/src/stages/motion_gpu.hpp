// The CUDA part of the Motion stage: markov::cuda::predict over a DeviceChain on a high-priority
// stream, captured at init into CUDA graphs and replayed each cycle; completion observed by polling an
// event, never by a blocking device synchronise.
//
// Per cycle the host writes the corridor inputs and their centrelines into page-locked staging and
// calls launch(); the graph copies them to the device, propagates, and copies the corridor points and
// the grid back into page-locked results; wait() then polls the completion event.
//
// Variable sizes are data, not graph shape:
// - the grid placement (the ego moves every cycle): the centrelines are staged relative to the grid's
//   origin and the graph is captured with the origin at 0; the points' x / y are shifted back on the host;
// - the corridor count: cuda::predict takes it as a launch dimension, so one graph is captured per
//   bucket of corridor counts (32, 64, 128, … up to the capacity) and the smallest bucket that holds
//   this cycle's corridors is replayed, the rest of the bucket padded with probability-0 corridors
//   (no grid contribution; their points are not read).
//
// On an integrated GPU (Jetson / Drive: one physical memory) the staging and result buffers are mapped
// page-locked memory the kernels read and write directly (zero copy): the graph has no copy nodes.
// Elsewhere they are plain page-locked memory and the graph copies (zero copy over PCIe would make
// every kernel access cross the bus).
//
// Init phase: create() allocates and captures; run phase: stage(), launch(), wait() are noexcept and
// allocation-free. Compiled only with the CUDA backend (AUGUR_HAVE_CUDA); without it create() fails.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "augur/core/result.hpp"
#include "augur/kernels/markov/chain.hpp"
#include "augur/kernels/markov/prediction.hpp"
#include "augur/platform/cuda_check.hpp"

namespace augur::runtime::detail {

class MotionGpu {
public:
    /// Uploads the chain, allocates device and page-locked buffers for `prediction.maxCorridors`
    /// corridors and captures one graph per corridor-count bucket. Init phase; the error says which
    /// step failed.
    /// `zeroCopy`: mapped staging and results addressed by the kernels, no copies (integrated GPUs).
    [[nodiscard]] static Result<std::unique_ptr<MotionGpu>, std::string> create(
        const kernels::markov::MarkovChain& chain, const kernels::markov::PredictionConfig& prediction,
        const kernels::markov::InputDynamics& psi, bool zeroCopy);
    ~MotionGpu();
    MotionGpu(const MotionGpu&) = delete;
    MotionGpu& operator=(const MotionGpu&) = delete;

    /// Page-locked staging the host fills before launch(): corridor inputs [maxCorridors] and the
    /// centrelines [maxCorridors × maxPolylinePoints] relative to the grid origin.
    [[nodiscard]] kernels::markov::CorridorInput* corridors() noexcept;
    [[nodiscard]] float* polyX() noexcept;
    [[nodiscard]] float* polyY() noexcept;
    [[nodiscard]] float* polyS() noexcept;

    /// Pads the staging from `corridorCount` to its bucket and replays that bucket's graph, then
    /// records the completion event. Run phase; a CUDA error is returned.
    [[nodiscard]] platform::GpuStatus launch(int corridorCount) noexcept;

    /// Polls the completion event (sleeping `poll_ns` between queries) until the work is done or
    /// `timeout_ns` has passed. Returns true when done; false on a timeout; a CUDA error as error.
    [[nodiscard]] Result<bool, platform::GpuError> wait(std::int64_t poll_ns, std::int64_t timeout_ns) noexcept;

    /// Results of the last completed launch (page-locked): points [corridor][step] with x / y relative
    /// to the grid origin, and the grid [frame][height × width] (compact rows).
    [[nodiscard]] const CorridorPoint* points() const noexcept;
    [[nodiscard]] const std::uint16_t* grid() const noexcept;

    /// Whether the kernels address the staging and results directly (no copies).
    [[nodiscard]] bool zeroCopy() const noexcept;
    /// Graphs captured at init (one per bucket) and graph replays so far.
    [[nodiscard]] int graphCount() const noexcept;
    [[nodiscard]] std::uint64_t replays() const noexcept;

    struct Impl;

private:
    explicit MotionGpu(std::unique_ptr<Impl> impl) noexcept;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace augur::runtime::detail
