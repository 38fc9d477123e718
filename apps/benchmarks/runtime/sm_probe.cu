#include "sm_probe.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"

namespace augur::bench {
namespace {

constexpr int MAX_SM_ID = 1024;         // %smid is below this on every CUDA device
constexpr long long SPIN_CYCLES = 20'000;  // about 10 µs per block at 2 GHz

__global__ void recordSmKernel(unsigned* seen) {
    if (threadIdx.x == 0) {
        unsigned sm = 0;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        if (sm < MAX_SM_ID) {
            seen[sm] = 1U;
        }
        const long long start = clock64();
        while (clock64() - start < SPIN_CYCLES) {
        }
    }
}

platform::GpuStatus enqueue(unsigned* seen, int blocks, platform::StreamHandle stream) {
    if (auto s = AUGUR_CUDA_CHECK(cudaMemsetAsync(seen, 0, sizeof(unsigned) * MAX_SM_ID, stream)); !s) {
        return s;
    }
    recordSmKernel<<<blocks, 32, 0, stream>>>(seen);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

Result<int, std::string> count(const platform::DeviceBuffer<unsigned>& seen, platform::StreamHandle stream) {
    std::vector<unsigned> host(MAX_SM_ID, 0U);
    if (auto s = AUGUR_CUDA_CHECK(cudaMemcpyAsync(host.data(), seen.data(), sizeof(unsigned) * MAX_SM_ID, cudaMemcpyDeviceToHost, stream));
        !s) {
        return fail("probe download: " + platform::describe(s.error()));
    }
    if (auto s = AUGUR_CUDA_CHECK(cudaStreamSynchronize(stream)); !s) {
        return fail("probe: " + platform::describe(s.error()));
    }
    int used = 0;
    for (const unsigned v : host) {
        used += v != 0U ? 1 : 0;
    }
    return used;
}

}  // namespace

Result<SmProbe, std::string> probeStreamSms(int blocksPerDeviceSm) {
    int device = 0;
    int sms = 0;
    if (auto s = AUGUR_CUDA_CHECK(cudaGetDevice(&device)); !s) {
        return fail("probe: " + platform::describe(s.error()));
    }
    if (auto s = AUGUR_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)); !s) {
        return fail("probe: " + platform::describe(s.error()));
    }
    const int blocks = sms * blocksPerDeviceSm;
    auto stream = platform::Stream::create(platform::StreamPriority::High);
    if (!stream) {
        return fail("probe stream: " + platform::describe(stream.error()));
    }
    auto seen = platform::DeviceBuffer<unsigned>::create(MAX_SM_ID);
    if (!seen) {
        return fail(std::string("probe: device allocation failed"));
    }
    SmProbe probe;
    if (auto s = enqueue(seen->data(), blocks, stream->get()); !s) {
        return fail("probe launch: " + platform::describe(s.error()));
    }
    auto direct = count(*seen, stream->get());
    if (!direct) {
        return fail(direct.error());
    }
    probe.direct = direct.value();
    unsigned* target = seen->data();
    auto graph = platform::Graph::capture(stream->get(), [&](platform::StreamHandle s) { return enqueue(target, blocks, s); });
    if (!graph) {
        return fail("probe graph capture: " + platform::describe(graph.error()));
    }
    if (auto s = graph->launch(stream->get()); !s) {
        return fail("probe graph launch: " + platform::describe(s.error()));
    }
    auto replayed = count(*seen, stream->get());
    if (!replayed) {
        return fail(replayed.error());
    }
    probe.graph = replayed.value();
    return probe;
}

}  // namespace augur::bench
