// CUDA path of FlockFinder for a batch of steps: the potential-flock stage (seeds/002 §4.1–4.2) here,
// then the intersection stage (cuda_window.cu) on the families this stage leaves on the device.
//
// Layers: CudaBatchStage::run (host API) → enqueueKernels (dispatch: fixed launch shapes from
// tuning.hpp, CUB scans) → thin __global__ entries → the device functions of geometry.hpp, shared with
// the CPU reference. Every kernel is a grid-stride loop over a capacity-sized index space and reads the
// batch's step and entity counts from device memory, so the whole sequence is one CUDA graph.
// Sizes are found by counting passes and prefix sums (cub::DeviceScan) into pools reserved at init;
// a pool that is too small is detected on the device, reported in the batch header and never overrun.
#include "cuda_batch.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <new>

#include "augur/platform/clock.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"
#include "cuda_launch.cuh"
#include "device_sets.cuh"
#include "tuning.hpp"

namespace augur::kernels::flock::detail {

namespace {

using platform::DeviceBuffer;
using platform::GpuError;
using platform::GpuStatus;
using platform::StreamHandle;

/// The batch's actual sizes, uploaded with the positions (graph replays read them from here).
struct BatchParams {
    int steps;
    int entities;
};

/// What the host needs back: totals from the counting passes and the first capacity that ran out.
struct BatchHeader {
    long long disks;
    long long candidateMembers;
    long long keptSets;
    long long keptMembers;
    long long needed;
    int potentialWindows;  ///< Σ |F_t| over the steps that start a window of the batch
    int potentialAll;      ///< … over all steps of the batch
    int overflow;          ///< a Capacity value
    int invalid;           ///< non-zero: a present sample was not finite
};

/// Everything the kernels read or write, by pointer, plus the capacities.
struct Pools {
    const BatchParams* params;
    const double* x;
    const double* y;
    unsigned char* present;
    StepGrid* grids;
    int* cellCount;
    int* cellStart;
    int* pointCell;
    int* sortedId;
    int* sortedSample;  ///< slot → the sample (step · entities + entity) placed there
    double* sortedX;
    double* sortedY;
    long long* pairCount;
    long long* pairStart;
    int* diskAnchor;
    DiskOffset* diskOffset;
    long long* diskSize;
    long long* diskMemberStart;
    unsigned long long* diskSignature;
    int* members;
    Count2* kept;       ///< per disk: (1, size) when its set is maximal in its step, else 0
    Count2* keptStart;  ///< exclusive prefix sum of kept
    long long* familyOffsets;
    int* familyMembers;
    int* familyStep;
    unsigned long long* familySignature;
    int* stepBegin;
    int* invalid;
    BatchHeader* header;
    // capacities
    int maxSteps;
    int maxEntities;
    int cellsPerStep;
    int sideCap;
    long long maxDisks;
    long long maxMembers;
    long long maxSets;
    long long maxFamilyMembers;
    int minEntities;
    int delta;
    Limits limits;
};

__device__ __forceinline__ long long strideStart() { return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long strideStep() { return static_cast<long long>(gridDim.x) * blockDim.x; }

/// Visits the sorted slots of the 5 × 5 (coarse grids: 3 × 3) cells around `cell` (a global cell index) of step `step`.
template <typename Visit>
__device__ void forNeighbours(const Pools& p, int step, int cell, Visit&& visit) {
    const StepGrid grid = p.grids[step];
    const int base = step * p.cellsPerStep;
    const int local = cell - base;
    const int cx = local % grid.side;
    const int cy = local / grid.side;
    const int y0 = max(cy - grid.reach, 0);
    const int y1 = min(cy + grid.reach, grid.side - 1);
    const int x0 = max(cx - grid.reach, 0);
    const int x1 = min(cx + grid.reach, grid.side - 1);
    for (int y = y0; y <= y1; ++y) {
        const int row = base + y * grid.side;
        const int end = p.cellStart[row + x1 + 1];
        for (int k = p.cellStart[row + x0]; k < end; ++k) {
            visit(k);
        }
    }
}

__device__ __forceinline__ bool activeSample(const Pools& p, long long k) {
    const BatchParams bp = *p.params;
    return k < static_cast<long long>(bp.steps) * bp.entities && p.present[k] != 0;
}

// Input check on the device: a present sample that is not finite is flagged (the batch is then
// reported as invalid input) and treated as missing, so the kernels after this one stay well defined.
__global__ void validateKernel(Pools p) {
    const BatchParams bp = *p.params;
    const long long total = static_cast<long long>(bp.steps) * bp.entities;
    for (long long k = strideStart(); k < total; k += strideStep()) {
        if (p.present[k] != 0 && !(isfinite(p.x[k]) && isfinite(p.y[k]))) {
            p.present[k] = 0;
            *p.invalid = 1;
        }
    }
}

// §4.1: the grid of each step: bounding box of its present points (one block per step).
__global__ void stepGridKernel(Pools p) {
    __shared__ double lo[2][tuning::REDUCE_BLOCK];
    __shared__ double hi[2][tuning::REDUCE_BLOCK];
    const BatchParams bp = *p.params;
    const int step = blockIdx.x;
    double minX = INFINITY, minY = INFINITY, maxX = -INFINITY, maxY = -INFINITY;
    if (step < bp.steps) {
        const long long base = static_cast<long long>(step) * bp.entities;
        for (int i = threadIdx.x; i < bp.entities; i += blockDim.x) {
            if (p.present[base + i] != 0) {
                minX = fmin(minX, p.x[base + i]);
                maxX = fmax(maxX, p.x[base + i]);
                minY = fmin(minY, p.y[base + i]);
                maxY = fmax(maxY, p.y[base + i]);
            }
        }
    }
    lo[0][threadIdx.x] = minX;
    lo[1][threadIdx.x] = minY;
    hi[0][threadIdx.x] = maxX;
    hi[1][threadIdx.x] = maxY;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) {
            lo[0][threadIdx.x] = fmin(lo[0][threadIdx.x], lo[0][threadIdx.x + s]);
            lo[1][threadIdx.x] = fmin(lo[1][threadIdx.x], lo[1][threadIdx.x + s]);
            hi[0][threadIdx.x] = fmax(hi[0][threadIdx.x], hi[0][threadIdx.x + s]);
            hi[1][threadIdx.x] = fmax(hi[1][threadIdx.x], hi[1][threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        p.grids[step] = makeStepGrid(lo[0][0], hi[0][0], lo[1][0], hi[1][0], p.limits.cellMin_m, p.sideCap);
    }
}

// §4.1 counting pass: points per cell (atomics).
__global__ void countCellsKernel(Pools p) {
    const BatchParams bp = *p.params;
    const long long total = static_cast<long long>(p.maxSteps) * p.maxEntities;
    for (long long k = strideStart(); k < total; k += strideStep()) {
        if (!activeSample(p, k)) {
            p.pointCell[k] = -1;
            continue;
        }
        const int step = static_cast<int>(k / bp.entities);
        const StepGrid grid = p.grids[step];
        const int cx = cellCoordinate(p.x[k], grid.minX_m, grid.cell_m, grid.side);
        const int cy = cellCoordinate(p.y[k], grid.minY_m, grid.cell_m, grid.side);
        const int cell = step * p.cellsPerStep + cy * grid.side + cx;
        p.pointCell[k] = cell;
        atomicAdd(&p.cellCount[cell], 1);
    }
}

// §4.1 placement pass: each point into its cell's range. The slot within the cell comes from counting
// the cell's count back down (atomics), so the counts are spent here instead of copied to a fill array.
__global__ void placeKernel(Pools p) {
    const BatchParams bp = *p.params;
    const long long total = static_cast<long long>(p.maxSteps) * p.maxEntities;
    for (long long k = strideStart(); k < total; k += strideStep()) {
        const int cell = p.pointCell[k];
        if (cell < 0) {
            continue;
        }
        const int slot = p.cellStart[cell] + atomicSub(&p.cellCount[cell], 1) - 1;
        p.sortedId[slot] = static_cast<int>(k % bp.entities);
        p.sortedSample[slot] = static_cast<int>(k);
        p.sortedX[slot] = p.x[k];
        p.sortedY[slot] = p.y[k];
    }
}

// §4.2: pairs at distance ≤ 2ε with a higher entity index — counted (emit = false) or written. The
// anchors are taken in slot order (cell by cell), so a warp's lanes search the same or adjacent
// neighbourhoods; each anchor's pairs are still counted and written at its sample index, in the order
// its neighbourhood is visited.
template <bool EMIT>
__global__ void pairKernel(Pools p) {
    const BatchParams bp = *p.params;
    if (!EMIT) {  // samples that are not placed have no pairs; the entry past the last closes the scan
        const long long total = static_cast<long long>(p.maxSteps) * p.maxEntities + 1;
        for (long long k = strideStart(); k < total; k += strideStep()) {
            if (!activeSample(p, k)) {
                p.pairCount[k] = 0;
            }
        }
    }
    const int placed = p.cellStart[static_cast<long long>(p.maxSteps) * p.cellsPerStep];
    for (long long j = strideStart(); j < placed; j += strideStep()) {
        const int k = p.sortedSample[j];
        const int step = k / bp.entities;
        const int a = k - step * bp.entities;
        const double ax = p.sortedX[j];
        const double ay = p.sortedY[j];
        long long d = EMIT ? p.pairStart[k] : 0;
        forNeighbours(p, step, p.pointCell[k], [&](int slot) {
            if (p.sortedId[slot] <= a) {
                return;
            }
            const double dx = subRn(p.sortedX[slot], ax);
            const double dy = subRn(p.sortedY[slot], ay);
            if (squaredNorm(dx, dy) > p.limits.pair2) {
                return;
            }
            if (EMIT && d < p.maxDisks) {
                p.diskAnchor[d] = k;
                p.diskOffset[d] = rightDiskOffset(dx, dy, p.limits.radius2);
            }
            ++d;
        });
        if (!EMIT) {
            p.pairCount[k] = d;
        }
    }
}

__device__ __forceinline__ long long diskTotal(const Pools& p) {
    return p.pairStart[static_cast<long long>(p.maxSteps) * p.maxEntities];
}

// §4.2: points per disk (through the grid); disks with fewer than μ points count as 0.
__global__ void diskCountKernel(Pools p) {
    const BatchParams bp = *p.params;
    const long long disks = diskTotal(p);
    const long long live = disks <= p.maxDisks ? disks : 0;  // on overflow nothing further is computed
    for (long long d = strideStart(); d <= p.maxDisks; d += strideStep()) {
        if (d >= live) {
            p.diskSize[d] = 0;
            continue;
        }
        const int k = p.diskAnchor[d];
        const int step = k / bp.entities;
        const double ax = p.x[k];
        const double ay = p.y[k];
        const DiskOffset offset = p.diskOffset[d];
        long long count = 0;
        forNeighbours(p, step, p.pointCell[k], [&](int slot) {
            if (insideDisk(subRn(p.sortedX[slot], ax), subRn(p.sortedY[slot], ay), offset, p.limits.member2)) {
                ++count;
            }
        });
        p.diskSize[d] = count >= p.minEntities ? count : 0;
    }
}

// §4.2: the members of each potential flock, sorted ascending, and their signature.
__global__ void memberKernel(Pools p) {
    const BatchParams bp = *p.params;
    for (long long d = strideStart(); d < p.maxDisks; d += strideStep()) {
        const long long size = p.diskSize[d];
        const long long start = p.diskMemberStart[d];
        if (size == 0 || start + size > p.maxMembers) {
            continue;
        }
        const int k = p.diskAnchor[d];
        const int step = k / bp.entities;
        const double ax = p.x[k];
        const double ay = p.y[k];
        const DiskOffset offset = p.diskOffset[d];
        int* set = p.members + start;
        long long count = 0;
        forNeighbours(p, step, p.pointCell[k], [&](int slot) {
            if (insideDisk(subRn(p.sortedX[slot], ax), subRn(p.sortedY[slot], ay), offset, p.limits.member2)) {
                // insertion into the sorted prefix
                const int id = p.sortedId[slot];
                long long j = count++;
                while (j > 0 && set[j - 1] > id) {
                    set[j] = set[j - 1];
                    --j;
                }
                set[j] = id;
            }
        });
        p.diskSignature[d] = signatureOf(set, size);
    }
}

// Maximal sets of each step's family: a disk's set is dropped when a disk anchored near it holds a
// strict superset, or the same set with a lower disk index (the rule of the CPU reference).
__global__ void maximalKernel(Pools p) {
    const BatchParams bp = *p.params;
    const bool valid = p.diskMemberStart[p.maxDisks] <= p.maxMembers;
    for (long long d = strideStart(); d <= p.maxDisks; d += strideStep()) {
        const long long size = d < p.maxDisks ? p.diskSize[d] : 0;
        if (!valid || size == 0) {
            p.kept[d] = Count2{0, 0};
            continue;
        }
        const int k = p.diskAnchor[d];
        const int step = k / bp.entities;
        const long long stepBase = static_cast<long long>(step) * bp.entities;
        const int* set = p.members + p.diskMemberStart[d];
        const unsigned long long signature = p.diskSignature[d];
        bool dominated = false;
        forNeighbours(p, step, p.pointCell[k], [&](int slot) {
            const long long kb = stepBase + p.sortedId[slot];
            const long long end = p.pairStart[kb + 1];
            for (long long e = p.pairStart[kb]; e < end && !dominated; ++e) {
                const long long other = p.diskSize[e];
                if (e == d || other < size || (signature & ~p.diskSignature[e]) != 0) {
                    continue;
                }
                const bool subset = isSubset(set, size, p.members + p.diskMemberStart[e], other);
                dominated = other == size ? (e < d && subset) : subset;
            }
        });
        p.kept[d] = dominated ? Count2{0, 0} : Count2{1, size};
    }
}

// Compaction of the kept sets into the batch families (disk order, hence step order), with each set's
// step and signature for the intersection stage.
__global__ void compactKernel(Pools p) {
    for (long long d = strideStart(); d < p.maxDisks; d += strideStep()) {
        const long long size = p.kept[d].members;
        if (size == 0) {
            continue;
        }
        const long long s = p.keptStart[d].sets;
        const long long m = p.keptStart[d].members;
        if (s >= p.maxSets || m + size > p.maxFamilyMembers) {
            continue;
        }
        p.familyOffsets[s] = m;
        p.familyStep[s] = p.diskAnchor[d] / p.params->entities;
        p.familySignature[s] = p.diskSignature[d];
        const int* from = p.members + p.diskMemberStart[d];
        for (long long i = 0; i < size; ++i) {
            p.familyMembers[m + i] = from[i];
        }
    }
}

__global__ void stepBeginKernel(Pools p) {
    const BatchParams bp = *p.params;
    for (long long t = strideStart(); t <= bp.steps; t += strideStep()) {
        const long long firstDisk = min(p.pairStart[t * bp.entities], p.maxDisks);
        p.stepBegin[t] = static_cast<int>(p.keptStart[firstDisk].sets);
    }
}

__global__ void headerKernel(Pools p) {
    if (strideStart() != 0) {
        return;
    }
    const BatchParams bp = *p.params;
    BatchHeader h{};
    h.invalid = *p.invalid;
    h.disks = diskTotal(p);
    h.candidateMembers = p.diskMemberStart[p.maxDisks];
    h.keptSets = p.keptStart[p.maxDisks].sets;
    h.keptMembers = p.keptStart[p.maxDisks].members;
    h.overflow = static_cast<int>(Capacity::None);
    if (h.disks > p.maxDisks) {
        h.overflow = static_cast<int>(Capacity::DisksPerBatch);
        h.needed = h.disks;
    } else if (h.candidateMembers > p.maxMembers) {
        h.overflow = static_cast<int>(Capacity::CandidateMembersPerBatch);
        h.needed = h.candidateMembers;
    } else if (h.keptSets > p.maxSets) {
        h.overflow = static_cast<int>(Capacity::FamilySetsPerBatch);
        h.needed = h.keptSets;
    } else if (h.keptMembers > p.maxFamilyMembers) {
        h.overflow = static_cast<int>(Capacity::FamilyMembersPerBatch);
        h.needed = h.keptMembers;
    } else {
        p.familyOffsets[h.keptSets] = h.keptMembers;
        h.potentialWindows = p.stepBegin[max(bp.steps - p.delta + 1, 0)];
        h.potentialAll = p.stepBegin[bp.steps];
    }
    *p.header = h;
}

template <typename T>
Result<DeviceBuffer<T>, GpuError> buffer(long long count) {
    return DeviceBuffer<T>::create(static_cast<std::size_t>(std::max(count, 1LL)));
}

}  // namespace

struct CudaBatchStage::State {
    FlockParams params;
    FlockCapacities capacities;
    Pools pools{};
    int gridBlocks{1};
    int block{tuning::BLOCK};
    bool useGraph{false};
    long long cells{0};
    long long samples{0};

    platform::PinnedMemory hostX, hostY, hostPresent, hostParams, hostHeader;
    DeviceBuffer<double> x, y, sortedX, sortedY;
    DeviceBuffer<unsigned char> present;
    DeviceBuffer<BatchParams> batchParams;
    DeviceBuffer<StepGrid> grids;
    DeviceBuffer<int> invalid, cellCount, cellStart, pointCell, sortedId, sortedSample, diskAnchor, members, familyMembers, familyStep,
        stepBegin;
    DeviceBuffer<long long> pairCount, pairStart, diskSize, diskMemberStart, familyOffsets;
    DeviceBuffer<Count2> kept, keptStart;
    DeviceBuffer<DiskOffset> diskOffset;
    DeviceBuffer<unsigned long long> diskSignature, familySignature;
    DeviceBuffer<BatchHeader> header;
    PrefixSums sums;
    platform::Stream captureStream;
    platform::Graph graph;
    platform::Event started, potentialDone, intersectDone;
    std::unique_ptr<CudaWindowStage> window;

    /// The batch's input: `samples` samples from the pinned staging (host input) or from device memory.
    /// Not part of the graph (device input comes from the caller's buffers).
    GpuStatus enqueueUpload(const TrajectoryView& view, bool onDevice, long long first, long long samples, StreamHandle stream) {
        const auto n = static_cast<std::size_t>(samples);
        AUGUR_CUDA_TRY(platform::copyToDevice(batchParams.data(), hostParams.get(), sizeof(BatchParams), stream));
        if (n == 0) {
            return {};
        }
        if (!onDevice) {
            AUGUR_CUDA_TRY(platform::copyToDevice(x.data(), hostX.get(), n * sizeof(double), stream));
            AUGUR_CUDA_TRY(platform::copyToDevice(y.data(), hostY.get(), n * sizeof(double), stream));
            return platform::copyToDevice(present.data(), hostPresent.get(), n, stream);
        }
        AUGUR_CUDA_TRY(platform::copyDeviceToDevice(x.data(), view.x_m + first, n * sizeof(double), stream));
        AUGUR_CUDA_TRY(platform::copyDeviceToDevice(y.data(), view.y_m + first, n * sizeof(double), stream));
        if (view.present != nullptr) {
            return platform::copyDeviceToDevice(present.data(), view.present + first, n, stream);
        }
        return platform::fillDevice(present.data(), 1, n, stream);
    }

    /// The potential stage's kernels and its header download. Graph-capturable.
    GpuStatus enqueueKernels(StreamHandle stream) {
        const Pools& p = pools;
        const LaunchDims dims{gridBlocks, block};
        AUGUR_CUDA_TRY(platform::fillDevice(cellCount.data(), 0, cellCount.bytes(), stream));
        AUGUR_CUDA_TRY(platform::fillDevice(invalid.data(), 0, sizeof(int), stream));
        AUGUR_CUDA_TRY(launch(validateKernel, dims, stream, p));
        AUGUR_CUDA_TRY(launch(stepGridKernel, LaunchDims{p.maxSteps, tuning::REDUCE_BLOCK}, stream, p));
        // §4.1 the multi-grid: points per cell → cell ranges → placement.
        AUGUR_CUDA_TRY(countScanWrite(
            sums, [&] { return launch(countCellsKernel, dims, stream, p); }, p.cellCount, p.cellStart, cells + 1,
            [&] { return launch(placeKernel, dims, stream, p); }, stream));
        // §4.2 Lemma-3 disks: pairs per point → disk slots → emission.
        AUGUR_CUDA_TRY(countScanWrite(
            sums, [&] { return launch(pairKernel<false>, dims, stream, p); }, p.pairCount, p.pairStart, samples + 1,
            [&] { return launch(pairKernel<true>, dims, stream, p); }, stream));
        // Points per disk → member slots → sorted members.
        AUGUR_CUDA_TRY(countScanWrite(
            sums, [&] { return launch(diskCountKernel, dims, stream, p); }, p.diskSize, p.diskMemberStart, p.maxDisks + 1,
            [&] { return launch(memberKernel, dims, stream, p); }, stream));
        // Maximal sets of each step → family slots → compaction.
        AUGUR_CUDA_TRY(countScanWrite(
            sums, [&] { return launch(maximalKernel, dims, stream, p); }, p.kept, p.keptStart, p.maxDisks + 1,
            [&] { return launch(compactKernel, dims, stream, p); }, stream));
        AUGUR_CUDA_TRY(launch(stepBeginKernel, dims, stream, p));
        AUGUR_CUDA_TRY(launch(headerKernel, LaunchDims{1, WARP_THREADS}, stream, p));
        return platform::copyToHost(hostHeader.get(), header.data(), sizeof(BatchHeader), stream);
    }
};

CudaBatchStage::CudaBatchStage(std::unique_ptr<State> state) noexcept : m_state(std::move(state)) {}
CudaBatchStage::~CudaBatchStage() = default;

Result<std::unique_ptr<CudaBatchStage>, FlockFailure> CudaBatchStage::create(const FlockParams& params, const Limits& limits,
                                                                                     const FlockCapacities& capacities,
                                                                                     bool useGraph, const LaunchShape& shape) {
    FlockFailure failure;
    failure.error = FlockError::Gpu;
    const auto gpuFailure = [&failure](const GpuError& error) {
        failure.gpu = error;
        return failure;
    };
    auto state = std::make_unique<State>();
    State& s = *state;
    s.params = params;
    s.capacities = capacities;
    s.useGraph = useGraph;
    const int sideCap = std::max(1, static_cast<int>(std::floor(std::sqrt(static_cast<double>(capacities.gridCellsPerStep)))));
    const long long steps = capacities.maxBatchSteps;
    const long long entities = capacities.maxEntities;
    s.samples = steps * entities;
    s.cells = steps * static_cast<long long>(sideCap) * sideCap;
    if (s.cells > (1LL << 30)) {
        failure.error = FlockError::InvalidParams;
        return fail(failure);
    }
    const long long disks = capacities.maxDisksPerBatch;

    int device = 0;
    int multiprocessors = 1;
    if (const auto st = AUGUR_CUDA_CHECK(cudaGetDevice(&device)); !st) {
        return fail(gpuFailure(st.error()));
    }
    if (const auto st = AUGUR_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device)); !st) {
        return fail(gpuFailure(st.error()));
    }
    s.gridBlocks = multiprocessors * shape.blocksPerSm;
    s.block = shape.block;

#define AUGUR_FLOCK_ALLOC(target, expr)          \
    do {                                         \
        auto made = (expr);                      \
        if (!made) {                             \
            return fail(gpuFailure(made.error())); \
        }                                        \
        target = std::move(made).value();        \
    } while (false)

    AUGUR_FLOCK_ALLOC(s.hostX, platform::PinnedMemory::allocate(static_cast<std::size_t>(s.samples) * sizeof(double), false));
    AUGUR_FLOCK_ALLOC(s.hostY, platform::PinnedMemory::allocate(static_cast<std::size_t>(s.samples) * sizeof(double), false));
    AUGUR_FLOCK_ALLOC(s.hostPresent, platform::PinnedMemory::allocate(static_cast<std::size_t>(s.samples), false));
    AUGUR_FLOCK_ALLOC(s.hostParams, platform::PinnedMemory::allocate(sizeof(BatchParams), false));
    AUGUR_FLOCK_ALLOC(s.hostHeader, platform::PinnedMemory::allocate(sizeof(BatchHeader), false));
    AUGUR_FLOCK_ALLOC(s.x, buffer<double>(s.samples));
    AUGUR_FLOCK_ALLOC(s.y, buffer<double>(s.samples));
    AUGUR_FLOCK_ALLOC(s.present, buffer<unsigned char>(s.samples));
    AUGUR_FLOCK_ALLOC(s.batchParams, buffer<BatchParams>(1));
    AUGUR_FLOCK_ALLOC(s.grids, buffer<StepGrid>(steps));
    AUGUR_FLOCK_ALLOC(s.cellCount, buffer<int>(s.cells + 1));
    AUGUR_FLOCK_ALLOC(s.cellStart, buffer<int>(s.cells + 1));
    AUGUR_FLOCK_ALLOC(s.pointCell, buffer<int>(s.samples));
    AUGUR_FLOCK_ALLOC(s.sortedId, buffer<int>(s.samples));
    AUGUR_FLOCK_ALLOC(s.sortedSample, buffer<int>(s.samples));
    AUGUR_FLOCK_ALLOC(s.sortedX, buffer<double>(s.samples));
    AUGUR_FLOCK_ALLOC(s.sortedY, buffer<double>(s.samples));
    AUGUR_FLOCK_ALLOC(s.pairCount, buffer<long long>(s.samples + 1));
    AUGUR_FLOCK_ALLOC(s.pairStart, buffer<long long>(s.samples + 1));
    AUGUR_FLOCK_ALLOC(s.diskAnchor, buffer<int>(disks));
    AUGUR_FLOCK_ALLOC(s.diskOffset, buffer<DiskOffset>(disks));
    AUGUR_FLOCK_ALLOC(s.diskSize, buffer<long long>(disks + 1));
    AUGUR_FLOCK_ALLOC(s.diskMemberStart, buffer<long long>(disks + 1));
    AUGUR_FLOCK_ALLOC(s.diskSignature, buffer<unsigned long long>(disks));
    AUGUR_FLOCK_ALLOC(s.members, buffer<int>(capacities.maxCandidateMembersPerBatch));
    AUGUR_FLOCK_ALLOC(s.kept, buffer<Count2>(disks + 1));
    AUGUR_FLOCK_ALLOC(s.keptStart, buffer<Count2>(disks + 1));
    AUGUR_FLOCK_ALLOC(s.familyOffsets, buffer<long long>(capacities.maxFamilySetsPerBatch + 1));
    AUGUR_FLOCK_ALLOC(s.familyMembers, buffer<int>(capacities.maxFamilyMembersPerBatch));
    AUGUR_FLOCK_ALLOC(s.familyStep, buffer<int>(capacities.maxFamilySetsPerBatch));
    AUGUR_FLOCK_ALLOC(s.familySignature, buffer<unsigned long long>(capacities.maxFamilySetsPerBatch));
    AUGUR_FLOCK_ALLOC(s.stepBegin, buffer<int>(steps + 1));
    AUGUR_FLOCK_ALLOC(s.header, buffer<BatchHeader>(1));
    AUGUR_FLOCK_ALLOC(s.invalid, buffer<int>(1));
    AUGUR_FLOCK_ALLOC(s.started, platform::Event::create(true));
    AUGUR_FLOCK_ALLOC(s.potentialDone, platform::Event::create(true));
    AUGUR_FLOCK_ALLOC(s.intersectDone, platform::Event::create(true));

    // One scan scratch, as large as the largest scan needs.
    for (const auto& st : {s.sums.require(s.cellCount.data(), s.cellStart.data(), s.cells + 1),
                           s.sums.require(s.pairCount.data(), s.pairStart.data(), s.samples + 1),
                           s.sums.require(s.diskSize.data(), s.diskMemberStart.data(), disks + 1),
                           s.sums.require(s.kept.data(), s.keptStart.data(), disks + 1), s.sums.allocate()}) {
        if (!st) {
            return fail(gpuFailure(st.error()));
        }
    }

    Pools& p = s.pools;
    p.params = s.batchParams.data();
    p.x = s.x.data();
    p.y = s.y.data();
    p.present = s.present.data();
    p.grids = s.grids.data();
    p.cellCount = s.cellCount.data();
    p.cellStart = s.cellStart.data();
    p.pointCell = s.pointCell.data();
    p.sortedId = s.sortedId.data();
    p.sortedSample = s.sortedSample.data();
    p.sortedX = s.sortedX.data();
    p.sortedY = s.sortedY.data();
    p.pairCount = s.pairCount.data();
    p.pairStart = s.pairStart.data();
    p.diskAnchor = s.diskAnchor.data();
    p.diskOffset = s.diskOffset.data();
    p.diskSize = s.diskSize.data();
    p.diskMemberStart = s.diskMemberStart.data();
    p.diskSignature = s.diskSignature.data();
    p.members = s.members.data();
    p.kept = s.kept.data();
    p.keptStart = s.keptStart.data();
    p.familyOffsets = s.familyOffsets.data();
    p.familyMembers = s.familyMembers.data();
    p.familyStep = s.familyStep.data();
    p.familySignature = s.familySignature.data();
    p.stepBegin = s.stepBegin.data();
    p.header = s.header.data();
    p.maxSteps = static_cast<int>(steps);
    p.maxEntities = static_cast<int>(entities);
    p.cellsPerStep = sideCap * sideCap;
    p.sideCap = sideCap;
    p.maxDisks = disks;
    p.maxMembers = capacities.maxCandidateMembersPerBatch;
    p.maxSets = capacities.maxFamilySetsPerBatch;
    p.maxFamilyMembers = capacities.maxFamilyMembersPerBatch;
    p.minEntities = params.minEntities;
    p.delta = params.windowSteps;
    p.invalid = s.invalid.data();
    p.limits = limits;

    if (useGraph) {
        AUGUR_FLOCK_ALLOC(s.captureStream, platform::Stream::create());
        State* raw = &s;
        AUGUR_FLOCK_ALLOC(s.graph, platform::Graph::capture(s.captureStream.get(), [raw](StreamHandle stream) {
                              return raw->enqueueKernels(stream);
                          }));
    }
    DeviceFamilies families;
    families.offsets = s.familyOffsets.data();
    families.members = s.familyMembers.data();
    families.step = s.familyStep.data();
    families.signature = s.familySignature.data();
    families.stepBegin = s.stepBegin.data();
    families.steps = reinterpret_cast<const int*>(reinterpret_cast<const char*>(s.batchParams.data()) + offsetof(BatchParams, steps));
    families.upstreamOverflow =
        reinterpret_cast<const int*>(reinterpret_cast<const char*>(s.header.data()) + offsetof(BatchHeader, overflow));
    families.maxSets = capacities.maxFamilySetsPerBatch;
    // The intersection kernels get as many threads per SM as the others, in blocks of shape.windowBlock.
    const int windowGrid = std::max(1, static_cast<int>(static_cast<long long>(s.gridBlocks) * shape.block / shape.windowBlock));
    auto window = CudaWindowStage::create(params, capacities, families, windowGrid, shape.windowBlock, useGraph);
    if (!window) {
        return fail(window.error());
    }
    s.window = std::move(window).value();
#undef AUGUR_FLOCK_ALLOC
    return Result<std::unique_ptr<CudaBatchStage>, FlockFailure>(std::unique_ptr<CudaBatchStage>(new CudaBatchStage(std::move(state))));
}

Result<BatchResult, GpuError> CudaBatchStage::run(const TrajectoryView& view, bool onDevice, int firstStep, int steps,
                                                  StreamHandle stream) noexcept {
    State& s = *m_state;
    const long long n = view.entityCount;
    const long long samples = static_cast<long long>(steps) * n;
    const long long first = static_cast<long long>(firstStep) * n;
    auto* params = static_cast<BatchParams*>(s.hostParams.get());
    params->steps = steps;
    params->entities = view.entityCount;
    if (samples > 0 && !onDevice) {  // with no entities the view's pointers may be null
        std::memcpy(s.hostX.get(), view.x_m + first, static_cast<std::size_t>(samples) * sizeof(double));
        std::memcpy(s.hostY.get(), view.y_m + first, static_cast<std::size_t>(samples) * sizeof(double));
        if (view.present != nullptr) {
            std::memcpy(s.hostPresent.get(), view.present + first, static_cast<std::size_t>(samples));
        } else {
            std::memset(s.hostPresent.get(), 1, static_cast<std::size_t>(samples));
        }
    }
    AUGUR_CUDA_TRY(s.started.record(stream));
    AUGUR_CUDA_TRY(s.enqueueUpload(view, onDevice, first, samples, stream));
    if (s.useGraph) {
        AUGUR_CUDA_TRY(s.graph.launch(stream));
    } else {
        AUGUR_CUDA_TRY(s.enqueueKernels(stream));
    }
    AUGUR_CUDA_TRY(s.potentialDone.record(stream));
    AUGUR_CUDA_TRY(s.window->enqueue(stream));
    AUGUR_CUDA_TRY(s.intersectDone.record(stream));
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(cudaStreamSynchronize(stream)));
    const BatchHeader header = *static_cast<const BatchHeader*>(s.hostHeader.get());
    BatchResult result;
    result.disks = header.disks;
    if (header.invalid != 0) {
        result.invalidInput = true;
        return Result<BatchResult, GpuError>(result);
    }
    result.overflow = static_cast<Capacity>(header.overflow);
    result.needed = header.needed;
    if (result.overflow != Capacity::None) {
        return Result<BatchResult, GpuError>(result);
    }
    result.potentialWindows = header.potentialWindows;
    result.potentialAll = header.potentialAll;
    const WindowOutcome outcome = s.window->outcome();
    if (outcome.overflow != Capacity::None) {
        result.overflow = outcome.overflow;
        result.needed = outcome.needed;
        return Result<BatchResult, GpuError>(result);
    }
    const std::int64_t downloadStart = platform::monotonicNow_ns();
    auto flocks = s.window->download(stream);
    if (!flocks) {
        return fail(flocks.error());
    }
    result.flocks = *flocks;
    auto potential = platform::Event::elapsed_ms(s.started, s.potentialDone);
    auto intersect = platform::Event::elapsed_ms(s.potentialDone, s.intersectDone);
    if (potential && intersect) {
        result.potential_us = 1e3 * static_cast<double>(*potential);
        result.intersect_us = 1e3 * static_cast<double>(*intersect) + 1e-3 * static_cast<double>(platform::monotonicNow_ns() - downloadStart);
    }
    return Result<BatchResult, GpuError>(result);
}

}  // namespace augur::kernels::flock::detail
