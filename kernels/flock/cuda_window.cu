// CUDA path of the intersection stage (seeds/002 §3.1 second step, §4.3) for all windows of a batch.
//
// Layers: CudaWindowStage::enqueue (host API) → enqueueBody (dispatch: fixed launch shapes from
// tuning.hpp, CUB scans) → thin __global__ entries → device set operations. Level L = 1 … δ-1 turns
// the families W_j = F_j ⊗ … ⊗ F_{j+L-1} of every window j into W_j ⊗ F_{j+L}:
//   1. count:   per set a of W_j, the sets b of F_{j+L} with |a ∩ b| ≥ μ and their total size;
//   2. scan:    one prefix sum of the (sets, members) pairs gives every intersection its slot;
//   3. write:   the intersections, sorted (merge of sorted runs), with a 64-bit signature;
//   4. maximal: an intersection is dropped when one of the same window is a strict superset, or the
//               same set at a lower index (signatures reject most pairs before the merge test);
//   5. scan + compact: the kept sets become W_j for the next level, still grouped by window.
// Then each window's flocks are ranked lexicographically, their members prefix-summed and written in
// that order. Every kernel reads the batch's sizes from device memory (graph replays), loops over a
// capacity-sized or device-counted index space, and stops when a pool ran out: the first capacity that
// ran out is recorded in a status word (never overrun) and reported in the header.
#include "cuda_window.hpp"

#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <new>

#include "augur/platform/memory.hpp"
#include "tuning.hpp"

namespace augur::kernels::flock::detail {

namespace {

using platform::DeviceBuffer;
using platform::GpuError;
using platform::GpuStatus;
using platform::StreamHandle;

/// Sets and members counted together, so one prefix sum sizes both pools.
struct Count2 {
    long long sets;
    long long members;
};

struct Count2Sum {
    __host__ __device__ Count2 operator()(const Count2& a, const Count2& b) const { return {a.sets + b.sets, a.members + b.members}; }
};

/// First capacity that ran out in this batch (0: none, UPSTREAM: the families were not valid).
struct Status {
    int overflow;
    int pad;
    long long needed;
};
constexpr int UPSTREAM = -1;

struct Header {
    long long flocks;
    long long members;
    long long needed;
    int overflow;
    int pad;
};

/// A family spread over the windows of a batch, as the kernels read it: sets grouped by window.
struct SetsView {
    const long long* offsets;
    const int* members;
    const int* window;                    ///< batch-relative window (or step) of each set
    const unsigned long long* signature;
    const int* count;                     ///< number of sets
    const int* windowBegin;               ///< windows + 1 entries
};

/// The same, writable.
struct SetsOut {
    long long* offsets;
    int* members;
    int* window;
    unsigned long long* signature;
    int* count;
    int* windowBegin;

    [[nodiscard]] SetsView view() const { return {offsets, members, window, signature, count, windowBegin}; }
};

/// Everything every kernel needs.
struct Params {
    const int* steps;
    const int* upstream;
    const long long* famOffsets;
    const int* famMembers;
    const int* stepBegin;
    unsigned long long* famSignature;
    int* famWindow;
    int* famCount;
    Status* status;
    Header* header;
    long long famSets;
    long long candSets;
    long long candMembers;
    long long outSets;
    long long outMembers;
    int delta;
    int minEntities;
};

__device__ __forceinline__ long long strideStart() { return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long strideStep() { return static_cast<long long>(gridDim.x) * blockDim.x; }

__device__ __forceinline__ bool failed(const Params& p) { return *static_cast<volatile const int*>(&p.status->overflow) != 0; }

/// Records the first capacity that ran out (later claims lose).
__device__ void claim(const Params& p, int overflow, long long needed) {
    if (atomicCAS(&p.status->overflow, 0, overflow) == 0) {
        p.status->needed = needed;
    }
}

__device__ __forceinline__ int windowsOf(const Params& p) { return *p.steps - p.delta + 1; }

__device__ unsigned long long signatureOf(const int* set, long long size) {
    unsigned long long signature = 0;
    for (long long i = 0; i < size; ++i) {
        const unsigned int h = static_cast<unsigned int>(set[i]) * 0x9E3779B1U;
        signature |= 1ULL << (h >> 26U);
    }
    return signature;
}

/// |a ∩ b| of two sorted runs.
__device__ long long intersectionSize(const int* a, long long na, const int* b, long long nb) {
    long long i = 0;
    long long j = 0;
    long long n = 0;
    while (i < na && j < nb) {
        const int va = a[i];
        const int vb = b[j];
        n += va == vb ? 1 : 0;
        i += va <= vb ? 1 : 0;
        j += vb <= va ? 1 : 0;
    }
    return n;
}

/// Writes a ∩ b (sorted) to out.
__device__ void writeIntersection(const int* a, long long na, const int* b, long long nb, int* out) {
    long long i = 0;
    long long j = 0;
    while (i < na && j < nb) {
        const int va = a[i];
        const int vb = b[j];
        if (va == vb) {
            *out++ = va;
        }
        i += va <= vb ? 1 : 0;
        j += vb <= va ? 1 : 0;
    }
}

/// a ⊆ b for sorted runs.
__device__ bool isSubsetOf(const int* a, long long na, const int* b, long long nb) {
    long long j = 0;
    for (long long i = 0; i < na; ++i) {
        while (j < nb && b[j] < a[i]) {
            ++j;
        }
        if (j == nb || b[j] != a[i]) {
            return false;
        }
        ++j;
    }
    return true;
}

/// Lexicographic order of sorted runs (a proper prefix first), as the CPU reference's lexLess.
__device__ bool lexLessDevice(const int* a, long long na, const int* b, long long nb) {
    const long long n = na < nb ? na : nb;
    for (long long i = 0; i < n; ++i) {
        if (a[i] != b[i]) {
            return a[i] < b[i];
        }
    }
    return na < nb;
}

// The step families as level 0: the window (= step) and signature of every set.
__global__ void familyKernel(Params p) {
    if (*p.upstream != 0) {
        if (strideStart() == 0) {
            claim(p, UPSTREAM, 0);
        }
        return;
    }
    const int steps = *p.steps;
    if (strideStart() == 0) {
        *p.famCount = p.stepBegin[steps];
    }
    for (long long t = strideStart(); t < steps; t += strideStep()) {
        for (int s = p.stepBegin[t]; s < p.stepBegin[t + 1]; ++s) {
            p.famWindow[s] = static_cast<int>(t);
            const long long begin = p.famOffsets[s];
            p.famSignature[s] = signatureOf(p.famMembers + begin, p.famOffsets[s + 1] - begin);
        }
    }
}

// Level step 1: per set a of W_j, how many b ∈ F_{j+level} give |a ∩ b| ≥ μ, and their total size.
__global__ void countKernel(Params p, SetsView in, int level, Count2* counts, long long countCap) {
    if (failed(p)) {
        return;
    }
    const int windows = windowsOf(p);
    const int n = *in.count;
    for (long long a = strideStart(); a <= countCap; a += strideStep()) {
        Count2 c{0, 0};
        const int w = a < n ? in.window[a] : windows;
        if (w < windows) {
            const int t = w + level;
            const int* setA = in.members + in.offsets[a];
            const long long sizeA = in.offsets[a + 1] - in.offsets[a];
            const unsigned long long sigA = in.signature[a];
            for (int b = p.stepBegin[t]; b < p.stepBegin[t + 1]; ++b) {
                if ((sigA & p.famSignature[b]) == 0) {
                    continue;
                }
                const long long begin = p.famOffsets[b];
                const long long size = intersectionSize(setA, sizeA, p.famMembers + begin, p.famOffsets[b + 1] - begin);
                if (size >= p.minEntities) {
                    ++c.sets;
                    c.members += size;
                }
            }
        }
        counts[a] = c;
    }
}

// Level step 3: the intersections into their slots; the candidates' window ranges.
__global__ void writeKernel(Params p, SetsView in, int level, const Count2* starts, long long countCap, SetsOut out) {
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
    const int windows = windowsOf(p);
    const int n = *in.count;
    for (long long a = strideStart(); a < n; a += strideStep()) {
        long long s = starts[a].sets;
        if (starts[a + 1].sets == s) {
            continue;
        }
        long long m = starts[a].members;
        const int w = in.window[a];
        const int t = w + level;
        const int* setA = in.members + in.offsets[a];
        const long long sizeA = in.offsets[a + 1] - in.offsets[a];
        const unsigned long long sigA = in.signature[a];
        for (int b = p.stepBegin[t]; b < p.stepBegin[t + 1]; ++b) {
            if ((sigA & p.famSignature[b]) == 0) {
                continue;
            }
            const int* setB = p.famMembers + p.famOffsets[b];
            const long long sizeB = p.famOffsets[b + 1] - p.famOffsets[b];
            const long long size = intersectionSize(setA, sizeA, setB, sizeB);
            if (size < p.minEntities) {
                continue;
            }
            writeIntersection(setA, sizeA, setB, sizeB, out.members + m);
            out.offsets[s] = m;
            out.window[s] = w;
            out.signature[s] = signatureOf(out.members + m, size);
            ++s;
            m += size;
        }
    }
    if (strideStart() == 0) {
        out.offsets[total.sets] = total.members;
        *out.count = static_cast<int>(total.sets);
    }
    for (long long w = strideStart(); w <= windows; w += strideStep()) {
        out.windowBegin[w] = static_cast<int>(starts[in.windowBegin[w]].sets);
    }
}

// Level step 4: keep the maximal intersections of each window (duplicates: the lowest index).
__global__ void maximalKernel(Params p, SetsView cand, Count2* keep) {
    if (failed(p)) {
        return;
    }
    const int n = *cand.count;
    for (long long x = strideStart(); x <= p.candSets; x += strideStep()) {
        Count2 k{0, 0};
        if (x < n) {
            const int w = cand.window[x];
            const int* setX = cand.members + cand.offsets[x];
            const long long sizeX = cand.offsets[x + 1] - cand.offsets[x];
            const unsigned long long sigX = cand.signature[x];
            bool dominated = false;
            const int end = cand.windowBegin[w + 1];
            for (int y = cand.windowBegin[w]; y < end && !dominated; ++y) {
                const long long sizeY = cand.offsets[y + 1] - cand.offsets[y];
                if (y == x || sizeY < sizeX || (sigX & ~cand.signature[y]) != 0 || (sizeY == sizeX && y > x)) {
                    continue;
                }
                dominated = isSubsetOf(setX, sizeX, cand.members + cand.offsets[y], sizeY);
            }
            if (!dominated) {
                k = Count2{1, sizeX};
            }
        }
        keep[x] = k;
    }
}

// Level step 5: the kept sets, in candidate order (hence grouped by window), become the next family.
__global__ void compactKernel(Params p, SetsView cand, const Count2* keep, const Count2* starts, SetsOut out) {
    if (failed(p)) {
        return;
    }
    const int windows = windowsOf(p);
    const int n = *cand.count;
    const Count2 total = starts[p.candSets];
    for (long long x = strideStart(); x < n; x += strideStep()) {
        if (keep[x].sets == 0) {
            continue;
        }
        const long long s = starts[x].sets;
        const long long m = starts[x].members;
        const long long size = keep[x].members;
        const int* from = cand.members + cand.offsets[x];
        for (long long i = 0; i < size; ++i) {
            out.members[m + i] = from[i];
        }
        out.offsets[s] = m;
        out.window[s] = cand.window[x];
        out.signature[s] = cand.signature[x];
    }
    if (strideStart() == 0) {
        out.offsets[total.sets] = total.members;
        *out.count = static_cast<int>(total.sets);
    }
    for (long long w = strideStart(); w <= windows; w += strideStep()) {
        out.windowBegin[w] = static_cast<int>(starts[cand.windowBegin[w]].sets);
    }
}

// Output step 1: each flock's lexicographic rank within its window gives its output position.
__global__ void rankKernel(Params p, SetsView cur, long long* outSize, int* outSource, int* outWindow) {
    if (failed(p)) {
        return;
    }
    const int windows = windowsOf(p);
    const long long total = cur.windowBegin[windows];
    if (total > p.outSets) {
        if (strideStart() == 0) {
            claim(p, static_cast<int>(Capacity::FlocksPerBatch), total);
        }
        return;
    }
    for (long long x = strideStart(); x < total; x += strideStep()) {
        const int w = cur.window[x];
        const int* setX = cur.members + cur.offsets[x];
        const long long sizeX = cur.offsets[x + 1] - cur.offsets[x];
        const int begin = cur.windowBegin[w];
        const int end = cur.windowBegin[w + 1];
        int rank = 0;
        for (int y = begin; y < end; ++y) {
            if (y != x && lexLessDevice(cur.members + cur.offsets[y], cur.offsets[y + 1] - cur.offsets[y], setX, sizeX)) {
                ++rank;
            }
        }
        const long long position = begin + rank;
        outSize[position] = sizeX;
        outSource[position] = static_cast<int>(x);
        outWindow[position] = w;
    }
    for (long long position = total + strideStart(); position <= p.outSets; position += strideStep()) {
        outSize[position] = 0;
    }
}

// Output step 3: members in output order (offsets are the prefix sum of the sizes).
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
    const long long total = cur.windowBegin[windowsOf(p)];
    for (long long position = strideStart(); position < total; position += strideStep()) {
        const int x = outSource[position];
        const int* from = cur.members + cur.offsets[x];
        const long long size = cur.offsets[x + 1] - cur.offsets[x];
        int* to = outMembers + outStart[position];
        for (long long i = 0; i < size; ++i) {
            to[i] = from[i];
        }
    }
}

__global__ void headerKernel(Params p, SetsView cur, const long long* outStart) {
    if (strideStart() != 0) {
        return;
    }
    Header h{};
    h.overflow = p.status->overflow;
    h.needed = p.status->needed;
    if (h.overflow == 0) {
        h.flocks = cur.windowBegin[windowsOf(p)];
        h.members = outStart[p.outSets];
    }
    *p.header = h;
}

template <typename T>
Result<DeviceBuffer<T>, GpuError> buffer(long long count) {
    return DeviceBuffer<T>::create(static_cast<std::size_t>(std::max(count, 1LL)));
}

/// Device storage of one family spread over windows.
struct SetsStorage {
    DeviceBuffer<long long> offsets;
    DeviceBuffer<int> members;
    DeviceBuffer<int> window;
    DeviceBuffer<unsigned long long> signature;
    DeviceBuffer<int> count;
    DeviceBuffer<int> windowBegin;

    [[nodiscard]] SetsOut out() { return {offsets.data(), members.data(), window.data(), signature.data(), count.data(), windowBegin.data()}; }
};

}  // namespace

struct CudaWindowStage::State {
    Params params{};
    SetsView family{};
    int gridBlocks{1};
    int block{tuning::WINDOW_BLOCK};
    bool useGraph{false};
    long long countCap{0};

    DeviceBuffer<unsigned long long> famSignature;
    DeviceBuffer<int> famWindow, famCount;
    SetsStorage candidates;
    SetsStorage levels[2];
    DeviceBuffer<Count2> counts, starts;
    DeviceBuffer<long long> outSize, outStart;
    DeviceBuffer<int> outSource, outWindow, outMembers;
    DeviceBuffer<Status> status;
    DeviceBuffer<Header> header;
    platform::PinnedMemory hostHeader, hostWindow, hostOffsets, hostMembers;
    platform::DeviceMemory scanTemp;
    std::size_t scanTempBytes{0};
    platform::Stream captureStream;
    platform::Graph graph;

    GpuStatus scanPairs(const Count2* in, Count2* out, long long count, StreamHandle stream) {
        std::size_t bytes = scanTempBytes;
        return AUGUR_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(scanTemp.get(), bytes, in, out, Count2Sum{}, Count2{0, 0},
                                                               static_cast<int>(count), stream));
    }

    /// The whole stage; graph-capturable.
    GpuStatus enqueueBody(StreamHandle stream) {
        const Params& p = params;
        AUGUR_CUDA_TRY(platform::fillDevice(status.data(), 0, sizeof(Status), stream));
        familyKernel<<<gridBlocks, block, 0, stream>>>(p);
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
        SetsView in = family;
        for (int level = 1; level < p.delta; ++level) {
            const long long cap = level == 1 ? p.famSets : p.candSets;
            countKernel<<<gridBlocks, block, 0, stream>>>(p, in, level, counts.data(), cap);
            AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
            AUGUR_CUDA_TRY(scanPairs(counts.data(), starts.data(), cap + 1, stream));
            const SetsOut cand = candidates.out();
            writeKernel<<<gridBlocks, block, 0, stream>>>(p, in, level, starts.data(), cap, cand);
            AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
            maximalKernel<<<gridBlocks, block, 0, stream>>>(p, cand.view(), counts.data());
            AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
            AUGUR_CUDA_TRY(scanPairs(counts.data(), starts.data(), p.candSets + 1, stream));
            const SetsOut next = levels[level % 2].out();
            compactKernel<<<gridBlocks, block, 0, stream>>>(p, cand.view(), counts.data(), starts.data(), next);
            AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
            in = next.view();
        }
        rankKernel<<<gridBlocks, block, 0, stream>>>(p, in, outSize.data(), outSource.data(), outWindow.data());
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
        {
            std::size_t bytes = scanTempBytes;
            AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scanTemp.get(), bytes, outSize.data(), outStart.data(),
                                                                          static_cast<int>(p.outSets + 1), stream)));
        }
        outputKernel<<<gridBlocks, block, 0, stream>>>(p, in, outSource.data(), outStart.data(), outMembers.data());
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
        headerKernel<<<1, 32, 0, stream>>>(p, in, outStart.data());
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
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
    s.gridBlocks = gridBlocks;
    s.block = blockThreads;
    s.useGraph = useGraph;
    const long long steps = capacities.maxBatchSteps;
    const long long famSets = families.maxSets;
    const long long candSets = capacities.maxIntersectSetsPerBatch;
    const long long candMembers = capacities.maxIntersectMembersPerBatch;
    const long long outSets = capacities.maxFlocksPerBatch;
    const long long outMembers = capacities.maxFlockMembersPerBatch;
    s.countCap = std::max(famSets, candSets);

#define AUGUR_FLOCK_ALLOC(target, expr)            \
    do {                                           \
        auto made = (expr);                        \
        if (!made) {                               \
            return fail(gpuFailure(made.error())); \
        }                                          \
        target = std::move(made).value();          \
    } while (false)

    AUGUR_FLOCK_ALLOC(s.famSignature, buffer<unsigned long long>(famSets));
    AUGUR_FLOCK_ALLOC(s.famWindow, buffer<int>(famSets));
    AUGUR_FLOCK_ALLOC(s.famCount, buffer<int>(1));
    for (SetsStorage* storage : {&s.candidates, &s.levels[0], &s.levels[1]}) {
        AUGUR_FLOCK_ALLOC(storage->offsets, buffer<long long>(candSets + 1));
        AUGUR_FLOCK_ALLOC(storage->members, buffer<int>(candMembers));
        AUGUR_FLOCK_ALLOC(storage->window, buffer<int>(candSets));
        AUGUR_FLOCK_ALLOC(storage->signature, buffer<unsigned long long>(candSets));
        AUGUR_FLOCK_ALLOC(storage->count, buffer<int>(1));
        AUGUR_FLOCK_ALLOC(storage->windowBegin, buffer<int>(steps + 1));
    }
    AUGUR_FLOCK_ALLOC(s.counts, buffer<Count2>(s.countCap + 1));
    AUGUR_FLOCK_ALLOC(s.starts, buffer<Count2>(s.countCap + 1));
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

    std::size_t bytes = 0;
    {
        std::size_t need = 0;
        if (const auto st = AUGUR_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, need, s.counts.data(), s.starts.data(), Count2Sum{},
                                                                            Count2{0, 0}, static_cast<int>(s.countCap + 1)));
            !st) {
            return fail(gpuFailure(st.error()));
        }
        bytes = std::max(bytes, need);
        need = 0;
        if (const auto st = AUGUR_CUDA_CHECK(
                cub::DeviceScan::ExclusiveSum(nullptr, need, s.outSize.data(), s.outStart.data(), static_cast<int>(outSets + 1)));
            !st) {
            return fail(gpuFailure(st.error()));
        }
        bytes = std::max(bytes, need);
    }
    s.scanTempBytes = bytes;
    AUGUR_FLOCK_ALLOC(s.scanTemp, platform::DeviceMemory::allocate(std::max<std::size_t>(bytes, 1)));

    Params& p = s.params;
    p.steps = families.steps;
    p.upstream = families.upstreamOverflow;
    p.famOffsets = families.offsets;
    p.famMembers = families.members;
    p.stepBegin = families.stepBegin;
    p.famSignature = s.famSignature.data();
    p.famWindow = s.famWindow.data();
    p.famCount = s.famCount.data();
    p.status = s.status.data();
    p.header = s.header.data();
    p.famSets = famSets;
    p.candSets = candSets;
    p.candMembers = candMembers;
    p.outSets = outSets;
    p.outMembers = outMembers;
    p.delta = params.windowSteps;
    p.minEntities = params.minEntities;
    s.family = SetsView{families.offsets, families.members, s.famWindow.data(), s.famSignature.data(), s.famCount.data(), families.stepBegin};

    if (useGraph) {
        AUGUR_FLOCK_ALLOC(s.captureStream, platform::Stream::create());
        State* raw = &s;
        AUGUR_FLOCK_ALLOC(s.graph, platform::Graph::capture(s.captureStream.get(), [raw](StreamHandle stream) { return raw->enqueueBody(stream); }));
    }
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
