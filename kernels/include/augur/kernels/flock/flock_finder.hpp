// Maximal-flock detection f(δ, μ, ε) over synchronously sampled trajectories (seeds/002), on the CUDA
// kernels or on the CPU reference, behind one API.
//
//   auto finder = FlockFinder::create(params, capacities, Backend::Cuda);   // init: allocates everything
//   auto list = FlockList::createPinned(maxFlocks, maxMembers);             // init (CUDA downloads into it;
//                                                                           // FlockList::create: pageable)
//   auto stats = finder->find(trajectories, list, stream);                  // run: no allocation, noexcept
//
// Every window j = 0 … τ-δ gets all its maximal flocks, each once, ordered by window then
// lexicographically by sorted members; the two backends return identical lists. Steps are processed in
// batches of maxBatchSteps (consecutive batches overlap by δ-1 steps). Per batch: the potential flocks
// of every step (grid, Lemma-3 disks, counts, maximal sets), then the intersections across each window
// and their maximal sets — all on the GPU for Backend::Cuda (only the batch's flocks come back to the
// host), on all CPU workers for Backend::Cpu. With the input already on the device (the runtime's
// track history), Backend::Cuda also takes it from there: findOnDevice.
#pragma once

#include <memory>

#include "augur/kernels/backend.hpp"
#include "augur/kernels/flock/flock_types.hpp"
#include "augur/platform/stream.hpp"

namespace augur::kernels::flock {

struct FlockOptions {
    /// CUDA backend: replay the per-batch kernel sequences as CUDA graphs captured at init.
    bool useGraph{false};
    /// CUDA launch shapes, for tuning experiments (augur-bench-flock --sweep); 0 takes the
    /// per-architecture value of kernels/flock/tuning.hpp. Threads: a multiple of 32 in [32, 1024].
    int blockThreads{0};             ///< per-step kernels of the potential stage (one block per step; at most 1,024)
    int blocksPerMultiprocessor{0};  ///< grid-stride grid: this many blocks of blockThreads per SM
    int windowBlockThreads{0};       ///< intersection-stage kernels (same threads per SM in total)
    /// Per-step kernel: blocks sharing one SM, each with the SM's shared memory divided by this (0: tuning).
    int stepBlocksPerMultiprocessor{0};
    /// Per-step kernel: shared memory per block in bytes instead (0: from stepBlocksPerMultiprocessor),
    /// at most what the device allows. A step that needs more (points, grid, disks, members) is worked
    /// again by a second kernel — in the largest shared memory a block may have, and when that is too
    /// small, in a global-memory workspace — with the same results.
    int stepSharedBytes{0};
    /// Global-memory workspaces (one block each) for those steps (0: tuning, per SM).
    int workspaceBlocks{0};
    /// Whether the second kernel tries the largest shared memory first (false: global workspaces only,
    /// e.g. to test that path).
    bool fallbackInSharedMemory{true};
    /// A step that does not fit is worked in place by the per-step kernel, in a global workspace, when
    /// at least this many waves of that kernel's resident blocks follow it; later ones go to the second
    /// kernel (-1: tuning; 0: every such step in place while a workspace is free).
    int inPlaceWaves{-1};
};

/// Host memory FlockFinder::create() reserves, in bytes: `shared_bytes` once and `perWorker_bytes` for
/// each CPU worker thread. Most of it is reserved, not touched: pages a run does not reach cost nothing
/// on an operating system that commits lazily, so this is an upper bound of what a run makes resident.
struct FlockHostMemory {
    double shared_bytes{0.0};
    double perWorker_bytes{0.0};  ///< Backend::Cpu; 0 for Backend::Cuda
    [[nodiscard]] double total(int workers) const noexcept { return shared_bytes + perWorker_bytes * workers; }
};

class FlockFinder {
public:
    /// The host memory create() would reserve for these parameters and capacities (workers as given by
    /// the caller: FlockHostMemory::total). Backend::Cuda: the pinned input staging of one batch; its
    /// device buffers are not host memory and are not counted. Doubles, so absurd capacities give a large
    /// figure rather than an overflow. noexcept, no allocation, O(1).
    [[nodiscard]] static FlockHostMemory hostMemory(const FlockParams& params, const FlockCapacities& capacities,
                                                    Backend backend) noexcept;

    FlockFinder(FlockFinder&&) noexcept;
    FlockFinder& operator=(FlockFinder&&) noexcept;
    FlockFinder(const FlockFinder&) = delete;
    FlockFinder& operator=(const FlockFinder&) = delete;
    ~FlockFinder();

    /// Validates the parameters and capacities, reserves every buffer (host, pinned and device), starts
    /// the CPU workers and, with options.useGraph, captures the CUDA graph. Init phase.
    /// Errors: InvalidParams, BackendUnavailable, Resources, Gpu.
    [[nodiscard]] static Result<FlockFinder, FlockFailure> create(const FlockParams& params, const FlockCapacities& capacities,
                                                                 Backend backend, const FlockOptions& options = {});

    /// Reports into `out` (cleared first) every maximal flock of every window of `trajectories`.
    /// Run phase: noexcept, allocates nothing, blocks until done (synchronises `stream` on CUDA).
    /// Errors: InvalidInput (sizes over the capacities, null pointers, a present sample that is not
    /// finite), CapacityExceeded (which one, and the size needed; `out` then holds no partial result), Gpu.
    /// Complexity: O(τ · (n + disks · neighbourhood)) for the potential flocks; intersections depend on
    /// the family sizes (CPU: about three pairwise family intersections per window; CUDA: ⌊log₂ δ⌋, plus
    /// one when δ is not a power of two, per window start, by doubling, all of a batch in parallel).
    [[nodiscard]] Result<FlockStats, FlockFailure> find(const TrajectoryView& trajectories, FlockList& out,
                                                        platform::StreamHandle stream) noexcept;

    /// As find(), for trajectories whose arrays (x_m, y_m and, when not null, present) are DEVICE
    /// memory, e.g. the runtime's track history: the kernels read them in place (no copy; they must
    /// not change before the call returns), the input is checked on the device. Backend::Cuda only (BackendUnavailable otherwise). Run phase: noexcept,
    /// allocates nothing, synchronises `stream`.
    [[nodiscard]] Result<FlockStats, FlockFailure> findOnDevice(const TrajectoryView& deviceTrajectories, FlockList& out,
                                                                platform::StreamHandle stream) noexcept;

    [[nodiscard]] const FlockParams& params() const noexcept;
    [[nodiscard]] Backend backend() const noexcept;

    struct Impl;

private:
    explicit FlockFinder(std::unique_ptr<Impl> impl) noexcept;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace augur::kernels::flock
