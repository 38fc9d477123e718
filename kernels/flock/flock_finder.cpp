// FlockFinder: batches; on the CPU reference the potential-flock stage and the intersection stage on the
// workers; on CUDA both stages on the device (cuda_batch.hpp); then the ordered merge into the caller's
// FlockList.
#include "augur/kernels/flock/flock_finder.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include "augur/platform/clock.hpp"
#include "cpu_potential.hpp"
#include "family.hpp"
#include "geometry.hpp"
#include "tuning.hpp"
#include "window_stage.hpp"
#include "../src/worker_pool.hpp"
#if AUGUR_HAVE_CUDA
#include "cuda_batch.hpp"
#endif

namespace augur::kernels::flock {

using detail::BatchFamilies;
using detail::FamilyBuffer;

const char* toString(FlockError error) noexcept {
    switch (error) {
        case FlockError::InvalidParams: return "invalid parameters";
        case FlockError::InvalidInput: return "invalid input";
        case FlockError::CapacityExceeded: return "capacity exceeded";
        case FlockError::BackendUnavailable: return "backend unavailable";
        case FlockError::Gpu: return "GPU error";
        case FlockError::Resources: return "out of resources";
    }
    return "unknown";
}

const char* toString(Capacity capacity) noexcept {
    switch (capacity) {
        case Capacity::None: return "none";
        case Capacity::Entities: return "maxEntities";
        case Capacity::DisksPerStep: return "maxDisksPerStep";
        case Capacity::CandidateMembersPerStep: return "maxCandidateMembersPerStep";
        case Capacity::FamilySetsPerBatch: return "maxFamilySetsPerBatch";
        case Capacity::FamilyMembersPerBatch: return "maxFamilyMembersPerBatch";
        case Capacity::WorkSets: return "maxWorkSets";
        case Capacity::WorkMembers: return "maxWorkMembers";
        case Capacity::IntersectSetsPerBatch: return "maxIntersectSetsPerBatch";
        case Capacity::IntersectMembersPerBatch: return "maxIntersectMembersPerBatch";
        case Capacity::FlocksPerBatch: return "maxFlocksPerBatch";
        case Capacity::FlockMembersPerBatch: return "maxFlockMembersPerBatch";
        case Capacity::OutputFlocks: return "output flocks";
        case Capacity::OutputMembers: return "output members";
    }
    return "unknown";
}

FlockList FlockList::create(std::size_t maxFlocks, std::size_t maxMembers) {
    FlockList list;
    list.m_flockVector.resize(maxFlocks);
    list.m_memberVector.resize(maxMembers);
    list.m_flockData = list.m_flockVector.data();
    list.m_memberData = list.m_memberVector.data();
    list.m_flockCapacity = maxFlocks;
    list.m_memberCapacity = maxMembers;
    return list;
}

Result<FlockList, platform::GpuError> FlockList::createPinned(std::size_t maxFlocks, std::size_t maxMembers) {
    static_assert(sizeof(Flock) % alignof(std::int32_t) == 0, "the members follow the flocks");
    auto memory = platform::PinnedMemory::allocate(std::max<std::size_t>(maxFlocks * sizeof(Flock) + maxMembers * sizeof(std::int32_t), 1), false);
    if (!memory) {
        return fail(memory.error());
    }
    FlockList list;
    list.m_pinned = std::move(memory).value();
    list.m_flockData = static_cast<Flock*>(list.m_pinned.get());
    list.m_memberData = reinterpret_cast<std::int32_t*>(list.m_flockData + maxFlocks);
    list.m_flockCapacity = maxFlocks;
    list.m_memberCapacity = maxMembers;
    return list;
}

struct FlockFinder::Impl {
    FlockParams params;
    FlockCapacities capacities;
    Backend backend{Backend::Cpu};
    detail::Limits limits;
    int sideCap{1};
    std::unique_ptr<kernels::detail::WorkerPool> pool;
    std::vector<detail::StepScratch> stepScratch;     // CPU backend: one per worker
    std::vector<FamilyBuffer> stepPools;              // CPU backend: each worker's families, in step order
    std::unique_ptr<std::int32_t[]> stepCounts;       // CPU backend: sets of each batch step
    std::vector<detail::StepResult> stepResults;      // CPU backend: per worker
    BatchFamilies families;
    std::vector<detail::WindowScratch> windowScratch;  // one per worker
    std::vector<detail::WindowResult> windowResults;
#if AUGUR_HAVE_CUDA
    std::unique_ptr<detail::CudaBatchStage> cuda;
#endif

    Result<std::int64_t, FlockFailure> potentialCpu(const TrajectoryView& view, int firstStep, int steps) noexcept;
    detail::WindowResult intersect(int firstStep, int windows) noexcept;
    Result<FlockStats, FlockFailure> findCpu(const TrajectoryView& view, FlockList& out) noexcept;
    Result<FlockStats, FlockFailure> findCuda(const TrajectoryView& view, bool onDevice, FlockList& out,
                                              platform::StreamHandle stream) noexcept;
};

namespace {

FlockFailure capacityFailure(Capacity capacity, std::int64_t needed) noexcept {
    FlockFailure failure;
    failure.error = FlockError::CapacityExceeded;
    failure.capacity = capacity;
    failure.needed = needed;
    return failure;
}

FlockFailure simpleFailure(FlockError error) noexcept {
    FlockFailure failure;
    failure.error = error;
    return failure;
}

constexpr std::int64_t INDEX_LIMIT = MAX_BATCH_SAMPLES;

bool validCapacities(const FlockCapacities& c, const FlockParams& p) noexcept {
    const auto positive = [](std::int64_t v) { return v > 0 && v <= INDEX_LIMIT; };
    return positive(c.maxEntities) && positive(c.maxBatchSteps) && c.maxBatchSteps >= p.windowSteps &&
           positive(c.gridCellsPerStep) && positive(c.maxDisksPerStep) &&
           positive(c.maxCandidateMembersPerStep) &&
           positive(c.maxFamilySetsPerBatch) && positive(c.maxFamilyMembersPerBatch) && positive(c.maxWorkSets) &&
           positive(c.maxWorkMembers) && positive(c.maxIntersectSetsPerBatch) && positive(c.maxIntersectMembersPerBatch) &&
           positive(c.maxFlocksPerBatch) && positive(c.maxFlockMembersPerBatch) &&
           c.workerThreads >= 0 && static_cast<std::int64_t>(c.maxEntities) * c.maxBatchSteps <= INDEX_LIMIT;
}

}  // namespace

FlockFinder::FlockFinder(std::unique_ptr<Impl> impl) noexcept : m_impl(std::move(impl)) {}
FlockFinder::FlockFinder(FlockFinder&&) noexcept = default;
FlockFinder& FlockFinder::operator=(FlockFinder&&) noexcept = default;
FlockFinder::~FlockFinder() = default;

const FlockParams& FlockFinder::params() const noexcept { return m_impl->params; }
Backend FlockFinder::backend() const noexcept { return m_impl->backend; }

FlockHostMemory FlockFinder::hostMemory(const FlockParams& params, const FlockCapacities& c, Backend backend) noexcept {
    // Mirrors what create() reserves (StepScratch, FamilyBuffer, WindowScratch, MaximalScratch,
    // IntersectScratch constructors); the few fixed-size members are left out.
    const auto n = [](auto v) { return std::max(1.0, static_cast<double>(v)); };
    const double entities = n(c.maxEntities);
    const double batchSteps = n(c.maxBatchSteps);
    FlockHostMemory memory;
    if (backend == Backend::Cuda) {
        memory.shared_bytes = batchSteps * entities * (2.0 * sizeof(double) + 1.0);  // x, y, present
        return memory;
    }
    const auto family = [&n](double sets, double members) {
        return (n(sets) + 1.0) * sizeof(std::int64_t) + n(members) * sizeof(std::int32_t);
    };
    const double cells = n(c.gridCellsPerStep) + 1.0;
    const double disks = n(c.maxDisksPerStep);
    const double stepScratch = 3.0 * cells * sizeof(std::int32_t) +
                               entities * (2.0 * sizeof(std::int32_t) + 2.0 * sizeof(double)) +
                               (entities + 1.0) * sizeof(std::int64_t) +
                               disks * (sizeof(detail::DiskOffset) + 2.0 * sizeof(std::int32_t) + sizeof(std::int64_t) + sizeof(std::uint64_t)) +
                               n(c.maxCandidateMembersPerStep) * sizeof(std::int32_t);
    const double workFamily = family(static_cast<double>(c.maxWorkSets), static_cast<double>(c.maxWorkMembers));
    const double windowScratch =
        (4.0 + n(params.windowSteps)) * workFamily +                                                    // prefix ×2, candidates, result, suffix ×δ
        (n(c.maxWorkSets) + 1.0) * (2.0 * sizeof(std::int32_t) + sizeof(std::uint64_t)) +              // maximal
        entities * sizeof(std::int64_t) + n(c.maxWorkMembers) * (sizeof(std::int64_t) + sizeof(std::int32_t)) +
        n(c.maxWorkSets) * sizeof(std::uint64_t) +                                                     // intersect
        family(static_cast<double>(c.maxFlocksPerBatch), static_cast<double>(c.maxFlockMembersPerBatch)) +
        (n(c.maxFlocksPerBatch) + 1.0) * sizeof(std::int32_t);                                         // flocks, windows
    const double batchFamilies = family(static_cast<double>(c.maxFamilySetsPerBatch), static_cast<double>(c.maxFamilyMembersPerBatch));
    memory.shared_bytes = batchFamilies + 2.0 * (batchSteps + 1.0) * sizeof(std::int32_t);
    memory.perWorker_bytes = stepScratch + batchFamilies + windowScratch;
    return memory;
}

Result<FlockFinder, FlockFailure> FlockFinder::create(const FlockParams& params, const FlockCapacities& capacities, Backend backend,
                                                      const FlockOptions& options) {
    const auto validThreads = [](int threads) { return threads == 0 || (threads >= 32 && threads <= 1024 && threads % 32 == 0); };
    if (params.minEntities < 2 || params.windowSteps < 1 || !(params.radius_m > 0.0) || !std::isfinite(params.radius_m) ||
        !validCapacities(capacities, params) || !validThreads(options.blockThreads) || !validThreads(options.windowBlockThreads) ||
        options.blocksPerMultiprocessor < 0 || options.blocksPerMultiprocessor > 64 || options.stepBlocksPerMultiprocessor < 0 ||
        options.stepBlocksPerMultiprocessor > 32 || options.stepSharedBytes < 0 || options.workspaceBlocks < 0 ||
        options.workspaceBlocks > 65536) {
        return fail(simpleFailure(FlockError::InvalidParams));
    }
    if (!available(backend)) {
        return fail(simpleFailure(FlockError::BackendUnavailable));
    }
    try {
        auto impl = std::make_unique<Impl>();
        impl->params = params;
        impl->capacities = capacities;
        impl->backend = backend;
        impl->limits = detail::makeLimits(params.radius_m, RADIUS_TOLERANCE);
        impl->sideCap = std::max(1, static_cast<int>(std::floor(std::sqrt(static_cast<double>(capacities.gridCellsPerStep)))));
        const int workers = capacities.workerThreads > 0 ? capacities.workerThreads
                                                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
        if (backend == Backend::Cpu) {
            impl->pool = std::make_unique<kernels::detail::WorkerPool>(workers);
            impl->families.sets = FamilyBuffer(static_cast<int>(capacities.maxFamilySetsPerBatch), capacities.maxFamilyMembersPerBatch);
            impl->families.stepBegin = std::make_unique<std::int32_t[]>(static_cast<std::size_t>(capacities.maxBatchSteps) + 1);
            impl->windowResults.resize(static_cast<std::size_t>(workers));
            impl->windowScratch.reserve(static_cast<std::size_t>(workers));
            for (int w = 0; w < workers; ++w) {
                impl->windowScratch.emplace_back(capacities.maxEntities, params.windowSteps, capacities.maxWorkSets,
                                                 capacities.maxWorkMembers, capacities.maxFlocksPerBatch, capacities.maxFlockMembersPerBatch);
            }
            impl->stepCounts = std::make_unique<std::int32_t[]>(static_cast<std::size_t>(capacities.maxBatchSteps) + 1);
            impl->stepResults.resize(static_cast<std::size_t>(workers));
            impl->stepScratch.reserve(static_cast<std::size_t>(workers));
            impl->stepPools.reserve(static_cast<std::size_t>(workers));
            for (int w = 0; w < workers; ++w) {
                impl->stepScratch.emplace_back(capacities.maxEntities, capacities.gridCellsPerStep, capacities.maxDisksPerStep,
                                               capacities.maxCandidateMembersPerStep);
                impl->stepPools.emplace_back(static_cast<int>(capacities.maxFamilySetsPerBatch), capacities.maxFamilyMembersPerBatch);
            }
        } else {
#if AUGUR_HAVE_CUDA
            const auto arch = activeTuningArch();
            if (!arch) {
                return fail(simpleFailure(FlockError::BackendUnavailable));
            }
            const tuning::LaunchPolicy policy = tuning::launchPolicy(arch.value());
            const detail::LaunchShape shape{options.blockThreads > 0 ? options.blockThreads : policy.block,
                                            options.blocksPerMultiprocessor > 0 ? options.blocksPerMultiprocessor : policy.blocksPerSm,
                                            options.windowBlockThreads > 0 ? options.windowBlockThreads : policy.windowBlock,
                                            options.blockThreads, options.stepBlocksPerMultiprocessor, options.stepSharedBytes,
                                            options.workspaceBlocks, options.fallbackInSharedMemory,
                                            options.inPlaceWaves >= 0 ? options.inPlaceWaves : policy.inPlaceWaves,
                                            policy};
            auto stage = detail::CudaBatchStage::create(params, impl->limits, capacities, options.useGraph, shape);
            if (!stage) {
                return fail(stage.error());
            }
            impl->cuda = std::move(stage).value();
#else
            (void)options;
            return fail(simpleFailure(FlockError::BackendUnavailable));
#endif
        }
        return Result<FlockFinder, FlockFailure>(FlockFinder(std::move(impl)));
    } catch (const std::bad_alloc&) {
        return fail(simpleFailure(FlockError::Resources));
    } catch (const std::system_error&) {
        return fail(simpleFailure(FlockError::Resources));
    }
}

Result<std::int64_t, FlockFailure> FlockFinder::Impl::potentialCpu(const TrajectoryView& view, int firstStep, int steps) noexcept {
    const int workers = pool->size();
    auto work = [&](int w) noexcept {
        const kernels::detail::Share share = kernels::detail::shareOf(steps, w, workers);
        FamilyBuffer& out = stepPools[static_cast<std::size_t>(w)];
        out.clear();
        detail::StepResult total;
        for (auto t = static_cast<int>(share.begin); t < share.end; ++t) {
            const int before = out.count();
            const detail::StepResult r = detail::potentialFlocksOfStep(view, firstStep + t, params.minEntities, limits, sideCap,
                                                                       stepScratch[static_cast<std::size_t>(w)], out);
            total.disks += r.disks;
            stepCounts[t] = out.count() - before;
            if (r.overflow != Capacity::None) {
                total.overflow = r.overflow;
                total.needed = r.needed;
                break;
            }
        }
        stepResults[static_cast<std::size_t>(w)] = total;
    };
    pool->forEach(work);

    std::int64_t disks = 0;
    std::int64_t sets = 0;
    std::int64_t members = 0;
    for (int w = 0; w < workers; ++w) {
        const detail::StepResult& r = stepResults[static_cast<std::size_t>(w)];
        if (r.overflow != Capacity::None) {
            return fail(capacityFailure(r.overflow, r.needed));
        }
        disks += r.disks;
        sets += stepPools[static_cast<std::size_t>(w)].count();
        members += stepPools[static_cast<std::size_t>(w)].memberCount();
    }
    if (sets > families.sets.setCapacity()) {
        return fail(capacityFailure(Capacity::FamilySetsPerBatch, sets));
    }
    if (members > families.sets.memberCapacity()) {
        return fail(capacityFailure(Capacity::FamilyMembersPerBatch, members));
    }
    // Concatenate the workers' families in step order (each worker holds a contiguous share of steps).
    families.steps = steps;
    families.stepBegin[0] = 0;
    for (int t = 0; t < steps; ++t) {
        families.stepBegin[t + 1] = families.stepBegin[t] + stepCounts[t];
    }
    std::int64_t setBase = 0;
    std::int64_t memberBase = 0;
    std::int64_t* offsets = families.sets.offsetData();
    std::int32_t* allMembers = families.sets.memberData();
    for (int w = 0; w < workers; ++w) {
        const detail::FamilyView part = stepPools[static_cast<std::size_t>(w)].view();
        for (int i = 0; i < part.count; ++i) {
            offsets[setBase + i] = memberBase + part.offsets[i];
        }
        std::memcpy(allMembers + memberBase, part.members, static_cast<std::size_t>(part.offsets[part.count]) * sizeof(std::int32_t));
        setBase += part.count;
        memberBase += part.offsets[part.count];
    }
    offsets[setBase] = memberBase;
    families.sets.assign(static_cast<int>(setBase));
    return Result<std::int64_t, FlockFailure>(disks);
}

detail::WindowResult FlockFinder::Impl::intersect(int firstStep, int windows) noexcept {
    const int workers = pool->size();
    const int blocks = (windows + params.windowSteps - 1) / params.windowSteps;
    auto work = [&](int w) noexcept {
        const kernels::detail::Share share = kernels::detail::shareOf(blocks, w, workers);
        detail::WindowScratch& scratch = windowScratch[static_cast<std::size_t>(w)];
        scratch.flocks.clear();
        windowResults[static_cast<std::size_t>(w)] =
            detail::flocksOfBlocks(families, firstStep, windows, static_cast<int>(share.begin), static_cast<int>(share.end),
                                   params.minEntities, params.windowSteps, scratch);
    };
    pool->forEach(work);
    for (const auto& r : windowResults) {
        if (r.overflow != Capacity::None) {
            return r;
        }
    }
    return {};
}

Result<FlockStats, FlockFailure> FlockFinder::find(const TrajectoryView& view, FlockList& out,
                                                   platform::StreamHandle stream) noexcept {
    Impl& impl = *m_impl;
    out.clear();
    if (view.entityCount < 0 || view.stepCount < 0 || view.entityCount > impl.capacities.maxEntities) {
        return fail(capacityFailure(Capacity::Entities, view.entityCount));
    }
    const std::int64_t samples = static_cast<std::int64_t>(view.entityCount) * view.stepCount;
    if (samples > 0 && (view.x_m == nullptr || view.y_m == nullptr)) {
        return fail(simpleFailure(FlockError::InvalidInput));
    }
    if (impl.backend == Backend::Cpu) {
        return impl.findCpu(view, out);
    }
    return impl.findCuda(view, false, out, stream);
}

Result<FlockStats, FlockFailure> FlockFinder::findOnDevice(const TrajectoryView& deviceView, FlockList& out,
                                                           platform::StreamHandle stream) noexcept {
    Impl& impl = *m_impl;
    out.clear();
    if (impl.backend != Backend::Cuda) {
        return fail(simpleFailure(FlockError::BackendUnavailable));
    }
    if (deviceView.entityCount < 0 || deviceView.stepCount < 0 || deviceView.entityCount > impl.capacities.maxEntities) {
        return fail(capacityFailure(Capacity::Entities, deviceView.entityCount));
    }
    const std::int64_t samples = static_cast<std::int64_t>(deviceView.entityCount) * deviceView.stepCount;
    if (samples > 0 && (deviceView.x_m == nullptr || deviceView.y_m == nullptr)) {
        return fail(simpleFailure(FlockError::InvalidInput));
    }
    return impl.findCuda(deviceView, true, out, stream);
}

Result<FlockStats, FlockFailure> FlockFinder::Impl::findCpu(const TrajectoryView& view, FlockList& out) noexcept {
    FlockStats stats;
    const std::int64_t samples = static_cast<std::int64_t>(view.entityCount) * view.stepCount;
    for (std::int64_t k = 0; k < samples; ++k) {
        const bool present = view.present == nullptr || view.present[k] != 0;
        if (present && !(std::isfinite(view.x_m[k]) && std::isfinite(view.y_m[k]))) {
            return fail(simpleFailure(FlockError::InvalidInput));
        }
    }
    const int delta = params.windowSteps;
    const int batchSteps = capacities.maxBatchSteps;
    for (int first = 0; first + delta <= view.stepCount;) {
        const int steps = std::min(batchSteps, view.stepCount - first);
        const int windows = steps - delta + 1;
        const std::int64_t t0 = platform::monotonicNow_ns();
        auto disks = potentialCpu(view, first, steps);
        if (!disks) {
            out.clear();
            return fail(disks.error());
        }
        stats.disks += *disks;
        // Each step counted once: consecutive batches overlap by the δ-1 steps after the last window start.
        const bool lastBatch = first + steps == view.stepCount;
        stats.potentialFlocks += families.stepBegin[lastBatch ? steps : windows];
        const std::int64_t t1 = platform::monotonicNow_ns();
        const detail::WindowResult windowResult = intersect(first, windows);
        if (windowResult.overflow != Capacity::None) {
            out.clear();
            return fail(capacityFailure(windowResult.overflow, windowResult.needed));
        }
        for (const auto& scratch : windowScratch) {
            const detail::FamilyView flocks = scratch.flocks.view();
            const auto count = static_cast<std::size_t>(flocks.count);
            if (!out.append(0, scratch.flockWindow.get(), flocks.offsets, flocks.members, count)) {
                const bool flocksFull = out.size() + count > out.flockCapacity();
                out.clear();
                return fail(capacityFailure(flocksFull ? Capacity::OutputFlocks : Capacity::OutputMembers, 0));
            }
        }
        stats.potential_us += static_cast<double>(t1 - t0) * 1e-3;
        stats.intersect_us += static_cast<double>(platform::monotonicNow_ns() - t1) * 1e-3;
        ++stats.batches;
        first += windows;
    }
    stats.flocks = static_cast<std::int64_t>(out.size());
    return Result<FlockStats, FlockFailure>(stats);
}

Result<FlockStats, FlockFailure> FlockFinder::Impl::findCuda(const TrajectoryView& view, bool onDevice, FlockList& out,
                                                             platform::StreamHandle stream) noexcept {
    FlockStats stats;
#if AUGUR_HAVE_CUDA
    const int delta = params.windowSteps;
    const int batchSteps = capacities.maxBatchSteps;
    for (int first = 0; first + delta <= view.stepCount;) {
        const int steps = std::min(batchSteps, view.stepCount - first);
        const int windows = steps - delta + 1;
        auto batch = cuda->run(view, onDevice, first, steps, out, stream);
        if (!batch) {
            out.clear();
            FlockFailure failure = simpleFailure(FlockError::Gpu);
            failure.gpu = batch.error();
            return fail(failure);
        }
        if (batch->invalidInput) {
            out.clear();
            return fail(simpleFailure(FlockError::InvalidInput));
        }
        if (batch->overflow != Capacity::None) {
            out.clear();
            return fail(capacityFailure(batch->overflow, batch->needed));
        }
        stats.disks += batch->disks;
        stats.stepsInWorkspace += batch->stepsInWorkspace;
        stats.stepsInPlace += batch->stepsInPlace;
        stats.stepsInGlobal += batch->stepsInGlobal;
        const bool lastBatch = first + steps == view.stepCount;
        stats.potentialFlocks += lastBatch ? batch->potentialAll : batch->potentialWindows;
        stats.potential_us += batch->potential_us;
        stats.intersect_us += batch->intersect_us;
        ++stats.batches;
        first += windows;
    }
    stats.flocks = static_cast<std::int64_t>(out.size());
    return Result<FlockStats, FlockFailure>(stats);
#else
    (void)view;
    (void)onDevice;
    (void)out;
    (void)stream;
    (void)stats;
    return fail(simpleFailure(FlockError::BackendUnavailable));
#endif
}

bool growCapacity(FlockCapacities& c, std::size_t& listFlocks, std::size_t& listMembers,
                  const FlockFailure& failure) noexcept {
    const auto to = [&failure](auto& value) {
        using T = std::decay_t<decltype(value)>;
        const auto wanted = std::max<std::int64_t>(2 * static_cast<std::int64_t>(value), failure.needed + failure.needed / 4);
        if (wanted > (std::int64_t{1} << 30)) {
            return false;
        }
        value = static_cast<T>(wanted);
        return true;
    };
    switch (failure.capacity) {
        case Capacity::DisksPerStep: return to(c.maxDisksPerStep);
        case Capacity::CandidateMembersPerStep: return to(c.maxCandidateMembersPerStep);
        case Capacity::FamilySetsPerBatch: return to(c.maxFamilySetsPerBatch);
        case Capacity::FamilyMembersPerBatch: return to(c.maxFamilyMembersPerBatch);
        case Capacity::WorkSets: return to(c.maxWorkSets);
        case Capacity::WorkMembers: return to(c.maxWorkMembers);
        case Capacity::IntersectSetsPerBatch: return to(c.maxIntersectSetsPerBatch);
        case Capacity::IntersectMembersPerBatch: return to(c.maxIntersectMembersPerBatch);
        case Capacity::FlocksPerBatch: return to(c.maxFlocksPerBatch);
        case Capacity::FlockMembersPerBatch: return to(c.maxFlockMembersPerBatch);
        case Capacity::OutputFlocks: listFlocks *= 2; return listFlocks < (std::size_t{1} << 31);
        case Capacity::OutputMembers: listMembers *= 2; return listMembers < (std::size_t{1} << 33);
        default: return false;
    }
}

}  // namespace augur::kernels::flock
