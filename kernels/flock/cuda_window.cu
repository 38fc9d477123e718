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
// out_t = in_t ⊗ in_{t+shift} for every position t of windows of `length` steps:
//   1. count:   one warp per set a of in_t, its lanes over the sets b of in_{t+shift}: how many
//               a ∩ b have ≥ μ members, and their total size (signatures skip disjoint pairs); which
//               b those are, as a 64-bit mask, when in_{t+shift} has at most 64 sets; a partner
//               that contains a ends the row, a alone standing for it (the maximal sets are the same);
//   2. scan:    one prefix sum of the (sets, members) pairs gives every intersection its slot;
//   3. write:   the same warp writes the kept intersections in the order of b, sorted, with their
//               signatures, one pair at a time with all its lanes (the mask's pairs; without a mask,
//               every pair is tested again first);
//   4. maximal: one warp per intersection x, its lanes over the intersections of the same position:
//               x is dropped when one is a strict superset, or the same set at a lower index; the
//               next level reads the candidates in place, a dropped one with signature 0 (which
//               meets no other signature, so it pairs with nothing);
//   5. scan + compact (after the last level): the kept sets become the windows' flocks, still grouped
//               by position.
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

/// One set of a family: its members (sorted ascending) and their count (a set of n entities has at
/// most n < 2³¹ members).
struct SetRef {
    const int* members;
    int size;
};

/// A family spread over the positions of a batch: the sets of position t (the window of the level's
/// length that starts at batch step t) are begin[t] … begin[t+1]).
struct SetsView {
    const long long* offsets;
    const int* members;
    const int* position;  ///< position of each set
    const unsigned long long* signature;
    const int* begin;     ///< positions + 1 entries

    /// Set i (both of its offsets read once).
    __device__ __forceinline__ SetRef set(long long i) const {
        const long long first = offsets[i];
        return SetRef{members + first, static_cast<int>(offsets[i + 1] - first)};
    }
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
    const int* windowBase;
    const long long* memberBase;
    Status* status;
    Header* header;
    long long candSets;
    long long candMembers;
    long long outSets;
    long long outMembers;
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

/// Partners b of one set a that a kept-pair mask covers: the first MASKED_PARTNERS sets of the partner
/// position, bit b − first. Sets whose partner position holds more are not masked (the write pass tests
/// their pairs again).
constexpr int MASKED_PARTNERS = 64;

/// Count kernel: partners per warp queued for a round of merges (a full round of 32 plus the rest of
/// the chunk that filled it).
constexpr int COUNT_QUEUE = 2 * WARP_THREADS;

// Level step 1: per set a of in_t (one warp, its lanes over the sets b of in_{t+shift} 32 at a time), how
// many b give |a ∩ b| ≥ μ, and their total size; and which b they are (kept[a], bit b − first) when the
// partner position has at most MASKED_PARTNERS sets. The partners whose signatures meet a's are queued
// in shared memory and merged 32 at a time, one lane each: at 2,000 entities about 7 of every 32
// partners pass the signature test, and merging them in place left the other lanes idle.
// A partner b ⊇ a (|a ∩ b| = |a|) ends the row: a ∩ b = a, and every other a ∩ b' ⊆ a is a subset or a
// duplicate of it — as is anything such an a ∩ b' would make non-maximal — so the level's maximal
// sets are the same with a alone from this row: counted once, as (1, |a|). No other row is counted
// (1, |a|): an intersection of |a| members makes its partner one that contains a. The write step
// therefore recognises the shortcut from the scanned counts.
// counts[a] = 0 for the sets past the level's positions, up to countCap (the scan's range).
__global__ void countKernel(Params p, SetsView in, Level level, long long countCap, Count2* counts, unsigned long long* kept) {
    if (failed(p)) {
        return;
    }
    const int n = in.begin[positionsOf(p, level.length)];
    const int lane = laneId();
    const unsigned int lowerLanes = (1U << lane) - 1U;
    extern __shared__ int partnerQueues[];  // COUNT_QUEUE per warp
    int* queue = partnerQueues + (threadIdx.x / WARP_THREADS) * COUNT_QUEUE;
    for (long long a = warpStart(); a < n; a += warpStep()) {
        const int t = in.position[a];
        const unsigned long long sigA = in.signature[a];
        if (sigA == 0) {  // warp-uniform: a set the previous level's maximal pass dropped
            if (lane == 0) {
                counts[a] = Count2{0, 0};
                kept[a] = 0;
            }
            continue;
        }
        const SetRef setA = in.set(a);
        const int first = in.begin[t + level.shift];
        const int end = in.begin[t + level.shift + 1];
        long long sets = 0;
        long long members = 0;
        unsigned long long mask = 0;  // this lane's kept partners; OR-ed over the warp at the end
        int containing = -1;          // the first partner ⊇ a (warp-uniform)
        // Lanes 0 … count − 1 merge a with the first `count` queued partners (in the order of b).
        auto merge = [&](int count) {
            int size = 0;
            const int b = lane < count ? queue[lane] : -1;
            if (b >= 0) {
                const SetRef setB = in.set(b);
                size = intersectionSize(setA.members, setA.size, setB.members, setB.size);
            }
            if (size >= p.minEntities) {
                sets += 1;
                members += size;
                if (b - first < MASKED_PARTNERS) {
                    mask |= 1ULL << (b - first);
                }
            }
            const unsigned int contains = __ballot_sync(FULL_WARP, b >= 0 && size == setA.size && size >= p.minEntities);
            if (contains != 0) {
                containing = __shfl_sync(FULL_WARP, b, __ffs(static_cast<int>(contains)) - 1);
            }
        };
        int queued = 0;
        for (int chunk = first; chunk < end; chunk += WARP_THREADS) {
            const int b = chunk + lane;
            const bool meets = b < end && (sigA & in.signature[b]) != 0;
            const unsigned int ballot = __ballot_sync(FULL_WARP, meets);
            if (meets) {
                queue[queued + __popc(ballot & lowerLanes)] = b;
            }
            queued += __popc(ballot);
            __syncwarp();
            if (queued >= WARP_THREADS) {  // warp-uniform: a full round, then the rest to the front
                merge(WARP_THREADS);
                if (containing >= 0) {
                    break;
                }
                const int rest = queued - WARP_THREADS;
                const int moved = lane < rest ? queue[WARP_THREADS + lane] : 0;
                __syncwarp();
                if (lane < rest) {
                    queue[lane] = moved;
                }
                __syncwarp();
                queued = rest;
            }
        }
        if (containing < 0 && queued > 0) {
            merge(queued);
        }
        __syncwarp();  // the queue is free for the next set
        mask = warpOr(mask);
        sets = warpAllSum(sets);
        members = warpAllSum(members);
        if (lane == 0) {
            const bool contained = containing >= 0;
            counts[a] = contained ? Count2{1, setA.size} : Count2{sets, members};
            kept[a] = contained ? 0 : mask;
        }
    }
    for (long long a = n + strideStart(); a <= countCap; a += strideStep()) {
        counts[a] = Count2{0, 0};
    }
}

/// Write kernel's register cap: 40 lets 12 blocks of 128 threads share an SM instead of 9 (54 registers
/// uncapped, sm_90), at 40 bytes of spill stores. H100, 2,000 entities, ncu: 122.0 → 110.7 µs (4 levels).
constexpr int WRITE_REGISTERS = 40;

// Level step 3: the intersections into their slots, in the order of b (as counted); the positions'
// ranges of the candidates. The kept pairs come from count's record where it could keep one (else
// every pair is tested again, one lane each); the whole warp writes each kept intersection
// (warpWriteIntersection), one pair after the other — about one per chunk of 32 partners, which a
// lane-per-pair merge wrote with one active lane.
__global__ void __maxnreg__(WRITE_REGISTERS) writeKernel(Params p, SetsView in, Level level, const Count2* starts, const unsigned long long* kept,
                                                         long long countCap, SetsOut out) {
    if (failed(p)) {
        return;
    }
    const Count2 total = starts[countCap];
    if (total.sets > p.candSets || total.members > p.candMembers) {
        if (strideStart() == 0) {
            const bool sets = total.sets > p.candSets;
            claim(p, static_cast<int>(sets ? Capacity::IntersectSetsPerBatch : Capacity::IntersectMembersPerBatch),
                  sets ? total.sets : total.members);
        }
        return;
    }
    const int positions = positionsOf(p, level.length);
    const int n = in.begin[positions];
    const int lane = laneId();
    for (long long a = warpStart(); a < n; a += warpStep()) {
        const Count2 start = starts[a];
        const Count2 next = starts[a + 1];
        if (next.sets == start.sets) {
            continue;
        }
        long long s = start.sets;
        long long m = start.members;
        const int t = in.position[a];
        const SetRef setA = in.set(a);
        const unsigned long long sigA = in.signature[a];
        if (next.sets - start.sets == 1 && next.members - start.members == setA.size) {  // count's shortcut: a alone
            for (int i = lane; i < setA.size; i += WARP_THREADS) {
                out.members[m + i] = setA.members[i];
            }
            if (lane == 0) {
                out.offsets[s] = m;
                out.position[s] = t;
                out.signature[s] = sigA;
            }
            continue;
        }
        const int first = in.begin[t + level.shift];
        const int end = in.begin[t + level.shift + 1];
        // The count pass's kept pairs, when it could record them; otherwise every pair is tested again
        // (one lane each, as count did). Then the warp writes each kept intersection, in the order of b.
        const bool masked = end - first <= MASKED_PARTNERS;
        const unsigned long long mask = masked ? kept[a] : 0;
        for (int chunk = first; chunk < end; chunk += WARP_THREADS) {
            unsigned int keptLanes = 0;
            if (masked) {
                keptLanes = static_cast<unsigned int>(mask >> (chunk - first));
            } else {
                const int b = chunk + lane;
                int size = 0;
                if (b < end && (sigA & in.signature[b]) != 0) {
                    const SetRef setB = in.set(b);
                    size = intersectionSize(setA.members, setA.size, setB.members, setB.size);
                }
                keptLanes = __ballot_sync(FULL_WARP, size >= p.minEntities);
            }
            while (keptLanes != 0) {  // warp-uniform
                const int b = chunk + __ffs(static_cast<int>(keptLanes)) - 1;
                keptLanes &= keptLanes - 1U;
                const SetRef setB = in.set(b);
                const WrittenSet x = warpWriteIntersection(setA.members, setA.size, setB.members, setB.size, out.members + m, lane);
                if (lane == 0) {
                    out.offsets[s] = m;
                    out.position[s] = t;
                    out.signature[s] = x.signature;
                }
                ++s;
                m += x.size;
            }
        }
    }
    if (strideStart() == 0) {
        out.offsets[total.sets] = total.members;
    }
    for (long long u = strideStart(); u <= positions; u += strideStep()) {
        out.begin[u] = static_cast<int>(starts[in.begin[u]].sets);
    }
}

// Level step 4: keep the maximal intersections of each position (duplicates: the lowest index); one
// warp per intersection. With `keptSignature` (every level but the last): keptSignature[x] = x's
// signature when kept, 0 when dropped — the next level reads the candidates through it, and a zero
// signature meets no other (a kept set has ≥ μ ≥ 2 members, so a non-zero one), so nothing is
// compacted. Without (the last level): keep[x] = (1, size) for a kept set, 0 otherwise, up to
// candSets, for the scan and compaction into the final family.
__global__ void maximalKernel(Params p, SetsView cand, int length, Count2* keep, unsigned long long* keptSignature) {
    if (failed(p)) {
        return;
    }
    const int n = cand.begin[positionsOf(p, length)];
    const int lane = laneId();
    for (long long x = warpStart(); x < n; x += warpStep()) {
        const int t = cand.position[x];
        const SetRef setX = cand.set(x);
        const unsigned long long sigX = cand.signature[x];
        const int end = cand.begin[t + 1];
        bool dominated = false;
        for (int chunk = cand.begin[t]; chunk < end && !dominated; chunk += WARP_THREADS) {
            const int y = chunk + lane;
            bool covers = false;
            if (y < end && y != x) {
                const SetRef setY = cand.set(y);
                if (setY.size >= setX.size && (sigX & ~cand.signature[y]) == 0) {
                    const bool subset = isSubset(setX.members, setX.size, setY.members, setY.size);
                    covers = setY.size == setX.size ? (y < x && subset) : subset;
                }
            }
            dominated = __any_sync(FULL_WARP, covers);
        }
        if (lane == 0) {
            if (keptSignature != nullptr) {
                keptSignature[x] = dominated ? 0 : sigX;
            } else {
                keep[x] = dominated ? Count2{0, 0} : Count2{1, setX.size};
            }
        }
    }
    if (keptSignature != nullptr) {
        return;
    }
    for (long long x = n + strideStart(); x <= p.candSets; x += strideStep()) {
        keep[x] = Count2{0, 0};
    }
}

// Level step 5: the kept sets into the next family (one warp per set), still grouped by position.
__global__ void compactKernel(Params p, SetsView cand, int length, const Count2* keep, const Count2* starts, SetsOut out) {
    if (failed(p)) {
        return;
    }
    const int positions = positionsOf(p, length);
    const int n = cand.begin[positions];
    const int lane = laneId();
    for (long long x = warpStart(); x < n; x += warpStep()) {
        const Count2 k = keep[x];
        if (k.sets == 0) {
            continue;
        }
        const Count2 at = starts[x];
        const int* from = cand.set(x).members;
        for (long long i = lane; i < k.members; i += WARP_THREADS) {
            out.members[at.members + i] = from[i];
        }
        if (lane == 0) {
            out.offsets[at.sets] = at.members;
            out.position[at.sets] = cand.position[x];
            out.signature[at.sets] = cand.signature[x];
        }
    }
    if (strideStart() == 0) {
        const Count2 total = starts[p.candSets];
        out.offsets[total.sets] = total.members;
    }
    for (long long u = strideStart(); u <= positions; u += strideStep()) {
        out.begin[u] = static_cast<int>(starts[cand.begin[u]].sets);
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
        const SetRef setX = cur.set(x);
        const int first = cur.begin[w];
        const int end = cur.begin[w + 1];
        long long rank = 0;
        for (int y = first + lane; y < end; y += WARP_THREADS) {
            const SetRef setY = cur.set(y);
            if (y != x && lexLess(setY.members, setY.size, setX.members, setX.size)) {
                ++rank;
            }
        }
        rank = warpAllSum(rank);
        if (lane == 0) {
            const long long position = first + rank;
            outSize[position] = setX.size;
            outSource[position] = static_cast<int>(x);
            outWindow[position] = w;
        }
    }
    for (long long position = total + strideStart(); position <= p.outSets; position += strideStep()) {
        outSize[position] = 0;
    }
}

// Output step 3: members in output order (offsets are the prefix sum of the sizes) and each flock's
// record (its window and member offset in the output list); one warp per flock.
__global__ void outputKernel(Params p, SetsView cur, const int* outSource, const int* outWindow, const long long* outSize, const long long* outStart,
                             int* outMembers, Flock* outFlocks) {
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
    const int windowBase = *p.windowBase;
    const long long memberBase = *p.memberBase;
    const int lane = laneId();
    for (long long position = warpStart(); position < total; position += warpStep()) {
        const int x = outSource[position];
        const SetRef from = cur.set(x);
        int* to = outMembers + outStart[position];
        for (long long i = lane; i < from.size; i += WARP_THREADS) {
            to[i] = from.members[i];
        }
        if (lane == 0) {
            outFlocks[position] = Flock{windowBase + outWindow[position], static_cast<int>(memberBase + outStart[position]),
                                        static_cast<int>(outSize[position])};
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
    long long familyCap{0};  ///< capacity of the potential stage's family (its sets)
    Level levels[MAX_LEVELS]{};
    int levelCount{0};
    LaunchDims dims{1, tuning::PolicySm90::WINDOW_BLOCK};  // create() sets the policy's
    bool useGraph{false};

    SetsStorage candidates[2];  ///< the levels' intersections, alternately (a level reads the other's)
    SetsStorage flocks;         ///< the last level's maximal sets, compacted: the windows' flocks
    DeviceBuffer<unsigned long long> keptSignature;  ///< a level's candidates' signatures, 0 when dropped
    DeviceBuffer<Count2> counts, starts;
    DeviceBuffer<unsigned long long> kept;  ///< per set of a level's input: its kept partners (countKernel)
    DeviceBuffer<long long> outSize, outStart;
    DeviceBuffer<int> outSource, outWindow, outMembers;
    DeviceBuffer<Flock> outFlocks;
    DeviceBuffer<Status> status;
    DeviceBuffer<Header> header;
    platform::PinnedMemory hostHeader, hostFlocks, hostMembers;
    PrefixSums sums;
    platform::Stream captureStream;
    platform::Graph graph;

    /// The whole stage; graph-capturable.
    GpuStatus enqueueBody(StreamHandle stream) {
        const Params& p = params;
        AUGUR_CUDA_TRY(platform::fillDevice(status.data(), 0, sizeof(Status), stream));
        SetsView in = family;
        long long inCap = familyCap;
        const LaunchDims queued{dims.blocks, dims.threads,
                                static_cast<std::size_t>(COUNT_QUEUE) * sizeof(int) * static_cast<std::size_t>(dims.threads / WARP_THREADS)};
        for (int i = 0; i < levelCount; ++i) {
            const Level level = levels[i];
            const SetsOut cand = candidates[i % 2].out();
            AUGUR_CUDA_TRY(countScanWrite(
                sums, [&] { return launch(countKernel, queued, stream, p, in, level, inCap, counts.data(), kept.data()); },
                counts.data(), starts.data(), inCap + 1,
                [&] { return launch(writeKernel, dims, stream, p, in, level, starts.data(), kept.data(), inCap, cand); }, stream));
            inCap = p.candSets;
            if (i + 1 < levelCount) {  // the next level reads the candidates in place, dropped ones with signature 0
                AUGUR_CUDA_TRY(launch(maximalKernel, dims, stream, p, cand.view(), level.length, counts.data(), keptSignature.data()));
                in = cand.view();
                in.signature = keptSignature.data();
                continue;
            }
            const SetsOut next = flocks.out();
            AUGUR_CUDA_TRY(countScanWrite(
                sums,
                [&] { return launch(maximalKernel, dims, stream, p, cand.view(), level.length, counts.data(), static_cast<unsigned long long*>(nullptr)); },
                counts.data(), starts.data(), p.candSets + 1,
                [&] { return launch(compactKernel, dims, stream, p, cand.view(), level.length, counts.data(), starts.data(), next); },
                stream));
            in = next.view();
        }
        AUGUR_CUDA_TRY(countScanWrite(
            sums, [&] { return launch(rankKernel, dims, stream, p, in, outSize.data(), outSource.data(), outWindow.data()); },
            outSize.data(), outStart.data(), p.outSets + 1,
            [&] {
                return launch(outputKernel, dims, stream, p, in, outSource.data(), outWindow.data(), outSize.data(), outStart.data(), outMembers.data(),
                              outFlocks.data());
            },
            stream));
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

    AUGUR_FLOCK_ALLOC(s.keptSignature, buffer<unsigned long long>(candSets));
    for (SetsStorage* storage : {&s.candidates[0], &s.candidates[1], &s.flocks}) {
        AUGUR_FLOCK_ALLOC(storage->offsets, buffer<long long>(candSets + 1));
        AUGUR_FLOCK_ALLOC(storage->members, buffer<int>(candMembers));
        AUGUR_FLOCK_ALLOC(storage->position, buffer<int>(candSets));
        AUGUR_FLOCK_ALLOC(storage->signature, buffer<unsigned long long>(candSets));
        AUGUR_FLOCK_ALLOC(storage->begin, buffer<int>(steps + 1));
    }
    AUGUR_FLOCK_ALLOC(s.counts, buffer<Count2>(countCap + 1));
    AUGUR_FLOCK_ALLOC(s.starts, buffer<Count2>(countCap + 1));
    AUGUR_FLOCK_ALLOC(s.kept, buffer<unsigned long long>(countCap + 1));
    AUGUR_FLOCK_ALLOC(s.outSize, buffer<long long>(outSets + 1));
    AUGUR_FLOCK_ALLOC(s.outStart, buffer<long long>(outSets + 1));
    AUGUR_FLOCK_ALLOC(s.outSource, buffer<int>(outSets));
    AUGUR_FLOCK_ALLOC(s.outWindow, buffer<int>(outSets));
    AUGUR_FLOCK_ALLOC(s.outMembers, buffer<int>(outMembers));
    AUGUR_FLOCK_ALLOC(s.outFlocks, buffer<Flock>(outSets));
    AUGUR_FLOCK_ALLOC(s.status, buffer<Status>(1));
    AUGUR_FLOCK_ALLOC(s.header, buffer<Header>(1));
    AUGUR_FLOCK_ALLOC(s.hostHeader, platform::PinnedMemory::allocate(sizeof(Header), false));
    AUGUR_FLOCK_ALLOC(s.hostFlocks, platform::PinnedMemory::allocate(static_cast<std::size_t>(std::max(outSets, 1LL)) * sizeof(Flock), false));
    AUGUR_FLOCK_ALLOC(s.hostMembers, platform::PinnedMemory::allocate(static_cast<std::size_t>(std::max(outMembers, 1LL)) * sizeof(int), false));
    s.sums.require<Count2>();
    s.sums.require<long long>();
    AUGUR_FLOCK_STATUS(s.sums.allocate());

    Params& p = s.params;
    p.steps = families.steps;
    p.upstream = families.upstreamOverflow;
    p.windowBase = families.windowBase;
    p.memberBase = families.memberBase;
    p.status = s.status.data();
    p.header = s.header.data();
    p.candSets = candSets;
    p.candMembers = candMembers;
    p.outSets = outSets;
    p.outMembers = outMembers;
    p.delta = params.windowSteps;
    p.minEntities = params.minEntities;
    s.family = SetsView{families.offsets, families.members, families.step, families.signature, families.stepBegin};
    s.familyCap = famSets;

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

FlockCounts CudaWindowStage::counts() const noexcept {
    const Header& h = *static_cast<const Header*>(m_state->hostHeader.get());
    return h.overflow != 0 ? FlockCounts{} : FlockCounts{h.flocks, h.members};
}

GpuStatus CudaWindowStage::download(Flock* flocks, std::int32_t* members, StreamHandle stream) noexcept {
    State& s = *m_state;
    const FlockCounts n = counts();
    if (n.flocks == 0) {
        return {};
    }
    AUGUR_CUDA_TRY(platform::copyToHost(flocks, s.outFlocks.data(), static_cast<std::size_t>(n.flocks) * sizeof(Flock), stream));
    AUGUR_CUDA_TRY(platform::copyToHost(members, s.outMembers.data(), static_cast<std::size_t>(n.members) * sizeof(std::int32_t), stream));
    return AUGUR_CUDA_CHECK(cudaStreamSynchronize(stream));
}

Flock* CudaWindowStage::stagingFlocks() noexcept { return static_cast<Flock*>(m_state->hostFlocks.get()); }
std::int32_t* CudaWindowStage::stagingMembers() noexcept { return static_cast<std::int32_t*>(m_state->hostMembers.get()); }

}  // namespace augur::kernels::flock::detail
