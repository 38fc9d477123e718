#include "augur/platform/sm_partition.hpp"

#include <atomic>
#include <initializer_list>
#include <utility>

#if AUGUR_HAVE_CUDA
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>
#endif

namespace augur::platform {
namespace {

std::atomic<CUgreenCtx_st*> g_active{nullptr};  // the active partition's green context
std::atomic<int> g_activeMultiprocessors{0};

SmPartitionError failure(SmPartitionFault fault, const GpuError& gpu, int requested) {
    SmPartitionError e;
    e.fault = fault;
    e.gpu = gpu;
    e.requested = requested;
    return e;
}

#if AUGUR_HAVE_CUDA
// The driver API calls, looked up through the runtime (cudaGetDriverEntryPointByVersion) at the CUDA
// version that introduced each signature.
struct DriverCalls {
    PFN_cuDeviceGet_v2000 deviceGet{nullptr};
    PFN_cuDeviceGetDevResource_v12040 deviceGetDevResource{nullptr};
    PFN_cuDevSmResourceSplitByCount_v12040 smResourceSplitByCount{nullptr};
    PFN_cuDevResourceGenerateDesc_v12040 resourceGenerateDesc{nullptr};
    PFN_cuGreenCtxCreate_v12040 greenCtxCreate{nullptr};
    PFN_cuGreenCtxDestroy_v12040 greenCtxDestroy{nullptr};
    PFN_cuGreenCtxGetDevResource_v12040 greenCtxGetDevResource{nullptr};
    PFN_cuGreenCtxStreamCreate_v12050 greenCtxStreamCreate{nullptr};
};

/// One entry point; a driver without it is a GpuError of GpuApi::Driver, CUDA_ERROR_NOT_SUPPORTED.
template <typename Fn>
GpuStatus lookUp(Fn& fn, const char* symbol, unsigned version) noexcept {
    void* address = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (auto s = AUGUR_CUDA_CHECK(cudaGetDriverEntryPointByVersion(symbol, &address, version, cudaEnableDefault, &found)); !s) {
        return s;
    }
    if (found != cudaDriverEntryPointSuccess || address == nullptr) {
        return fail(GpuError{static_cast<int>(CUDA_ERROR_NOT_SUPPORTED), symbol, __FILE__, __LINE__, GpuApi::Driver});
    }
    fn = reinterpret_cast<Fn>(address);
    return {};
}

/// The driver calls, looked up once (the first call decides; later calls return the same table).
Result<const DriverCalls*, GpuError> driverCalls() noexcept {
    static DriverCalls calls;
    static GpuStatus status = [] {
        for (const auto& s : {lookUp(calls.deviceGet, "cuDeviceGet", 2000),
                              lookUp(calls.deviceGetDevResource, "cuDeviceGetDevResource", 12040),
                              lookUp(calls.smResourceSplitByCount, "cuDevSmResourceSplitByCount", 12040),
                              lookUp(calls.resourceGenerateDesc, "cuDevResourceGenerateDesc", 12040),
                              lookUp(calls.greenCtxCreate, "cuGreenCtxCreate", 12040),
                              lookUp(calls.greenCtxDestroy, "cuGreenCtxDestroy", 12040),
                              lookUp(calls.greenCtxGetDevResource, "cuGreenCtxGetDevResource", 12040),
                              lookUp(calls.greenCtxStreamCreate, "cuGreenCtxStreamCreate", 12050)}) {
            if (!s) {
                return s;
            }
        }
        return GpuStatus{};
    }();
    if (!status) {
        return fail(status.error());
    }
    return &calls;
}

bool unsupported(const GpuError& e) noexcept {
    return e.api == GpuApi::Driver && (e.code == CUDA_ERROR_NOT_SUPPORTED || e.code == CUDA_ERROR_INVALID_RESOURCE_TYPE);
}
#endif

}  // namespace

std::string describe(const SmPartitionError& error) {
    const std::string counts = "partition of " + std::to_string(error.requested) + " SMs";
    const std::string device = error.available > 0 ? " (the device has " + std::to_string(error.available) +
                                                         " SMs; partitions of at least " + std::to_string(error.minimum) +
                                                         ", in multiples of " + std::to_string(error.granularity) + ")"
                                                   : std::string();
    switch (error.fault) {
        case SmPartitionFault::NoCuda:
            return counts + ": no CUDA device (or a build without the CUDA backend)";
        case SmPartitionFault::Unsupported:
            return counts + ": green contexts are not supported by this driver or device (they need a driver for CUDA "
                            "12.5 or newer): " + platform::describe(error.gpu);
        case SmPartitionFault::BadCount:
            return counts + ": the device cannot make a partition of exactly that size" +
                   (error.granted > 0 ? " (the split offered " + std::to_string(error.granted) + " SMs)" : std::string()) + device;
        case SmPartitionFault::AlreadyActive:
            return counts + ": another SM partition is active in this process";
        case SmPartitionFault::Driver:
            return counts + device + ": " + platform::describe(error.gpu);
    }
    return counts + ": unknown failure";
}

SmPartition::SmPartition(SmPartition&& other) noexcept
    : m_context(std::exchange(other.m_context, nullptr)), m_multiprocessors(std::exchange(other.m_multiprocessors, 0)) {}

SmPartition& SmPartition::operator=(SmPartition&& other) noexcept {
    if (this != &other) {
        release();
        m_context = std::exchange(other.m_context, nullptr);
        m_multiprocessors = std::exchange(other.m_multiprocessors, 0);
    }
    return *this;
}

SmPartition::~SmPartition() { release(); }

void SmPartition::release() noexcept {
    if (m_context == nullptr) {
        return;
    }
    CUgreenCtx_st* expected = m_context;
    (void)g_active.compare_exchange_strong(expected, nullptr);
    g_activeMultiprocessors.store(0);
#if AUGUR_HAVE_CUDA
    if (auto calls = driverCalls()) {
        (void)calls.value()->greenCtxDestroy(m_context);
    }
#endif
    m_context = nullptr;
    m_multiprocessors = 0;
}

Result<SmPartition, SmPartitionError> SmPartition::create(int multiprocessors) noexcept {
#if AUGUR_HAVE_CUDA
    if (g_active.load() != nullptr) {
        return fail(failure(SmPartitionFault::AlreadyActive, GpuError{}, multiprocessors));
    }
    int ordinal = 0;
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        (void)cudaGetLastError();  // clear the sticky "no device" error
        return fail(failure(SmPartitionFault::NoCuda, GpuError{}, multiprocessors));
    }
    // The primary context first (cudaFree(nullptr) initialises it): cuGreenCtxCreate retains it, and
    // the runtime's allocations live in it.
    for (const auto& s : {AUGUR_CUDA_CHECK(cudaGetDevice(&ordinal)), AUGUR_CUDA_CHECK(cudaFree(nullptr))}) {
        if (!s) {
            return fail(failure(SmPartitionFault::Driver, s.error(), multiprocessors));
        }
    }
    auto looked = driverCalls();
    if (!looked) {
        return fail(failure(unsupported(looked.error()) ? SmPartitionFault::Unsupported : SmPartitionFault::Driver,
                            looked.error(), multiprocessors));
    }
    const DriverCalls& cu = *looked.value();
    CUdevice device = 0;
    if (auto s = AUGUR_CU_CHECK(cu.deviceGet(&device, ordinal)); !s) {
        return fail(failure(SmPartitionFault::Driver, s.error(), multiprocessors));
    }
    CUdevResource all{};
    if (auto s = AUGUR_CU_CHECK(cu.deviceGetDevResource(device, &all, CU_DEV_RESOURCE_TYPE_SM)); !s) {
        return fail(failure(unsupported(s.error()) ? SmPartitionFault::Unsupported : SmPartitionFault::Driver, s.error(),
                            multiprocessors));
    }
    SmPartitionError shape = failure(SmPartitionFault::BadCount, GpuError{}, multiprocessors);
    shape.available = static_cast<int>(all.sm.smCount);
    shape.minimum = static_cast<int>(all.sm.minSmPartitionSize);
    shape.granularity = static_cast<int>(all.sm.smCoscheduledAlignment);
    if (multiprocessors <= 0 || multiprocessors > shape.available || multiprocessors < shape.minimum ||
        (shape.granularity > 0 && multiprocessors % shape.granularity != 0)) {
        return fail(shape);
    }
    // One group of `multiprocessors` SMs; the rest of the device stays unused by this process's streams.
    CUdevResource part{};
    unsigned groups = 1;
    if (auto s = AUGUR_CU_CHECK(cu.smResourceSplitByCount(&part, &groups, &all, nullptr, 0, static_cast<unsigned>(multiprocessors)));
        !s) {
        shape.fault = SmPartitionFault::Driver;
        shape.gpu = s.error();
        return fail(shape);
    }
    if (groups != 1 || static_cast<int>(part.sm.smCount) != multiprocessors) {
        shape.granted = groups == 1 ? static_cast<int>(part.sm.smCount) : 0;
        return fail(shape);
    }
    CUdevResourceDesc desc = nullptr;
    if (auto s = AUGUR_CU_CHECK(cu.resourceGenerateDesc(&desc, &part, 1)); !s) {
        shape.fault = SmPartitionFault::Driver;
        shape.gpu = s.error();
        return fail(shape);
    }
    CUgreenCtx context = nullptr;
    if (auto s = AUGUR_CU_CHECK(cu.greenCtxCreate(&context, desc, device, CU_GREEN_CTX_DEFAULT_STREAM)); !s) {
        shape.fault = unsupported(s.error()) ? SmPartitionFault::Unsupported : SmPartitionFault::Driver;
        shape.gpu = s.error();
        return fail(shape);
    }
    SmPartition partition;
    partition.m_context = context;  // destroyed by ~SmPartition from here on
    CUdevResource granted{};
    if (auto s = AUGUR_CU_CHECK(cu.greenCtxGetDevResource(context, &granted, CU_DEV_RESOURCE_TYPE_SM)); !s) {
        shape.fault = SmPartitionFault::Driver;
        shape.gpu = s.error();
        return fail(shape);
    }
    if (static_cast<int>(granted.sm.smCount) != multiprocessors) {
        shape.granted = static_cast<int>(granted.sm.smCount);
        return fail(shape);
    }
    partition.m_multiprocessors = multiprocessors;
    CUgreenCtx_st* none = nullptr;
    if (!g_active.compare_exchange_strong(none, context)) {
        return fail(failure(SmPartitionFault::AlreadyActive, GpuError{}, multiprocessors));
    }
    g_activeMultiprocessors.store(multiprocessors);
    return Result<SmPartition, SmPartitionError>(std::move(partition));
#else
    return fail(failure(SmPartitionFault::NoCuda, GpuError{}, multiprocessors));
#endif
}

Result<int, GpuError> activeMultiprocessors() noexcept {
    if (g_active.load() != nullptr) {
        return g_activeMultiprocessors.load();
    }
#if AUGUR_HAVE_CUDA
    int device = 0;
    int multiprocessors = 0;
    for (const auto& s : {AUGUR_CUDA_CHECK(cudaGetDevice(&device)),
                          AUGUR_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device))}) {
        if (!s) {
            return fail(s.error());
        }
    }
    return multiprocessors;
#else
    return fail(GpuError{100 /* cudaErrorNoDevice */, "activeMultiprocessors", __FILE__, __LINE__});
#endif
}

bool smPartitionActive() noexcept { return g_active.load() != nullptr; }

namespace detail {

GpuStatus createPartitionStream(CUstream_st** stream, int priority) noexcept {
#if AUGUR_HAVE_CUDA
    CUgreenCtx_st* context = g_active.load();
    if (context == nullptr) {
        return fail(GpuError{static_cast<int>(CUDA_ERROR_INVALID_CONTEXT), "createPartitionStream: no active partition",
                             __FILE__, __LINE__, GpuApi::Driver});
    }
    auto looked = driverCalls();
    if (!looked) {
        return fail(looked.error());
    }
    return AUGUR_CU_CHECK(looked.value()->greenCtxStreamCreate(stream, context, CU_STREAM_NON_BLOCKING, priority));
#else
    (void)stream, (void)priority;
    return fail(GpuError{100 /* cudaErrorNoDevice */, "createPartitionStream", __FILE__, __LINE__});
#endif
}

}  // namespace detail
}  // namespace augur::platform
