// CUDA path of the intersection stage (seeds/002 §3.1 second step, §4.3) for all windows of a batch.
//
// Layers: CudaWindowStage::enqueue (host API) → enqueueBody (dispatch: fixed launch shapes from
// tuning.hpp, count → scan → write through cuda_launch.cuh) → thin __global__ entries → device set
// operations (device_sets.cuh).
//
// Reuse between overlapping windows by doubling. ⊗ is associative, commutative and idempotent on
// antichains (G ⊗ G = G), so with P^k_t = F_t ⊗ … ⊗ F_{t+k-1} (the maximal flocks of the k steps from
// t), P^{2k}_t = P^k_t ⊗ P^k_{t+k}, and for 2^K ≤ δ < 2^{K+1} the window's flocks are
// M_j = P^{2^K}_j ⊗ P^{2^K}_{j+δ-2^K} (the two halves overlap; idempotence makes that harmless, as in a
// sparse table for range minima). ⌊log₂ δ⌋ levels, plus one when δ is not a power of two, each one ⊗
// per position t for all positions at once — instead of δ − 1 levels. A level computes
// out_t = in_t ⊗ in_{t+shift} for every position t of windows of `length` steps, one block per
// position (the position's other family staged in shared memory when it fits, tuning.hpp):
//   1. count:   one warp per set a of in_t, its lanes over the sets b of in_{t+shift}: how many
//               a ∩ b have ≥ μ members, and their total size (signatures skip disjoint pairs); the
//               position's totals;
//   2. scan:    one block sums the positions' totals (maxBatchSteps + 1 entries, not one per set);
//   3. write:   a block scan of the position's counts gives each a its slots; the same warp writes
//               the intersections in the order of b (ballot + warp scan), sorted, with signatures;
//   4. maximal: one warp per intersection x, its lanes over the (staged) intersections of the same
//               position: x is dropped when one is a strict superset, or the same set at a lower index;
//   5. scan + compact: as 2 and 3, the kept sets become the next level's family, grouped by position.
// Then each window's flocks are ranked lexicographically (one warp per flock), their members
// prefix-summed and written in that order. Every kernel reads the batch's sizes from device memory
// (graph replays), and stops when a pool ran out: the first capacity that ran out is recorded in a
// status word (never overrun) and reported in the header.
#include "cuda_window.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <new>

#include "augur/platform/memory.hpp"
#include "cuda_launch.cuh"
#include "device_sets.cuh"
#include "tuning.hpp"

namespace augur::kernels::flock::detail {

namespace {

using platform::DeviceBuffer;
using platform::GpuError;
using platform::GpuStatus;
using platform::StreamHandle;

/// First capacity that ran out in this batch (0: none).
struct Status {
    int overflow;
    int pad;
    long long needed;
};

/// Header overflow value when the potential stage's families are not valid (it reports why).
constexpr int UPSTREAM = -1;

struct Header {
    long long flocks;
    long long members;
    long long needed;
    int overflow;
    int pad;
};

/// A family spread over the positions of a batch: the sets of position t (the window of the level's
/// length that starts at batch step t) are begin[t] … begin[t+1]).
struct SetsView {
    const long long* offsets;
    const int* members;
    const int* position;  ///< position of each set
    const unsigned long long* signature;
    const int* begin;     ///< positions + 1 entries
};

/// The same, writable.
struct SetsOut {
    long long* offsets;
    int* members;
    int* position;
    unsigned long long* signature;
    int* begin;

    [[nodiscard]] SetsView view() const { return {offsets, members, position, signature, begin}; }
};

/// One ⊗ level: out_t = in_t ⊗ in_{t+shift} for the windows of `length` steps.
struct Level {
    int shift;
    int length;
};

/// The most levels any δ < 2³¹ needs (⌊log₂ δ⌋ ≤ 30, plus one).
constexpr int MAX_LEVELS = 32;

/// Everything every kernel needs.
struct Params {
    const int* steps;
    const int* upstream;
    Status* status;
    Header* header;
    long long candSets;
    long long candMembers;
    long long outSets;
    long long outMembers;
    int maxSteps;  ///< maxBatchSteps: the per-position kernels' grid, and the position scans' range - 1
    int delta;
    int minEntities;
};

__device__ __forceinline__ long long strideStart() { return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long strideStep() { return static_cast<long long>(gridDim.x) * blockDim.x; }

/// A capacity ran out earlier in this batch, or the families are not valid.
__device__ __forceinline__ bool failed(const Params& p) {
    return *static_cast<volatile const int*>(&p.status->overflow) != 0 || *p.upstream != 0;
}

/// Records the first capacity that ran out (later claims lose).
__device__ void claim(const Params& p, int overflow, long long needed) {
    if (atomicCAS(&p.status->overflow, 0, overflow) == 0) {
        p.status->needed = needed;
    }
}

/// Windows of `length` steps that start in the batch.
__device__ __forceinline__ int positionsOf(const Params& p, int length) { return *p.steps - length + 1; }

/// The sets of one position, staged in shared memory when they fit (else read from global memory):
/// the lanes of a warp read 32 different sets at once, which shared memory serves far better.
struct Staged {
    int count;
    int inShared;
    int offsets[tuning::STAGED_SETS + 1];  ///< relative to the first member
    unsigned long long signature[tuning::STAGED_SETS];
    int members[tuning::STAGED_MEMBERS];
};

/// One set, wherever it is.
struct SetRef {
    const int* members;
    long long size;
};

/// Stages the sets first … end - 1 of `v` into `s` when they fit. The whole block calls it.
__device__ void stage(Staged& s, const SetsView& v, int first, int end) {
    const int n = end - first;
    const long long memberBegin = v.offsets[first];
    const long long members = v.offsets[end] - memberBegin;
    const bool fits = n <= tuning::STAGED_SETS && members <= tuning::STAGED_MEMBERS;
    if (threadIdx.x == 0) {
        s.count = n;
        s.inShared = fits ? 1 : 0;
    }
    if (fits) {
        for (int i = threadIdx.x; i <= n; i += blockDim.x) {
            s.offsets[i] = static_cast<int>(v.offsets[first + i] - memberBegin);
        }
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            s.signature[i] = v.signature[first + i];
        }
        for (int i = threadIdx.x; i < members; i += blockDim.x) {
            s.members[i] = v.members[memberBegin + i];
        }
    }
    __syncthreads();
}

__device__ __forceinline__ unsigned long long signatureAt(const Staged& s, const SetsView& v, int first, int j) {
    return s.inShared != 0 ? s.signature[j] : v.signature[first + j];
}

__device__ __forceinline__ SetRef setAt(const Staged& s, const SetsView& v, int first, int j) {
    if (s.inShared != 0) {
        return {s.members + s.offsets[j], s.offsets[j + 1] - s.offsets[j]};
    }
    const long long begin = v.offsets[first + j];
    return {v.members + begin, v.offsets[first + j + 1] - begin};
}

__device__ __forceinline__ int warpInBlock() { return static_cast<int>(threadIdx.x) / WARP_THREADS; }
__device__ __forceinline__ int warpsInBlock() { return static_cast<int>(blockDim.x) / WARP_THREADS; }

// Level step 1 (one block per position t): per set a of in_t (one warp), how many b ∈ in_{t+shift}
// (the lanes; staged) give |a ∩ b| ≥ μ, and their total size; the position's totals. Positions past
// the level's count 0, up to the scan's range (maxSteps + 1 entries).
__global__ void countKernel(Params p, SetsView in, Level level, Count2* counts, Count2* positionCounts) {
    __shared__ Staged other;
    __shared__ unsigned long long sums[2];
    if (failed(p)) {
        return;
    }
    const int t = static_cast<int>(blockIdx.x);
    if (t == 0 && threadIdx.x == 0) {
        positionCounts[p.maxSteps] = Count2{0, 0};
    }
    if (t >= positionsOf(p, level.length)) {
        if (threadIdx.x == 0) {
            positionCounts[t] = Count2{0, 0};
        }
        return;
    }
    if (threadIdx.x < 2) {
        sums[threadIdx.x] = 0;
    }
    const int first = in.begin[t + level.shift];
    stage(other, in, first, in.begin[t + level.shift + 1]);
    const int lane = laneId();
    const int end = in.begin[t + 1];
    for (int a = in.begin[t] + warpInBlock(); a < end; a += warpsInBlock()) {
        const long long beginA = in.offsets[a];
        const int* setA = in.members + beginA;
        const long long sizeA = in.offsets[a + 1] - beginA;
        const unsigned long long sigA = in.signature[a];
        long long sets = 0;
        long long members = 0;
        for (int j = lane; j < other.count; j += WARP_THREADS) {
            if ((sigA & signatureAt(other, in, first, j)) == 0) {
                continue;
            }
            const SetRef b = setAt(other, in, first, j);
            const long long size = intersectionSize(setA, sizeA, b.members, b.size);
            if (size >= p.minEntities) {
                ++sets;
                members += size;
            }
        }
        sets = warpSum(sets);
        members = warpSum(members);
        if (lane == 0) {
            counts[a] = Count2{sets, members};
            atomicAdd(&sums[0], static_cast<unsigned long long>(sets));
            atomicAdd(&sums[1], static_cast<unsigned long long>(members));
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        positionCounts[t] = Count2{static_cast<long long>(sums[0]), static_cast<long long>(sums[1])};
    }
}

// Steps 2 and 5: exclusive prefix sum of the positions' counts (maxSteps + 1 entries; the last is the
// level's total), one block.
__global__ void positionScanKernel(Params p, const Count2* positionCounts, Count2* positionStarts) {
    __shared__ Count2 warpTotals[WARP_THREADS + 1];
    if (failed(p)) {
        return;
    }
    const int n = p.maxSteps + 1;
    Count2 running{0, 0};
    for (int tile = 0; tile < n; tile += blockDim.x) {
        const int i = tile + static_cast<int>(threadIdx.x);
        Count2 tileTotal{0, 0};
        const Count2 before = blockExclusiveSum(i < n ? positionCounts[i] : Count2{0, 0}, warpTotals, tileTotal);
        if (i < n) {
            positionStarts[i] = running + before;
        }
        running = running + tileTotal;
    }
}

/// starts[x] = base + the counts of first … x - 1, for x in first … end - 1 (block scan, tile by tile).
/// The whole block calls it; the starts are visible to the block when it returns.
__device__ void startsWithin(const Count2* counts, int first, int end, Count2 base, Count2* starts, Count2* warpTotals) {
    Count2 running = base;
    for (int tile = first; tile < end; tile += blockDim.x) {
        const int x = tile + static_cast<int>(threadIdx.x);
        Count2 tileTotal{0, 0};
        const Count2 before = blockExclusiveSum(x < end ? counts[x] : Count2{0, 0}, warpTotals, tileTotal);
        if (x < end) {
            starts[x] = running + before;
        }
        running = running + tileTotal;
    }
    __syncthreads();
}

// Level step 3 (one block per position): the intersections into their slots — a's in order, and for
// each a the b's in order, as counted — sorted, with their signatures; the positions' ranges.
__global__ void writeKernel(Params p, SetsView in, Level level, const Count2* counts, Count2* starts, const Count2* positionStarts,
                            SetsOut out) {
    __shared__ Staged other;
    __shared__ Count2 warpTotals[WARP_THREADS + 1];
    if (failed(p)) {
        return;
    }
    const Count2 total = positionStarts[p.maxSteps];
    if (total.sets > p.candSets || total.members > p.candMembers) {
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            const bool sets = total.sets > p.candSets;
            claim(p, static_cast<int>(sets ? Capacity::IntersectSetsPerBatch : Capacity::IntersectMembersPerBatch),
                  sets ? total.sets : total.members);
        }
        return;
    }
    const int positions = positionsOf(p, level.length);
    const int t = static_cast<int>(blockIdx.x);
    if (t >= positions) {
        if (t == positions && threadIdx.x == 0) {
            out.begin[positions] = static_cast<int>(total.sets);
            out.offsets[total.sets] = total.members;
        }
        return;
    }
    const Count2 base = positionStarts[t];
    if (threadIdx.x == 0) {
        out.begin[t] = static_cast<int>(base.sets);
    }
    const int end = in.begin[t + 1];
    startsWithin(counts, in.begin[t], end, base, starts, warpTotals);
    const int first = in.begin[t + level.shift];
    stage(other, in, first, in.begin[t + level.shift + 1]);
    const int lane = laneId();
    const unsigned int lowerLanes = (1U << lane) - 1U;
    for (int a = in.begin[t] + warpInBlock(); a < end; a += warpsInBlock()) {
        if (counts[a].sets == 0) {
            continue;
        }
        const Count2 start = starts[a];
        long long s = start.sets;
        long long m = start.members;
        const long long beginA = in.offsets[a];
        const int* setA = in.members + beginA;
        const long long sizeA = in.offsets[a + 1] - beginA;
        const unsigned long long sigA = in.signature[a];
        for (int chunk = 0; chunk < other.count; chunk += WARP_THREADS) {
            const int j = chunk + lane;
            SetRef b{nullptr, 0};
            long long size = 0;
            if (j < other.count && (sigA & signatureAt(other, in, first, j)) != 0) {
                b = setAt(other, in, first, j);
                size = intersectionSize(setA, sizeA, b.members, b.size);
            }
            const bool kept = size >= p.minEntities;
            const unsigned int ballot = __ballot_sync(FULL_WARP, kept);
            const long long keptSize = kept ? size : 0;
            const long long inclusive = warpInclusiveSum(keptSize);
            if (kept) {
                const long long slot = s + __popc(ballot & lowerLanes);
                const long long at = m + inclusive - keptSize;
                out.offsets[slot] = at;
                out.position[slot] = t;
                out.signature[slot] = writeIntersection(setA, sizeA, b.members, b.size, out.members + at);
            }
            s += __popc(ballot);
            m += __shfl_sync(FULL_WARP, inclusive, WARP_THREADS - 1);
        }
    }
}

// Level step 4 (one block per position, its candidates staged): keep the maximal intersections
// (duplicates: the lowest index), one warp per intersection, lanes over the others; keep[x] = (1,
// size) for a kept set, else 0; the position's totals.
__global__ void maximalKernel(Params p, SetsView cand, int length, Count2* keep, Count2* positionCounts) {
    __shared__ Staged family;
    __shared__ unsigned long long sums[2];
    if (failed(p)) {
        return;
    }
    const int t = static_cast<int>(blockIdx.x);
    if (t == 0 && threadIdx.x == 0) {
        positionCounts[p.maxSteps] = Count2{0, 0};
    }
    if (t >= positionsOf(p, length)) {
        if (threadIdx.x == 0) {
            positionCounts[t] = Count2{0, 0};
        }
        return;
    }
    if (threadIdx.x < 2) {
        sums[threadIdx.x] = 0;
    }
    const int first = cand.begin[t];
    stage(family, cand, first, cand.begin[t + 1]);
    const int lane = laneId();
    const int n = family.count;
    for (int i = warpInBlock(); i < n; i += warpsInBlock()) {
        const SetRef x = setAt(family, cand, first, i);
        const unsigned long long sigX = signatureAt(family, cand, first, i);
        bool dominated = false;
        for (int chunk = 0; chunk < n && !dominated; chunk += WARP_THREADS) {
            const int j = chunk + lane;
            bool covers = false;
            if (j < n && j != i) {
                const SetRef y = setAt(family, cand, first, j);
                if (y.size >= x.size && (sigX & ~signatureAt(family, cand, first, j)) == 0) {
                    const bool subset = isSubset(x.members, x.size, y.members, y.size);
                    covers = y.size == x.size ? (j < i && subset) : subset;
                }
            }
            dominated = __any_sync(FULL_WARP, covers);
        }
        if (lane == 0) {
            keep[first + i] = dominated ? Count2{0, 0} : Count2{1, x.size};
            if (!dominated) {
                atomicAdd(&sums[0], 1ULL);
                atomicAdd(&sums[1], static_cast<unsigned long long>(x.size));
            }
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        positionCounts[t] = Count2{static_cast<long long>(sums[0]), static_cast<long long>(sums[1])};
    }
}

// Level step 6 (one block per position): the kept sets into the next family, one warp per set,
// still grouped by position.
__global__ void compactKernel(Params p, SetsView cand, int length, const Count2* keep, Count2* starts, const Count2* positionStarts,
                              SetsOut out) {
    __shared__ Count2 warpTotals[WARP_THREADS + 1];
    if (failed(p)) {
        return;
    }
    const int positions = positionsOf(p, length);
    const int t = static_cast<int>(blockIdx.x);
    if (t >= positions) {
        if (t == positions && threadIdx.x == 0) {
            const Count2 total = positionStarts[p.maxSteps];
            out.begin[positions] = static_cast<int>(total.sets);
            out.offsets[total.sets] = total.members;
        }
        return;
    }
    const Count2 base = positionStarts[t];
    if (threadIdx.x == 0) {
        out.begin[t] = static_cast<int>(base.sets);
    }
    const int end = cand.begin[t + 1];
    startsWithin(keep, cand.begin[t], end, base, starts, warpTotals);
    const int lane = laneId();
    for (int x = cand.begin[t] + warpInBlock(); x < end; x += warpsInBlock()) {
        const Count2 k = keep[x];
        if (k.sets == 0) {
            continue;
        }
        const Count2 at = starts[x];
        const int* from = cand.members + cand.offsets[x];
        for (long long i = lane; i < k.members; i += WARP_THREADS) {
            out.members[at.members + i] = from[i];
        }
        if (lane == 0) {
            out.offsets[at.sets] = at.members;
            out.position[at.sets] = t;
            out.signature[at.sets] = cand.signature[x];
        }
    }
}

// Output step 1: each flock's lexicographic rank within its window (one warp per flock, lanes over the
// window's flocks; they are distinct) gives its output position.
__global__ void rankKernel(Params p, SetsView cur, long long* outSize, int* outSource, int* outWindow) {
    if (failed(p)) {
        return;
    }
    const long long total = cur.begin[positionsOf(p, p.delta)];
    if (total > p.outSets) {
        if (strideStart() == 0) {
            claim(p, static_cast<int>(Capacity::FlocksPerBatch), total);
        }
        return;
    }
    const int lane = laneId();
    for (long long x = warpStart(); x < total; x += warpStep()) {
        const int w = cur.position[x];
        const long long beginX = cur.offsets[x];
        const int* setX = cur.members + beginX;
        const long long sizeX = cur.offsets[x + 1] - beginX;
        const int first = cur.begin[w];
        const int end = cur.begin[w + 1];
        long long rank = 0;
        for (int y = first + lane; y < end; y += WARP_THREADS) {
            if (y != x && lexLess(cur.members + cur.offsets[y], cur.offsets[y + 1] - cur.offsets[y], setX, sizeX)) {
                ++rank;
            }
        }
        rank = warpSum(rank);
        if (lane == 0) {
            const long long position = first + rank;
            outSize[position] = sizeX;
            outSource[position] = static_cast<int>(x);
            outWindow[position] = w;
        }
    }
    for (long long position = total + strideStart(); position <= p.outSets; position += strideStep()) {
        outSize[position] = 0;
    }
}

// Output step 3: members in output order (offsets are the prefix sum of the sizes); one warp per flock.
__global__ void outputKernel(Params p, SetsView cur, const int* outSource, const long long* outStart, int* outMembers) {
    if (failed(p)) {
        return;
    }
    const long long members = outStart[p.outSets];
    if (members > p.outMembers) {
        if (strideStart() == 0) {
            claim(p, static_cast<int>(Capacity::FlockMembersPerBatch), members);
        }
        return;
    }
    const long long total = cur.begin[positionsOf(p, p.delta)];
    const int lane = laneId();
    for (long long position = warpStart(); position < total; position += warpStep()) {
        const int x = outSource[position];
        const int* from = cur.members + cur.offsets[x];
        const long long size = cur.offsets[x + 1] - cur.offsets[x];
        int* to = outMembers + outStart[position];
        for (long long i = lane; i < size; i += WARP_THREADS) {
            to[i] = from[i];
        }
    }
}

__global__ void headerKernel(Params p, SetsView cur, const long long* outStart) {
    if (strideStart() != 0) {
        return;
    }
    Header h{};
    h.overflow = *p.upstream != 0 ? UPSTREAM : p.status->overflow;
    h.needed = p.status->needed;
    if (h.overflow == 0) {
        h.flocks = cur.begin[positionsOf(p, p.delta)];
        h.members = outStart[p.outSets];
    }
    *p.header = h;
}

template <typename T>
Result<DeviceBuffer<T>, GpuError> buffer(long long count) {
    return DeviceBuffer<T>::create(static_cast<std::size_t>(std::max(count, 1LL)));
}

/// Device storage of one family spread over positions.
struct SetsStorage {
    DeviceBuffer<long long> offsets;
    DeviceBuffer<int> members;
    DeviceBuffer<int> position;
    DeviceBuffer<unsigned long long> signature;
    DeviceBuffer<int> begin;

    [[nodiscard]] SetsOut out() { return {offsets.data(), members.data(), position.data(), signature.data(), begin.data()}; }
};

}  // namespace

struct CudaWindowStage::State {
    Params params{};
    SetsView family{};
    Level levels[MAX_LEVELS]{};
    int levelCount{0};
    LaunchDims dims{1, tuning::WINDOW_BLOCK};
    bool useGraph{false};

    SetsStorage candidates;
    SetsStorage families[2];
    DeviceBuffer<Count2> counts, starts, positionCounts, positionStarts;
    DeviceBuffer<long long> outSize, outStart;
    DeviceBuffer<int> outSource, outWindow, outMembers;
    DeviceBuffer<Status> status;
    DeviceBuffer<Header> header;
    platform::PinnedMemory hostHeader, hostWindow, hostOffsets, hostMembers;
    PrefixSums sums;
    platform::Stream captureStream;
    platform::Graph graph;

    /// The whole stage; graph-capturable.
    GpuStatus enqueueBody(StreamHandle stream) {
        const Params& p = params;
        const LaunchDims perPosition{p.maxSteps, dims.threads};
        const LaunchDims oneBlock{1, tuning::SCAN_BLOCK};
        const auto scanPositions = [&] { return launch(positionScanKernel, oneBlock, stream, p, positionCounts.data(), positionStarts.data()); };
        AUGUR_CUDA_TRY(platform::fillDevice(status.data(), 0, sizeof(Status), stream));
        SetsView in = family;
        for (int i = 0; i < levelCount; ++i) {
            const Level level = levels[i];
            const SetsOut cand = candidates.out();
            AUGUR_CUDA_TRY(countScanWrite(
                [&] { return launch(countKernel, perPosition, stream, p, in, level, counts.data(), positionCounts.data()); }, scanPositions,
                [&] {
                    return launch(writeKernel, perPosition, stream, p, in, level, counts.data(), starts.data(), positionStarts.data(), cand);
                }));
            const SetsOut next = families[i % 2].out();
            AUGUR_CUDA_TRY(countScanWrite(
                [&] { return launch(maximalKernel, perPosition, stream, p, cand.view(), level.length, counts.data(), positionCounts.data()); },
                scanPositions,
                [&] {
                    return launch(compactKernel, perPosition, stream, p, cand.view(), level.length, counts.data(), starts.data(),
                                  positionStarts.data(), next);
                }));
            in = next.view();
        }
        AUGUR_CUDA_TRY(countScanWrite(
            sums, [&] { return launch(rankKernel, dims, stream, p, in, outSize.data(), outSource.data(), outWindow.data()); },
            outSize.data(), outStart.data(), p.outSets + 1,
            [&] { return launch(outputKernel, dims, stream, p, in, outSource.data(), outStart.data(), outMembers.data()); }, stream));
        AUGUR_CUDA_TRY(launch(headerKernel, LaunchDims{1, WARP_THREADS}, stream, p, in, outStart.data()));
        return platform::copyToHost(hostHeader.get(), header.data(), sizeof(Header), stream);
    }
};

CudaWindowStage::CudaWindowStage(std::unique_ptr<State> state) noexcept : m_state(std::move(state)) {}
CudaWindowStage::~CudaWindowStage() = default;

Result<std::unique_ptr<CudaWindowStage>, FlockFailure> CudaWindowStage::create(const FlockParams& params, const FlockCapacities& capacities,
                                                                               const DeviceFamilies& families, int gridBlocks,
                                                                               int blockThreads, bool useGraph) {
    FlockFailure failure;
    failure.error = FlockError::Gpu;
    const auto gpuFailure = [&failure](const GpuError& error) {
        failure.gpu = error;
        return failure;
    };
    auto state = std::make_unique<State>();
    State& s = *state;
    s.dims = LaunchDims{gridBlocks, blockThreads};
    s.useGraph = useGraph;
    const long long steps = capacities.maxBatchSteps;
    const long long famSets = families.maxSets;
    const long long candSets = capacities.maxIntersectSetsPerBatch;
    const long long candMembers = capacities.maxIntersectMembersPerBatch;
    const long long outSets = capacities.maxFlocksPerBatch;
    const long long outMembers = capacities.maxFlockMembersPerBatch;
    const long long countCap = std::max(famSets, candSets);

    // Doubling: windows of 1, 2, 4, … 2^K ≤ δ steps, then δ from two overlapping halves.
    int length = 1;
    while (2LL * length <= params.windowSteps) {
        s.levels[s.levelCount++] = Level{length, 2 * length};
        length *= 2;
    }
    if (length < params.windowSteps) {
        s.levels[s.levelCount++] = Level{params.windowSteps - length, params.windowSteps};
    }

#define AUGUR_FLOCK_ALLOC(target, expr)            \
    do {                                           \
        auto made = (expr);                        \
        if (!made) {                               \
            return fail(gpuFailure(made.error())); \
        }                                          \
        target = std::move(made).value();          \
    } while (false)
#define AUGUR_FLOCK_STATUS(expr)                    \
    do {                                            \
        if (const auto st = (expr); !st) {          \
            return fail(gpuFailure(st.error()));    \
        }                                           \
    } while (false)

    for (SetsStorage* storage : {&s.candidates, &s.families[0], &s.families[1]}) {
        AUGUR_FLOCK_ALLOC(storage->offsets, buffer<long long>(candSets + 1));
        AUGUR_FLOCK_ALLOC(storage->members, buffer<int>(candMembers));
        AUGUR_FLOCK_ALLOC(storage->position, buffer<int>(candSets));
        AUGUR_FLOCK_ALLOC(storage->signature, buffer<unsigned long long>(candSets));
        AUGUR_FLOCK_ALLOC(storage->begin, buffer<int>(steps + 1));
    }
    AUGUR_FLOCK_ALLOC(s.counts, buffer<Count2>(countCap + 1));
    AUGUR_FLOCK_ALLOC(s.starts, buffer<Count2>(countCap + 1));
    AUGUR_FLOCK_ALLOC(s.positionCounts, buffer<Count2>(steps + 1));
    AUGUR_FLOCK_ALLOC(s.positionStarts, buffer<Count2>(steps + 1));
    AUGUR_FLOCK_ALLOC(s.outSize, buffer<long long>(outSets + 1));
    AUGUR_FLOCK_ALLOC(s.outStart, buffer<long long>(outSets + 1));
    AUGUR_FLOCK_ALLOC(s.outSource, buffer<int>(outSets));
    AUGUR_FLOCK_ALLOC(s.outWindow, buffer<int>(outSets));
    AUGUR_FLOCK_ALLOC(s.outMembers, buffer<int>(outMembers));
    AUGUR_FLOCK_ALLOC(s.status, buffer<Status>(1));
    AUGUR_FLOCK_ALLOC(s.header, buffer<Header>(1));
    AUGUR_FLOCK_ALLOC(s.hostHeader, platform::PinnedMemory::allocate(sizeof(Header), false));
    AUGUR_FLOCK_ALLOC(s.hostWindow, platform::PinnedMemory::allocate(static_cast<std::size_t>(outSets) * sizeof(int), false));
    AUGUR_FLOCK_ALLOC(s.hostOffsets, platform::PinnedMemory::allocate(static_cast<std::size_t>(outSets + 1) * sizeof(long long), false));
    AUGUR_FLOCK_ALLOC(s.hostMembers, platform::PinnedMemory::allocate(static_cast<std::size_t>(std::max(outMembers, 1LL)) * sizeof(int), false));
    AUGUR_FLOCK_STATUS(s.sums.require(s.outSize.data(), s.outStart.data(), outSets + 1));
    AUGUR_FLOCK_STATUS(s.sums.allocate());

    Params& p = s.params;
    p.steps = families.steps;
    p.upstream = families.upstreamOverflow;
    p.status = s.status.data();
    p.header = s.header.data();
    p.candSets = candSets;
    p.candMembers = candMembers;
    p.outSets = outSets;
    p.outMembers = outMembers;
    p.maxSteps = static_cast<int>(steps);
    p.delta = params.windowSteps;
    p.minEntities = params.minEntities;
    s.family = SetsView{families.offsets, families.members, families.step, families.signature, families.stepBegin};

    if (useGraph) {
        AUGUR_FLOCK_ALLOC(s.captureStream, platform::Stream::create());
        State* raw = &s;
        AUGUR_FLOCK_ALLOC(s.graph, platform::Graph::capture(s.captureStream.get(), [raw](StreamHandle stream) { return raw->enqueueBody(stream); }));
    }
#undef AUGUR_FLOCK_STATUS
#undef AUGUR_FLOCK_ALLOC
    return Result<std::unique_ptr<CudaWindowStage>, FlockFailure>(std::unique_ptr<CudaWindowStage>(new CudaWindowStage(std::move(state))));
}

GpuStatus CudaWindowStage::enqueue(StreamHandle stream) noexcept {
    State& s = *m_state;
    if (s.useGraph) {
        return s.graph.launch(stream);
    }
    return s.enqueueBody(stream);
}

WindowOutcome CudaWindowStage::outcome() const noexcept {
    const Header& h = *static_cast<const Header*>(m_state->hostHeader.get());
    WindowOutcome outcome;
    if (h.overflow > 0) {
        outcome.overflow = static_cast<Capacity>(h.overflow);
        outcome.needed = h.needed;
    }
    return outcome;
}

Result<HostFlocks, GpuError> CudaWindowStage::download(StreamHandle stream) noexcept {
    State& s = *m_state;
    const Header h = *static_cast<const Header*>(s.hostHeader.get());
    HostFlocks flocks;
    flocks.window = static_cast<const int*>(s.hostWindow.get());
    flocks.offsets = static_cast<const long long*>(s.hostOffsets.get());
    flocks.members = static_cast<const int*>(s.hostMembers.get());
    if (h.overflow != 0 || h.flocks == 0) {
        return Result<HostFlocks, GpuError>(flocks);
    }
    const auto count = static_cast<std::size_t>(h.flocks);
    AUGUR_CUDA_TRY(platform::copyToHost(s.hostWindow.get(), s.outWindow.data(), count * sizeof(int), stream));
    AUGUR_CUDA_TRY(platform::copyToHost(s.hostOffsets.get(), s.outStart.data(), (count + 1) * sizeof(long long), stream));
    AUGUR_CUDA_TRY(platform::copyToHost(s.hostMembers.get(), s.outMembers.data(), static_cast<std::size_t>(h.members) * sizeof(int), stream));
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(cudaStreamSynchronize(stream)));
    flocks.count = h.flocks;
    return Result<HostFlocks, GpuError>(flocks);
}

}  // namespace augur::kernels::flock::detail
