// CUDA path of FlockFinder for a batch of steps: the potential-flock stage (seeds/002 §4.1–4.2) here,
// then the intersection stage (cuda_window.cu) on the families this stage leaves on the device.
//
// Layers: CudaBatchStage::run (host API) → enqueueKernels (dispatch: launch shapes from tuning.hpp)
// → thin __global__ entries → processStep, the whole potential stage of one step by one block, on the
// device functions of geometry.hpp shared with the CPU reference. Block s takes step s in its shared
// memory (stepsInSharedKernel). A step whose points and grid fit but whose disks do not is finished by
// the same block with its disks in a global-memory workspace, when enough of the batch's steps follow
// it to hide the slower step; any other step that does not fit is taken again by
// stepsInWorkspaceKernel, in the largest shared memory one block may have (one block per SM) or, if it
// needs more still, in a global-memory workspace. Each step's sizes come from counting passes and
// block prefix sums; its kept sets go to a staging family, and one index block plus a copy kernel put
// them in step order. Every kernel reads the batch's step and entity counts from device memory, so the
// whole sequence is one CUDA graph; a capacity that is too small is detected on the device, reported
// in the batch header and never overrun.
#include "cuda_batch.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <new>

#include "augur/platform/clock.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/sm_partition.hpp"
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

/// The batch's actual sizes and where its samples are, uploaded before the kernels (graph replays read
/// them from here): step-major from the batch's first step, in the stage's upload buffers (host input)
/// or read in place from the caller's device arrays (device input). present == nullptr: every sample
/// is present.
struct BatchParams {
    int steps;
    int entities;
    int windowBase;         ///< the output list's window index of the batch's first window
    long long memberBase;   ///< the output list's next member
    const double* x;
    const double* y;
    const unsigned char* present;
};

/// Sample i of the batch (step · entities + entity): present and finite, with its position.
__device__ __forceinline__ bool batchSample(const BatchParams& bp, long long i, double& px, double& py) {
    if (bp.present != nullptr && bp.present[i] == 0) {
        return false;
    }
    px = bp.x[i];
    py = bp.y[i];
    return true;
}

/// What the host needs back: the stage's totals and the first capacity that ran out.
struct BatchHeader {
    long long disks;
    long long keptSets;
    long long keptMembers;
    long long needed;
    int potentialWindows;  ///< Σ |F_t| over the steps that start a window of the batch
    int potentialAll;      ///< … over all steps of the batch
    int overflow;          ///< a Capacity value
    int invalid;           ///< non-zero: a present sample was not finite
    int stepsInWorkspace;  ///< steps that did not fit the per-step kernel's shared memory
    int stepsInPlace;      ///< … of which the per-step kernel worked in place, in a global workspace
    int stepsInGlobal;     ///< … of which were worked in a global workspace (in place or by the second kernel)
};

/// Per-batch counters, cleared before the step kernels.
struct Counters {
    unsigned long long setCursor;     ///< sets claimed in the staging family (all steps, also past its capacity)
    unsigned long long memberCursor;  ///< … and members
    long long diskNeed;               ///< largest disk count of a step over maxDisksPerStep (0: none)
    long long memberNeed;             ///< largest candidate-member count of a step over maxCandidateMembersPerStep
    int fallbackSteps;                ///< steps the shared-memory kernel handed to the workspace kernel
    int globalSteps;                  ///< … that the workspace kernel worked in global memory
    int inPlaceSteps;                 ///< steps the shared-memory kernel finished in place, their disks in a global workspace
    int invalid;                      ///< non-zero: a present sample was not finite
};

/// Everything the kernels read or write, by pointer, plus the capacities.
struct Pools {
    const BatchParams* params;
    Counters* counters;
    int* fallback;                 ///< steps handed to the workspace kernel (counters->fallbackSteps of them)
    char* workspaces;              ///< one arena of workspaceBytes per block of the workspace kernel
    long long workspaceBytes;
    unsigned int* workspaceBusy;   ///< bit per workspace: claimed by a block of the per-step kernel
    int workspaceCount;
    int residentStepBlocks;        ///< blocks of the per-step kernel that run at once
    int inPlaceWaves;              ///< … a step whose disks do not fit is finished in place when this many waves of them follow it
    long long sharedBytes;         ///< dynamic shared memory of a block of the shared-memory kernel
    long long fallbackSharedBytes; ///< … of the workspace kernel (0: global workspaces only)
    // per step of the batch
    long long* stepDisks;
    int* stepSets;                 ///< kept sets (F_t)
    long long* stepMembers;        ///< … and their members
    long long* stepSetBase;        ///< where the step's sets went in the staging family
    long long* stepMemberBase;
    long long* stepMemberBegin;    ///< maxSteps + 1: exclusive prefix of stepMembers
    int* stepBegin;                ///< maxSteps + 1: exclusive prefix of stepSets
    // staging family: each step's kept sets in one chunk, chunks in the order the steps finished
    int* stagedOffsets;            ///< per set: first member, relative to its step's chunk
    unsigned long long* stagedSignature;
    int* stagedMembers;
    // the batch family stage 2 reads: sets in step order
    long long* familyOffsets;
    int* familyMembers;
    int* familyStep;
    unsigned long long* familySignature;
    BatchHeader* header;
    // capacities
    int maxSteps;
    int sideCap;
    long long maxStepDisks;
    long long maxStepMembers;
    long long maxSets;
    long long maxFamilyMembers;
    int minEntities;
    int delta;
    Limits limits;
};

// ---- block-wide helpers (any blockDim that is a multiple of 32, up to 1,024) ----

/// Shared scratch of the block-wide reductions and scans.
struct BlockScratch {
    long long warpSums[WARP_THREADS + 1];
    double box[4][WARP_THREADS];
    long long broadcast[4];
};

/// This thread's share of n items in the block-wide passes below: consecutive items, thread by thread.
struct Chunk {
    int begin;
    int end;
};

__device__ __forceinline__ Chunk chunkOf(int n) {
    const int per = (n + static_cast<int>(blockDim.x) - 1) / static_cast<int>(blockDim.x);
    const int begin = min(n, static_cast<int>(threadIdx.x) * per);
    return {begin, min(n, begin + per)};
}

/// Exclusive prefix of `value` over the block's threads, in thread order; `total` gets the sum. Every
/// thread of the block must call it (three barriers; the scratch is free again on return).
__device__ __forceinline__ long long blockExclusiveOffset(long long value, long long& total, BlockScratch& scratch) {
    total = 0;
    return primitives::detail::blockExclusiveSum(value, total, scratch.warpSums);
}

/// out[i] = in[0] + … + in[i-1] for i < n (in == out allowed), each thread over its chunk; returns the
/// total to every thread, with `out` visible to all. Every thread of the block must call it.
template <typename In, typename Out>
__device__ long long blockExclusiveScan(const In* in, Out* out, int n, BlockScratch& scratch) {
    const Chunk chunk = chunkOf(n);
    long long sum = 0;
    for (int i = chunk.begin; i < chunk.end; ++i) {
        sum += static_cast<long long>(in[i]);
    }
    long long total = 0;
    long long running = blockExclusiveOffset(sum, total, scratch);
    for (int i = chunk.begin; i < chunk.end; ++i) {
        const long long v = static_cast<long long>(in[i]);
        out[i] = static_cast<Out>(running);
        running += v;
    }
    __syncthreads();
    return total;
}

/// Stream compaction of the items i < n with keep(i), in index order, in two calls: plan() counts them
/// (every thread gets the number, so that the caller can make room), emit() hands each kept item its
/// position. Every thread of the block must call both; the positions are written when the caller's
/// next barrier has passed.
struct BlockCompaction {
    Chunk chunk;
    int offset;  ///< this thread's first position
    int total;

    template <typename Keep>
    __device__ static BlockCompaction plan(int n, Keep&& keep, BlockScratch& scratch) {
        BlockCompaction c{chunkOf(n), 0, 0};
        long long kept = 0;
        for (int i = c.chunk.begin; i < c.chunk.end; ++i) {
            kept += keep(i) ? 1 : 0;
        }
        long long total = 0;
        c.offset = static_cast<int>(blockExclusiveOffset(kept, total, scratch));
        c.total = static_cast<int>(total);
        return c;
    }

    template <typename Keep, typename Emit>
    __device__ void emit(Keep&& keep, Emit&& at) const {
        int position = offset;
        for (int i = chunk.begin; i < chunk.end; ++i) {
            if (keep(i)) {
                at(i, position++);
            }
        }
    }
};

/// Bounding box and count of a step's present, finite samples (every thread gets them).
struct StepBox {
    double minX, maxX, minY, maxY;
    int count;
};

__device__ StepBox blockStepBox(const Pools& p, const BatchParams& bp, long long base, BlockScratch& scratch, bool flagInvalid) {
    double minX = INFINITY, minY = INFINITY, maxX = -INFINITY, maxY = -INFINITY;
    long long count = 0;
    for (int i = static_cast<int>(threadIdx.x); i < bp.entities; i += static_cast<int>(blockDim.x)) {
        double px = 0.0;
        double py = 0.0;
        if (!batchSample(bp, base + i, px, py)) {
            continue;
        }
        if (!(isfinite(px) && isfinite(py))) {  // flagged (invalid input) and treated as missing
            if (flagInvalid) {
                p.counters->invalid = 1;
            }
            continue;
        }
        minX = fmin(minX, px);
        maxX = fmax(maxX, px);
        minY = fmin(minY, py);
        maxY = fmax(maxY, py);
        ++count;
    }
    for (int offset = WARP_THREADS / 2; offset > 0; offset /= 2) {
        minX = fmin(minX, __shfl_xor_sync(FULL_WARP, minX, offset));
        maxX = fmax(maxX, __shfl_xor_sync(FULL_WARP, maxX, offset));
        minY = fmin(minY, __shfl_xor_sync(FULL_WARP, minY, offset));
        maxY = fmax(maxY, __shfl_xor_sync(FULL_WARP, maxY, offset));
    }
    count = warpAllSum(count);
    const int lane = laneId();
    const int warp = static_cast<int>(threadIdx.x) / WARP_THREADS;
    const int warps = static_cast<int>(blockDim.x) / WARP_THREADS;
    if (lane == 0) {
        scratch.box[0][warp] = minX;
        scratch.box[1][warp] = maxX;
        scratch.box[2][warp] = minY;
        scratch.box[3][warp] = maxY;
        scratch.warpSums[warp] = count;
    }
    __syncthreads();
    if (warp == 0) {  // the warps' boxes → slot 0
        const bool has = lane < warps;
        double wMinX = has ? scratch.box[0][lane] : INFINITY;
        double wMaxX = has ? scratch.box[1][lane] : -INFINITY;
        double wMinY = has ? scratch.box[2][lane] : INFINITY;
        double wMaxY = has ? scratch.box[3][lane] : -INFINITY;
        const long long wCount = warpAllSum(has ? scratch.warpSums[lane] : 0);
        for (int offset = WARP_THREADS / 2; offset > 0; offset /= 2) {
            wMinX = fmin(wMinX, __shfl_xor_sync(FULL_WARP, wMinX, offset));
            wMaxX = fmax(wMaxX, __shfl_xor_sync(FULL_WARP, wMaxX, offset));
            wMinY = fmin(wMinY, __shfl_xor_sync(FULL_WARP, wMinY, offset));
            wMaxY = fmax(wMaxY, __shfl_xor_sync(FULL_WARP, wMaxY, offset));
        }
        if (lane == 0) {
            scratch.box[0][0] = wMinX;
            scratch.box[1][0] = wMaxX;
            scratch.box[2][0] = wMinY;
            scratch.box[3][0] = wMaxY;
            scratch.warpSums[0] = wCount;
        }
    }
    __syncthreads();
    // Read before the scratch's next use, which follows a barrier of the caller.
    return StepBox{scratch.box[0][0], scratch.box[1][0], scratch.box[2][0], scratch.box[3][0], static_cast<int>(scratch.warpSums[0])};
}

// ---- one step's arrays: carved from shared memory or from a global workspace ----

/// Bump allocation of 8-byte aligned arrays from one byte range (a failed take fails every later one);
/// the host sizes the workspaces with arenaBytes, which adds the arrays up in the same order.
struct Arena {
    static constexpr long long FAILED = 1LL << 62;
    char* base;
    long long size;
    long long used;

    template <typename T>
    __device__ T* take(long long count) {
        const long long bytes = (count * static_cast<long long>(sizeof(T)) + 7) & ~7LL;
        if (used + bytes > size) {
            used = FAILED;  // sticky: every later take fails too, so checking the last one suffices
            return nullptr;
        }
        T* at = reinterpret_cast<T*>(base + used);
        used += bytes;
        return at;
    }

    /// Optional scratch from the top of the range (nullptr when there is no room; not a failure):
    /// later takes must not reach it while it is in use (`reaches`); `restoreTop(size before)` frees it.
    template <typename T>
    __device__ T* takeTop(long long count) {
        const long long bytes = (count * static_cast<long long>(sizeof(T)) + 7) & ~7LL;
        if (used + bytes > size) {
            return nullptr;
        }
        size -= bytes;
        return reinterpret_cast<T*>(base + size);
    }
    __device__ bool reaches(const void* top) const { return base + used > static_cast<const char*>(top); }
    __device__ void restoreTop(long long sizeBefore) { size = sizeBefore; }
};

__host__ __device__ constexpr long long aligned8(long long bytes) { return (bytes + 7) & ~7LL; }

/// Bytes one step needs: `points` present points, `cells` grid cells, `disks` disks, `members` candidate
/// members (the order and rounding of processStep's Arena::take calls; at most `disks` candidate disks).
__host__ __device__ constexpr long long arenaBytes(long long points, long long cells, long long disks, long long members) {
    return 2 * aligned8(points * 8) + aligned8(points * 4) + aligned8((points + 1) * 4) + aligned8((cells + 1) * 4) +
           2 * aligned8(disks * 4) + aligned8((disks + 1) * 4) + aligned8(disks * 4) + aligned8((disks + 1) * 4) + aligned8(disks * 8) +
           aligned8(members * 4);
}

/// A step's sorted points, grid and disks. The disks are the Lemma-3 pairs, anchored at their lower
/// entity's slot and in slot order; the candidates are the disks with at least μ points, in disk order.
struct StepArrays {
    StepGrid grid;
    double* x;         ///< per slot (points sorted by cell, then by entity)
    double* y;
    int* id;           ///< the slot's entity
    int* diskBegin;    ///< per slot + 1: the disks anchored at the slot's point; from the maximal pass on, its candidates
    int* cellStart;    ///< per cell + 1
    int* anchor;       ///< per disk: anchor slot
    int* partner;      ///< per disk + 1: partner slot; after the maximal pass per candidate + 1: 1 when its set is kept, then its set index
    int* diskSize;     ///< per disk: its points when ≥ μ, else 0; after the maximal pass per candidate: the kept set's size, then its member offset
    int* candidate;    ///< per candidate: its disk
    int* memberStart;  ///< per candidate + 1: its members' offset
    unsigned long long* signature;  ///< per candidate
    int* members;
};

__device__ __forceinline__ int cellOfPoint(const StepGrid& grid, double px, double py) {
    return cellCoordinate(py, grid.minY_m, grid.inverseCell, grid.side) * grid.side + cellCoordinate(px, grid.minX_m, grid.inverseCell, grid.side);
}

/// The 5 × 5 (coarse grids: 3 × 3) cells around a cell, clipped to the grid: rows y0 … y1, in each the
/// cells x0 … x1, whose slots are contiguous.
struct Neighbourhood {
    int x0, x1, y0, y1;

    /// Slots of row y: [rowBegin, rowEnd).
    __device__ __forceinline__ int rowBegin(const int* cellStart, int side, int y) const { return cellStart[y * side + x0]; }
    __device__ __forceinline__ int rowEnd(const int* cellStart, int side, int y) const { return cellStart[y * side + x1 + 1]; }
};

__device__ __forceinline__ Neighbourhood neighbourhoodOf(const StepGrid& grid, int cell) {
    const int cx = cell % grid.side;
    const int cy = cell / grid.side;
    return {max(cx - grid.reach, 0), min(cx + grid.reach, grid.side - 1), max(cy - grid.reach, 0), min(cy + grid.reach, grid.side - 1)};
}

/// Visits the slots of the neighbourhood of `cell`, row by row.
template <typename Visit>
__device__ __forceinline__ void forNeighbours(const StepArrays& s, int cell, Visit&& visit) {
    const Neighbourhood near = neighbourhoodOf(s.grid, cell);
    for (int y = near.y0; y <= near.y1; ++y) {
        const int end = near.rowEnd(s.cellStart, s.grid.side, y);
        for (int k = near.rowBegin(s.cellStart, s.grid.side, y); k < end; ++k) {
            visit(k);
        }
    }
}

/// Slots of a neighbourhood a pair mask covers (one bit each, in forNeighbours' order).
constexpr int PAIR_MASK_SLOTS = 64;

/// Pairs at distance ≤ 2ε from slot j to points of a higher entity index, counted. With `mask`, bit i of
/// *mask tells whether the i-th slot of the neighbourhood (forNeighbours' order) is a partner, for the
/// first PAIR_MASK_SLOTS slots.
__device__ __forceinline__ int countPairs(const StepArrays& s, const Limits& limits, int j, unsigned long long* mask) {
    const int a = s.id[j];
    const double ax = s.x[j];
    const double ay = s.y[j];
    int pairs = 0;
    int position = 0;
    unsigned long long bits = 0;
    forNeighbours(s, cellOfPoint(s.grid, ax, ay), [&](int k) {
        const int at = position++;
        if (s.id[k] <= a || squaredNorm(subRn(s.x[k], ax), subRn(s.y[k], ay)) > limits.pair2) {
            return;
        }
        if (at < PAIR_MASK_SLOTS) {
            bits |= 1ULL << at;
        }
        ++pairs;
    });
    if (mask != nullptr) {
        *mask = bits;
    }
    return pairs;
}

/// Writes slot j's pairs (countPairs) as disks from `first` on (anchor j, partner slot), in
/// neighbourhood order: from countPairs' mask when the neighbourhood has at most PAIR_MASK_SLOTS slots,
/// else by testing the distances again.
__device__ __forceinline__ void emitPairs(const StepArrays& s, const Limits& limits, int j, int first, const unsigned long long* mask) {
    const int cell = cellOfPoint(s.grid, s.x[j], s.y[j]);
    const Neighbourhood near = neighbourhoodOf(s.grid, cell);
    const int side = s.grid.side;
    int slots = 0;
    for (int y = near.y0; y <= near.y1 && mask != nullptr; ++y) {
        slots += near.rowEnd(s.cellStart, side, y) - near.rowBegin(s.cellStart, side, y);
    }
    int d = first;
    if (mask != nullptr && slots <= PAIR_MASK_SLOTS) {
        const unsigned long long bits = *mask;
        int position = 0;
        for (int y = near.y0; y <= near.y1; ++y) {
            const int begin = near.rowBegin(s.cellStart, side, y);
            const int length = near.rowEnd(s.cellStart, side, y) - begin;
            unsigned long long row = position < PAIR_MASK_SLOTS ? bits >> position : 0;
            if (length < PAIR_MASK_SLOTS) {
                row &= (1ULL << length) - 1ULL;
            }
            while (row != 0) {
                s.anchor[d] = j;
                s.partner[d] = begin + __ffsll(static_cast<long long>(row)) - 1;
                ++d;
                row &= row - 1ULL;
            }
            position += length;
        }
        return;
    }
    const int a = s.id[j];
    const double ax = s.x[j];
    const double ay = s.y[j];
    forNeighbours(s, cell, [&](int k) {
        if (s.id[k] <= a || squaredNorm(subRn(s.x[k], ax), subRn(s.y[k], ay)) > limits.pair2) {
            return;
        }
        s.anchor[d] = j;
        s.partner[d] = k;
        ++d;
    });
}

/// Points in disk d (Lemma 3: the disk right of anchor → partner); with `out`, their entities, sorted.
__device__ __forceinline__ int diskPoints(const StepArrays& s, const Limits& limits, int d, int* out) {
    const int j = s.anchor[d];
    const int k = s.partner[d];
    const double ax = s.x[j];
    const double ay = s.y[j];
    const DiskOffset offset = rightDiskOffset(subRn(s.x[k], ax), subRn(s.y[k], ay), limits.radius2);
    int count = 0;
    forNeighbours(s, cellOfPoint(s.grid, ax, ay), [&](int slot) {
        if (!insideDisk(subRn(s.x[slot], ax), subRn(s.y[slot], ay), offset, limits.member2)) {
            return;
        }
        if (out != nullptr) {  // insertion into the sorted prefix
            const int id = s.id[slot];
            int i = count;
            while (i > 0 && out[i - 1] > id) {
                out[i] = out[i - 1];
                --i;
            }
            out[i] = id;
        }
        ++count;
    });
    return count;
}

enum class StepOutcome { Done, NoRoom };

/// The step's record (thread 0): its disks, kept sets and members, and where they went in the staging family.
__device__ __forceinline__ void recordStep(const Pools& p, int step, long long disks, long long sets, long long members, long long setBase,
                                           long long memberBase) {
    if (threadIdx.x == 0) {
        p.stepDisks[step] = disks;
        p.stepSets[step] = static_cast<int>(sets);
        p.stepMembers[step] = members;
        p.stepSetBase[step] = setBase;
        p.stepMemberBase[step] = memberBase;
    }
}

/// One free global workspace, claimed (-1: none).
__device__ int claimWorkspace(const Pools& p) {
    for (int w = 0; w * 32 < p.workspaceCount; ++w) {
        unsigned int busy = p.workspaceBusy[w];
        for (;;) {
            const int bit = __ffs(static_cast<int>(~busy)) - 1;
            if (bit < 0 || w * 32 + bit >= p.workspaceCount) {
                break;
            }
            const unsigned int before = atomicOr(&p.workspaceBusy[w], 1U << bit);
            if ((before & (1U << bit)) == 0) {
                return w * 32 + bit;
            }
            busy = before;
        }
    }
    return -1;
}

/// The second half of a step's potential stage, from its disks on (emission, points per disk,
/// candidates, members, the step's maximal sets, their copy into the staging family), in `arena`: the
/// block's shared memory after the points and grid, or a global workspace. NoRoom (nothing written to
/// the step's record) when the arena is too small. `pairMasks` (countPairs' masks, at the top of the
/// shared memory; `masksInArena`: of this arena) becomes nullptr when they may have been overwritten.
__device__ __forceinline__ StepOutcome finishStep(const Pools& p, int step, StepArrays& s, int n, int d0, Arena arena, BlockScratch& scratch,
                                                  unsigned long long*& pairMasks, bool masksInArena) {
    const int tid = static_cast<int>(threadIdx.x);
    const int threads = static_cast<int>(blockDim.x);
    Counters& counters = *p.counters;
    s.anchor = arena.take<int>(d0);
    s.partner = arena.take<int>(d0 + 1);
    s.diskSize = arena.take<int>(d0);
    if (s.diskSize == nullptr) {
        return StepOutcome::NoRoom;
    }
    if (pairMasks != nullptr && masksInArena && arena.reaches(pairMasks)) {
        pairMasks = nullptr;
    }
    for (int j = tid; j < n; j += threads) {
        emitPairs(s, p.limits, j, s.diskBegin[j], pairMasks != nullptr ? pairMasks + j : nullptr);
    }
    __syncthreads();

    // Points per disk (< μ: none); the candidates (the disks with ≥ μ points) → their member slots.
    for (int d = tid; d < d0; d += threads) {
        const int count = diskPoints(s, p.limits, d, nullptr);
        s.diskSize[d] = count >= p.minEntities ? count : 0;
    }
    __syncthreads();
    const auto isCandidate = [&](int d) { return s.diskSize[d] > 0; };
    const BlockCompaction compaction = BlockCompaction::plan(d0, isCandidate, scratch);
    const int c0 = compaction.total;
    s.candidate = arena.take<int>(c0);
    s.memberStart = arena.take<int>(c0 + 1);
    s.signature = arena.take<unsigned long long>(c0);
    if (s.signature == nullptr) {
        pairMasks = nullptr;  // the arrays taken before the one that failed may have reached them
        return StepOutcome::NoRoom;
    }
    compaction.emit(isCandidate, [&](int d, int c) {
        s.candidate[c] = d;
        s.memberStart[c] = s.diskSize[d];
    });
    __syncthreads();
    const long long candidates = blockExclusiveScan(s.memberStart, s.memberStart, c0, scratch);
    if (candidates > p.maxStepMembers) {
        if (tid == 0) {
            atomicMax(&counters.memberNeed, candidates);
        }
        recordStep(p, step, d0, 0, 0, 0, 0);
        return StepOutcome::Done;
    }
    s.members = arena.take<int>(candidates);
    if (s.members == nullptr) {
        pairMasks = nullptr;  // the candidates' arrays may have reached them
        return StepOutcome::NoRoom;
    }
    // Each slot's disks → its candidates (they are in slot order too): diskBegin[j] = the first
    // candidate anchored at slot j or later.
    for (int c = tid; c < c0; c += threads) {
        const int j = s.anchor[s.candidate[c]];
        const int before = c > 0 ? s.anchor[s.candidate[c - 1]] : -1;
        for (int k = before + 1; k <= j; ++k) {
            s.diskBegin[k] = c;
        }
        if (c == c0 - 1) {
            for (int k = j + 1; k <= n; ++k) {
                s.diskBegin[k] = c0;
            }
        }
    }
    if (tid == 0) {
        s.memberStart[c0] = static_cast<int>(candidates);
    }
    __syncthreads();
    for (int c = tid; c < c0; c += threads) {
        const int start = s.memberStart[c];
        diskPoints(s, p.limits, s.candidate[c], s.members + start);
        s.signature[c] = signatureOf(s.members + start, s.memberStart[c + 1] - start);
    }
    __syncthreads();

    // Maximal sets of the step: a candidate's set is dropped when a candidate anchored near it holds a
    // strict superset, or the same set with a lower index (a superset contains the anchor, so its own
    // anchor is within 2ε). A group of `lanes` lanes takes one candidate and goes over those near it: as
    // many lanes per candidate (a power of two, at most a warp) as keep the block's threads busy.
    // Afterwards partner[c] = 1 / diskSize[c] = size for the kept sets, else 0.
    int lanes = 1;
    while (lanes < WARP_THREADS && c0 * lanes * 2 <= threads) {
        lanes *= 2;
    }
    const int member = tid % lanes;
    const unsigned int groupLanes = lanes == WARP_THREADS ? FULL_WARP : ((1U << lanes) - 1U) << (laneId() & ~(lanes - 1));
    for (int c = tid / lanes; c < c0; c += threads / lanes) {
        const int start = s.memberStart[c];
        const int size = s.memberStart[c + 1] - start;
        const int* set = s.members + start;
        const unsigned long long signature = s.signature[c];
        const int j = s.anchor[s.candidate[c]];
        const Neighbourhood near = neighbourhoodOf(s.grid, cellOfPoint(s.grid, s.x[j], s.y[j]));
        bool dominated = false;
        for (int y = near.y0; y <= near.y1 && !dominated; ++y) {
            // The candidates anchored in the row's slots are contiguous.
            const int end = s.diskBegin[near.rowEnd(s.cellStart, s.grid.side, y)];
            for (int base = s.diskBegin[near.rowBegin(s.cellStart, s.grid.side, y)]; base < end && !dominated; base += lanes) {
                const int e = base + member;
                bool dominates = false;
                if (e < end && e != c) {
                    const int otherStart = s.memberStart[e];
                    const int other = s.memberStart[e + 1] - otherStart;
                    if (other >= size && (signature & ~s.signature[e]) == 0 && (other > size || e < c)) {
                        dominates = isSubset(set, size, s.members + otherStart, other);
                    }
                }
                dominated = __ballot_sync(groupLanes, dominates) != 0;
            }
        }
        if (member == 0) {
            s.partner[c] = dominated ? 0 : 1;
            s.diskSize[c] = dominated ? 0 : size;
        }
    }
    __syncthreads();

    // The kept sets → one chunk of the staging family (claimed with one atomic per pool), in candidate order.
    const long long sets = blockExclusiveScan(s.partner, s.partner, c0, scratch);
    const long long members = blockExclusiveScan(s.diskSize, s.diskSize, c0, scratch);
    if (tid == 0) {
        scratch.broadcast[0] = static_cast<long long>(atomicAdd(&counters.setCursor, static_cast<unsigned long long>(sets)));
        scratch.broadcast[1] = static_cast<long long>(atomicAdd(&counters.memberCursor, static_cast<unsigned long long>(members)));
        s.partner[c0] = static_cast<int>(sets);
    }
    __syncthreads();
    const long long setBase = scratch.broadcast[0];
    const long long memberBase = scratch.broadcast[1];
    recordStep(p, step, d0, sets, members, setBase, memberBase);
    if (setBase + sets <= p.maxSets && memberBase + members <= p.maxFamilyMembers) {
        for (int c = tid; c < c0; c += threads) {
            if (s.partner[c + 1] == s.partner[c]) {
                continue;
            }
            const long long at = setBase + s.partner[c];
            const int offset = s.diskSize[c];
            p.stagedOffsets[at] = offset;
            p.stagedSignature[at] = s.signature[c];
            const int start = s.memberStart[c];
            const int size = s.memberStart[c + 1] - start;
            int* to = p.stagedMembers + memberBase + offset;
            for (int i = 0; i < size; ++i) {
                to[i] = s.members[start + i];
            }
        }
    }
    __syncthreads();  // the arena and the scratch are reused by the block's next step
    return StepOutcome::Done;
}

/// The whole potential stage of one step (seeds/002 §4.1–4.2) by one block, in `arena`: grid
/// (counting, prefix sum, placement), Lemma-3 disks (counting, prefix sum, emission), points per disk
/// (drop < μ), sorted members and signatures, the maximal sets of the step, and their copy into the
/// staging family with the step's record. NoRoom (nothing written) when the arena is too small; a step
/// over maxDisksPerStep or maxCandidateMembersPerStep is recorded with no sets and its need. IN_PLACE:
/// when the points and grid fit but the disks do not, the disks go to a global workspace instead (see
/// the tuning policy's IN_PLACE_WAVES).
template <bool IN_PLACE>
__device__ __forceinline__ StepOutcome processStep(const Pools& p, int step, Arena arena, BlockScratch& scratch, bool firstVisit) {
    const BatchParams bp = *p.params;
    const long long base = static_cast<long long>(step) * bp.entities;
    const int tid = static_cast<int>(threadIdx.x);
    const int threads = static_cast<int>(blockDim.x);
    const StepBox box = blockStepBox(p, bp, base, scratch, firstVisit);
    StepArrays s{};
    s.grid = makeStepGrid(box.minX, box.maxX, box.minY, box.maxY, p.limits.cellMin_m, p.sideCap);
    const int n = box.count;
    const int cells = s.grid.side * s.grid.side;
    s.x = arena.take<double>(n);
    s.y = arena.take<double>(n);
    s.id = arena.take<int>(n);
    s.diskBegin = arena.take<int>(n + 1);
    s.cellStart = arena.take<int>(cells + 1);
    if (s.cellStart == nullptr) {
        return StepOutcome::NoRoom;
    }

    // §4.1 grid: points per cell (counted at cellStart + 1), prefix sum, placement by a cursor per cell
    // that ends at the next cell's start; then each cell in entity order (deterministic slots).
    int* cursor = s.cellStart + 1;
    for (int c = tid; c <= cells; c += threads) {
        s.cellStart[c] = 0;
    }
    __syncthreads();
    const auto presentAt = [&](int i, double& px, double& py) {
        return batchSample(bp, base + i, px, py) && isfinite(px) && isfinite(py);
    };
    for (int i = tid; i < bp.entities; i += threads) {
        double px, py;
        if (presentAt(i, px, py)) {
            atomicAdd(&cursor[cellOfPoint(s.grid, px, py)], 1);
        }
    }
    __syncthreads();
    blockExclusiveScan(cursor, cursor, cells, scratch);
    for (int i = tid; i < bp.entities; i += threads) {
        double px, py;
        if (presentAt(i, px, py)) {
            const int slot = atomicAdd(&cursor[cellOfPoint(s.grid, px, py)], 1);
            s.x[slot] = px;
            s.y[slot] = py;
            s.id[slot] = i;
        }
    }
    __syncthreads();
    for (int c = tid; c < cells; c += threads) {
        for (int k = s.cellStart[c] + 1; k < s.cellStart[c + 1]; ++k) {
            const int id = s.id[k];
            const double px = s.x[k];
            const double py = s.y[k];
            int i = k;
            while (i > s.cellStart[c] && s.id[i - 1] > id) {
                s.id[i] = s.id[i - 1];
                s.x[i] = s.x[i - 1];
                s.y[i] = s.y[i - 1];
                --i;
            }
            s.id[i] = id;
            s.x[i] = px;
            s.y[i] = py;
        }
    }
    __syncthreads();

    // §4.2 Lemma-3 disks: pairs per point → disk slots → emission (anchored at the lower entity index).
    // Each point's partners are also kept as a mask over its neighbourhood (room permitting, at the top
    // of the arena), so that the emission need not test the distances again.
    const long long sizeBeforeMasks = arena.size;
    unsigned long long* pairMasks = arena.takeTop<unsigned long long>(n);
    for (int j = tid; j < n; j += threads) {
        s.diskBegin[j] = countPairs(s, p.limits, j, pairMasks != nullptr ? pairMasks + j : nullptr);
    }
    __syncthreads();
    const long long disks = blockExclusiveScan(s.diskBegin, s.diskBegin, n, scratch);
    if (disks > p.maxStepDisks) {
        if (tid == 0) {
            atomicMax(&p.counters->diskNeed, disks);
        }
        recordStep(p, step, disks, 0, 0, 0, 0);
        return StepOutcome::Done;
    }
    arena.restoreTop(sizeBeforeMasks);  // the masks stay intact unless the disks reach them
    const StepOutcome outcome = finishStep(p, step, s, n, static_cast<int>(disks), arena, scratch, pairMasks, true);
    if (!IN_PLACE || outcome == StepOutcome::Done) {
        return outcome;
    }
    // No room for the disks: worked in place, in a global workspace, while one is free and enough of the
    // batch's steps follow to cover the time (else the second kernel takes the step).
    if (tid == 0) {
        const bool early = step < p.params->steps - p.inPlaceWaves * p.residentStepBlocks;
        scratch.broadcast[2] = early ? claimWorkspace(p) : -1;
    }
    __syncthreads();
    const int slot = static_cast<int>(scratch.broadcast[2]);
    if (slot < 0) {
        return StepOutcome::NoRoom;
    }
    const Arena workspace{p.workspaces + static_cast<long long>(slot) * p.workspaceBytes, p.workspaceBytes, 0};
    // A workspace is sized for any step within the capacities, so this finishes the step; were it ever
    // too small, nothing of the step is written and the second kernel takes it, as from shared memory.
    const StepOutcome inPlace = finishStep(p, step, s, n, static_cast<int>(disks), workspace, scratch, pairMasks, false);
    if (tid == 0) {
        atomicAnd(&p.workspaceBusy[slot / 32], ~(1U << (slot % 32)));
        if (inPlace == StepOutcome::Done) {
            atomicAdd(&p.counters->inPlaceSteps, 1);
        }
    }
    return inPlace;
}

// The potential stage of step blockIdx.x in shared memory (dynamic: p.sharedBytes). A step whose disks do
// not fit is finished in place in a global workspace when it is early enough in the batch; other steps
// that do not fit are handed to stepsInWorkspaceKernel.
__global__ void __launch_bounds__(tuning::MAX_STEP_BLOCK, tuning::MIN_STEP_BLOCKS) stepsInSharedKernel(Pools p) {
    extern __shared__ __align__(16) char arenaMemory[];
    __shared__ BlockScratch scratch;
    const int steps = p.params->steps;
    for (int step = static_cast<int>(blockIdx.x); step < steps; step += static_cast<int>(gridDim.x)) {
        if (processStep<true>(p, step, Arena{arenaMemory, p.sharedBytes, 0}, scratch, true) == StepOutcome::NoRoom && threadIdx.x == 0) {
            p.fallback[atomicAdd(&p.counters->fallbackSteps, 1)] = step;
        }
        __syncthreads();
    }
}

// The steps that did not fit the per-step kernel's shared memory: each first in the largest shared
// memory a block may have (dynamic: p.fallbackSharedBytes, one block per SM; 0: skipped), and when
// that is too small too, in its block's global workspace (sized at init for maxEntities points, the
// full grid, maxDisksPerStep disks and maxCandidateMembersPerStep members).
__global__ void __launch_bounds__(tuning::MAX_STEP_BLOCK, tuning::MIN_STEP_BLOCKS) stepsInWorkspaceKernel(Pools p) {
    extern __shared__ __align__(16) char arenaMemory[];
    __shared__ BlockScratch scratch;
    const int count = p.counters->fallbackSteps;
    const Arena workspace{p.workspaces + static_cast<long long>(blockIdx.x) * p.workspaceBytes, p.workspaceBytes, 0};
    for (int i = static_cast<int>(blockIdx.x); i < count; i += static_cast<int>(gridDim.x)) {
        const int step = p.fallback[i];
        if (p.fallbackSharedBytes > 0 &&
            processStep<false>(p, step, Arena{arenaMemory, p.fallbackSharedBytes, 0}, scratch, false) == StepOutcome::Done) {
            __syncthreads();
            continue;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            atomicAdd(&p.counters->globalSteps, 1);
        }
        processStep<false>(p, step, workspace, scratch, false);
        __syncthreads();
    }
}

// One block: the steps' sets and members → prefix sums (stepBegin, stepMemberBegin), the totals and the
// first capacity that ran out → the header.
__global__ void familyIndexKernel(Pools p) {
    __shared__ BlockScratch scratch;
    const BatchParams bp = *p.params;
    const long long sets = blockExclusiveScan(p.stepSets, p.stepBegin, bp.steps, scratch);
    const long long members = blockExclusiveScan(p.stepMembers, p.stepMemberBegin, bp.steps, scratch);
    long long disks = 0;
    for (int t = static_cast<int>(threadIdx.x); t < bp.steps; t += static_cast<int>(blockDim.x)) {
        disks += p.stepDisks[t];
    }
    disks = warpAllSum(disks);
    if (laneId() == 0) {
        scratch.warpSums[threadIdx.x / WARP_THREADS] = disks;
    }
    __syncthreads();
    if (threadIdx.x != 0) {
        return;
    }
    BatchHeader h{};
    for (int w = 0; w < static_cast<int>(blockDim.x) / WARP_THREADS; ++w) {
        h.disks += scratch.warpSums[w];
    }
    const Counters& c = *p.counters;
    h.invalid = c.invalid;
    h.stepsInWorkspace = c.fallbackSteps + c.inPlaceSteps;
    h.stepsInPlace = c.inPlaceSteps;
    h.stepsInGlobal = c.globalSteps + c.inPlaceSteps;
    h.keptSets = sets;
    h.keptMembers = members;
    h.overflow = static_cast<int>(Capacity::None);
    if (c.diskNeed > 0) {
        h.overflow = static_cast<int>(Capacity::DisksPerStep);
        h.needed = c.diskNeed;
    } else if (c.memberNeed > 0) {
        h.overflow = static_cast<int>(Capacity::CandidateMembersPerStep);
        h.needed = c.memberNeed;
    } else if (sets > p.maxSets) {
        h.overflow = static_cast<int>(Capacity::FamilySetsPerBatch);
        h.needed = sets;
    } else if (members > p.maxFamilyMembers) {
        h.overflow = static_cast<int>(Capacity::FamilyMembersPerBatch);
        h.needed = members;
    } else {
        p.stepBegin[bp.steps] = static_cast<int>(sets);
        p.stepMemberBegin[bp.steps] = members;
        p.familyOffsets[sets] = members;
        h.potentialWindows = p.stepBegin[max(bp.steps - p.delta + 1, 0)];
        h.potentialAll = static_cast<int>(sets);
    }
    *p.header = h;
}

// The staged chunks → the batch family in step order (one warp per step), each set with its step.
__global__ void familyCopyKernel(Pools p) {
    if (p.header->overflow != static_cast<int>(Capacity::None)) {
        return;
    }
    const int steps = p.params->steps;
    const int lane = laneId();
    for (long long t = warpStart(); t < steps; t += warpStep()) {
        const int sets = p.stepSets[t];
        const long long setFrom = p.stepSetBase[t];
        const long long memberFrom = p.stepMemberBase[t];
        const int setTo = p.stepBegin[t];
        const long long memberTo = p.stepMemberBegin[t];
        for (int i = lane; i < sets; i += WARP_THREADS) {
            p.familyOffsets[setTo + i] = memberTo + p.stagedOffsets[setFrom + i];
            p.familyStep[setTo + i] = static_cast<int>(t);
            p.familySignature[setTo + i] = p.stagedSignature[setFrom + i];
        }
        const long long members = p.stepMembers[t];
        for (long long i = lane; i < members; i += WARP_THREADS) {
            p.familyMembers[memberTo + i] = p.stagedMembers[memberFrom + i];
        }
    }
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
    int gridBlocks{1};        ///< grid of the grid-stride / warp-per-step kernels
    int block{tuning::PolicySm90::BLOCK};
    int stepBlock{tuning::PolicySm90::BLOCK};  ///< threads of the per-step kernels (at most MAX_STEP_BLOCK)
    int workspaceBlocks{1};   ///< blocks (and global workspaces) of stepsInWorkspaceKernel
    bool useGraph{false};
    long long samples{0};

    platform::PinnedMemory hostX, hostY, hostPresent, hostParams, hostHeader;
    DeviceBuffer<double> x, y;
    DeviceBuffer<unsigned char> present;
    DeviceBuffer<BatchParams> batchParams;
    DeviceBuffer<Counters> counters;
    DeviceBuffer<char> workspaces;
    DeviceBuffer<unsigned int> workspaceBusy;
    DeviceBuffer<int> fallback, stepSets, stepBegin, stagedOffsets, stagedMembers, familyMembers, familyStep;
    DeviceBuffer<long long> stepDisks, stepMembers, stepSetBase, stepMemberBase, stepMemberBegin, familyOffsets;
    DeviceBuffer<unsigned long long> stagedSignature, familySignature;
    DeviceBuffer<BatchHeader> header;
    platform::Stream captureStream;
    platform::Graph graph;
    platform::Event started, potentialDone, intersectDone;
    std::unique_ptr<CudaWindowStage> window;

    /// The batch's input: `samples` samples from the pinned staging (host input) or from device memory.
    /// Not part of the graph (device input comes from the caller's buffers).
    GpuStatus enqueueUpload(const BatchParams& params, bool onDevice, long long samples, StreamHandle stream) {
        const auto n = static_cast<std::size_t>(samples);
        AUGUR_CUDA_TRY(platform::copyToDevice(batchParams.data(), hostParams.get(), sizeof(BatchParams), stream));
        if (n == 0 || onDevice) {  // device input is read in place
            return {};
        }
        AUGUR_CUDA_TRY(platform::copyToDevice(x.data(), hostX.get(), n * sizeof(double), stream));
        AUGUR_CUDA_TRY(platform::copyToDevice(y.data(), hostY.get(), n * sizeof(double), stream));
        if (params.present != nullptr) {
            return platform::copyToDevice(present.data(), hostPresent.get(), n, stream);
        }
        return {};
    }

    /// The potential stage's kernels and its header download. Graph-capturable.
    GpuStatus enqueueKernels(StreamHandle stream) {
        const Pools& p = pools;
        AUGUR_CUDA_TRY(platform::fillDevice(counters.data(), 0, sizeof(Counters), stream));
        AUGUR_CUDA_TRY(platform::fillDevice(workspaceBusy.data(), 0, workspaceBusy.size() * sizeof(unsigned int), stream));
        // One block per step, the step's whole potential stage in shared memory; the steps that do not
        // fit, one per block again, in global workspaces.
        AUGUR_CUDA_TRY(launch(stepsInSharedKernel, LaunchDims{p.maxSteps, stepBlock, static_cast<std::size_t>(p.sharedBytes)}, stream, p));
        AUGUR_CUDA_TRY(launch(stepsInWorkspaceKernel,
                              LaunchDims{workspaceBlocks, tuning::MAX_STEP_BLOCK, static_cast<std::size_t>(p.fallbackSharedBytes)},
                              stream, p));
        // The steps' (sets, members) → family slots and the header → the family in step order.
        AUGUR_CUDA_TRY(launch(familyIndexKernel, LaunchDims{1, tuning::INDEX_BLOCK}, stream, p));
        AUGUR_CUDA_TRY(launch(familyCopyKernel, LaunchDims{gridBlocks, block}, stream, p));
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

    int device = 0;
    int sharedPerMultiprocessor = 0;
    int sharedPerBlockOptIn = 0;
    int reservedPerBlock = 0;
    cudaFuncAttributes stepKernel{};
    cudaFuncAttributes fallbackKernel{};
    for (const auto& st : {AUGUR_CUDA_CHECK(cudaGetDevice(&device)),
                           AUGUR_CUDA_CHECK(cudaDeviceGetAttribute(&sharedPerMultiprocessor, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device)),
                           AUGUR_CUDA_CHECK(cudaDeviceGetAttribute(&sharedPerBlockOptIn, cudaDevAttrMaxSharedMemoryPerBlockOptin, device)),
                           AUGUR_CUDA_CHECK(cudaDeviceGetAttribute(&reservedPerBlock, cudaDevAttrReservedSharedMemoryPerBlock, device)),
                           AUGUR_CUDA_CHECK(cudaFuncGetAttributes(&stepKernel, stepsInSharedKernel)),
                           AUGUR_CUDA_CHECK(cudaFuncGetAttributes(&fallbackKernel, stepsInWorkspaceKernel))}) {
        if (!st) {
            return fail(gpuFailure(st.error()));
        }
    }
    // The SMs the kernels run on: the device's, or the active SM partition's.
    const auto active = platform::activeMultiprocessors();
    if (!active) {
        return fail(gpuFailure(active.error()));
    }
    const int multiprocessors = std::max(1, active.value());
    const tuning::LaunchPolicy& policy = shape.policy;
    s.gridBlocks = multiprocessors * shape.blocksPerSm;
    s.block = shape.block;
    // Per-step kernel: a block's threads from the points of a step (about four points per thread), and as
    // many blocks per SM as leave each room for a step of maxEntities points and the full grid with
    // STEP_ROOM times that (its disks and members), within the SM's threads.
    s.stepBlock = std::min(shape.stepBlock > 0 ? shape.stepBlock : (entities >= policy.largeStepEntities ? policy.largeStepBlock : policy.block),
                           tuning::MAX_STEP_BLOCK);
    const long long stepFootprint = arenaBytes(entities, static_cast<long long>(sideCap) * sideCap, 0, 0);
    const long long roomy = std::max(1LL, static_cast<long long>(sharedPerMultiprocessor) / std::max(1LL, stepFootprint * policy.stepRoomPercent / 100));
    const int stepBlocksPerSm = shape.stepBlocksPerSm > 0
                                    ? shape.stepBlocksPerSm
                                    : static_cast<int>(std::clamp(roomy, 1LL, static_cast<long long>(policy.smThreads / s.stepBlock)));
    s.workspaceBlocks = shape.workspaceBlocks > 0 ? shape.workspaceBlocks : multiprocessors * policy.workspaceBlocksPerSm;
    // Shared memory of one step's block: what lets stepBlocksPerSm blocks share an SM, or the shape's own
    // budget; at most what one block may have.
    const long long staticShared = static_cast<long long>(stepKernel.sharedSizeBytes);
    const long long largest = std::max(0LL, sharedPerBlockOptIn - staticShared);
    const long long perBlock = sharedPerMultiprocessor / stepBlocksPerSm - reservedPerBlock - staticShared;
    const long long budget = shape.stepSharedBytes > 0 ? shape.stepSharedBytes : perBlock;
    const long long sharedBytes = std::clamp(budget, 0LL, largest) & ~15LL;
    if (const auto st = AUGUR_CUDA_CHECK(cudaFuncSetAttribute(stepsInSharedKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                              static_cast<int>(sharedBytes)));
        !st) {
        return fail(gpuFailure(st.error()));
    }
    // The workspace kernel first tries the largest shared memory a block may have.
    const long long fallbackSharedBytes =
        shape.fallbackInShared ? std::max(0LL, sharedPerBlockOptIn - static_cast<long long>(fallbackKernel.sharedSizeBytes)) & ~15LL : 0;
    if (const auto st = AUGUR_CUDA_CHECK(cudaFuncSetAttribute(stepsInWorkspaceKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                              static_cast<int>(fallbackSharedBytes)));
        !st) {
        return fail(gpuFailure(st.error()));
    }
    const long long workspaceBytes =
        aligned8(arenaBytes(entities, static_cast<long long>(sideCap) * sideCap, capacities.maxDisksPerStep, capacities.maxCandidateMembersPerStep));

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
    AUGUR_FLOCK_ALLOC(s.counters, buffer<Counters>(1));
    AUGUR_FLOCK_ALLOC(s.workspaces, buffer<char>(workspaceBytes * s.workspaceBlocks));
    AUGUR_FLOCK_ALLOC(s.workspaceBusy, buffer<unsigned int>((s.workspaceBlocks + 31) / 32));
    AUGUR_FLOCK_ALLOC(s.fallback, buffer<int>(steps));
    AUGUR_FLOCK_ALLOC(s.stepDisks, buffer<long long>(steps));
    AUGUR_FLOCK_ALLOC(s.stepSets, buffer<int>(steps));
    AUGUR_FLOCK_ALLOC(s.stepMembers, buffer<long long>(steps));
    AUGUR_FLOCK_ALLOC(s.stepSetBase, buffer<long long>(steps));
    AUGUR_FLOCK_ALLOC(s.stepMemberBase, buffer<long long>(steps));
    AUGUR_FLOCK_ALLOC(s.stepMemberBegin, buffer<long long>(steps + 1));
    AUGUR_FLOCK_ALLOC(s.stepBegin, buffer<int>(steps + 1));
    AUGUR_FLOCK_ALLOC(s.stagedOffsets, buffer<int>(capacities.maxFamilySetsPerBatch));
    AUGUR_FLOCK_ALLOC(s.stagedSignature, buffer<unsigned long long>(capacities.maxFamilySetsPerBatch));
    AUGUR_FLOCK_ALLOC(s.stagedMembers, buffer<int>(capacities.maxFamilyMembersPerBatch));
    AUGUR_FLOCK_ALLOC(s.familyOffsets, buffer<long long>(capacities.maxFamilySetsPerBatch + 1));
    AUGUR_FLOCK_ALLOC(s.familyMembers, buffer<int>(capacities.maxFamilyMembersPerBatch));
    AUGUR_FLOCK_ALLOC(s.familyStep, buffer<int>(capacities.maxFamilySetsPerBatch));
    AUGUR_FLOCK_ALLOC(s.familySignature, buffer<unsigned long long>(capacities.maxFamilySetsPerBatch));
    AUGUR_FLOCK_ALLOC(s.header, buffer<BatchHeader>(1));
    AUGUR_FLOCK_ALLOC(s.started, platform::Event::create(true));
    AUGUR_FLOCK_ALLOC(s.potentialDone, platform::Event::create(true));
    AUGUR_FLOCK_ALLOC(s.intersectDone, platform::Event::create(true));

    Pools& p = s.pools;
    p.params = s.batchParams.data();
    p.counters = s.counters.data();
    p.fallback = s.fallback.data();
    p.workspaces = s.workspaces.data();
    p.workspaceBytes = workspaceBytes;
    p.workspaceBusy = s.workspaceBusy.data();
    p.workspaceCount = s.workspaceBlocks;
    p.residentStepBlocks = multiprocessors * stepBlocksPerSm;
    p.inPlaceWaves = shape.inPlaceWaves;
    p.fallbackSharedBytes = fallbackSharedBytes;
    p.sharedBytes = sharedBytes;
    p.stepDisks = s.stepDisks.data();
    p.stepSets = s.stepSets.data();
    p.stepMembers = s.stepMembers.data();
    p.stepSetBase = s.stepSetBase.data();
    p.stepMemberBase = s.stepMemberBase.data();
    p.stepMemberBegin = s.stepMemberBegin.data();
    p.stepBegin = s.stepBegin.data();
    p.stagedOffsets = s.stagedOffsets.data();
    p.stagedSignature = s.stagedSignature.data();
    p.stagedMembers = s.stagedMembers.data();
    p.familyOffsets = s.familyOffsets.data();
    p.familyMembers = s.familyMembers.data();
    p.familyStep = s.familyStep.data();
    p.familySignature = s.familySignature.data();
    p.header = s.header.data();
    p.maxSteps = static_cast<int>(steps);
    p.sideCap = sideCap;
    p.maxStepDisks = capacities.maxDisksPerStep;
    p.maxStepMembers = capacities.maxCandidateMembersPerStep;
    p.maxSets = capacities.maxFamilySetsPerBatch;
    p.maxFamilyMembers = capacities.maxFamilyMembersPerBatch;
    p.minEntities = params.minEntities;
    p.delta = params.windowSteps;
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
    families.windowBase = reinterpret_cast<const int*>(reinterpret_cast<const char*>(s.batchParams.data()) + offsetof(BatchParams, windowBase));
    families.memberBase =
        reinterpret_cast<const long long*>(reinterpret_cast<const char*>(s.batchParams.data()) + offsetof(BatchParams, memberBase));
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

Result<BatchResult, GpuError> CudaBatchStage::run(const TrajectoryView& view, bool onDevice, int firstStep, int steps, FlockList& out,
                                                  StreamHandle stream) noexcept {
    State& s = *m_state;
    const long long n = view.entityCount;
    const long long samples = static_cast<long long>(steps) * n;
    const long long first = static_cast<long long>(firstStep) * n;
    auto* params = static_cast<BatchParams*>(s.hostParams.get());
    params->steps = steps;
    params->entities = view.entityCount;
    params->windowBase = firstStep;
    params->memberBase = static_cast<long long>(out.memberCount());
    params->x = nullptr;
    params->y = nullptr;
    params->present = nullptr;
    if (samples > 0) {  // with no entities the view's pointers may be null
        const bool hasPresent = view.present != nullptr;
        if (onDevice) {  // read in place
            params->x = view.x_m + first;
            params->y = view.y_m + first;
            params->present = hasPresent ? view.present + first : nullptr;
        } else {
            std::memcpy(s.hostX.get(), view.x_m + first, static_cast<std::size_t>(samples) * sizeof(double));
            std::memcpy(s.hostY.get(), view.y_m + first, static_cast<std::size_t>(samples) * sizeof(double));
            params->x = s.x.data();
            params->y = s.y.data();
            if (hasPresent) {
                std::memcpy(s.hostPresent.get(), view.present + first, static_cast<std::size_t>(samples));
                params->present = s.present.data();
            }
        }
    }
    AUGUR_CUDA_TRY(s.started.record(stream));
    AUGUR_CUDA_TRY(s.enqueueUpload(*params, onDevice, samples, stream));
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
    result.stepsInWorkspace = header.stepsInWorkspace;
    result.stepsInPlace = header.stepsInPlace;
    result.stepsInGlobal = header.stepsInGlobal;
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
    // Into the list: straight when it is pinned, else through the stage's pinned staging. Flock records
    // index members from the list's start (memberBase), whose offsets are 32-bit.
    const std::int64_t downloadStart = platform::monotonicNow_ns();
    const FlockCounts counts = s.window->counts();
    if (out.size() + static_cast<std::size_t>(counts.flocks) > out.flockCapacity()) {
        result.overflow = Capacity::OutputFlocks;
        result.needed = static_cast<std::int64_t>(out.size()) + counts.flocks;
        return Result<BatchResult, GpuError>(result);
    }
    const long long memberEnd = static_cast<long long>(out.memberCount()) + counts.members;
    if (memberEnd > static_cast<long long>(out.memberCapacity()) || memberEnd > std::numeric_limits<std::int32_t>::max()) {
        result.overflow = Capacity::OutputMembers;
        result.needed = memberEnd;
        return Result<BatchResult, GpuError>(result);
    }
    if (out.pinned()) {
        AUGUR_CUDA_TRY(s.window->download(out.flockRoom().data(), out.memberRoom().data(), stream));
    } else {
        AUGUR_CUDA_TRY(s.window->download(s.window->stagingFlocks(), s.window->stagingMembers(), stream));
        std::memcpy(out.flockRoom().data(), s.window->stagingFlocks(), static_cast<std::size_t>(counts.flocks) * sizeof(Flock));
        std::memcpy(out.memberRoom().data(), s.window->stagingMembers(), static_cast<std::size_t>(counts.members) * sizeof(std::int32_t));
    }
    out.commit(static_cast<std::size_t>(counts.flocks), static_cast<std::size_t>(counts.members));
    auto potential = platform::Event::elapsed_ms(s.started, s.potentialDone);
    auto intersect = platform::Event::elapsed_ms(s.potentialDone, s.intersectDone);
    if (potential && intersect) {
        result.potential_us = 1e3 * static_cast<double>(*potential);
        result.intersect_us = 1e3 * static_cast<double>(*intersect) + 1e-3 * static_cast<double>(platform::monotonicNow_ns() - downloadStart);
    }
    return Result<BatchResult, GpuError>(result);
}

}  // namespace augur::kernels::flock::detail
