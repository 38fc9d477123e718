#include "augur/platform/realtime.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace augur::platform {

const char* toString(RealtimeStep step) noexcept {
    switch (step) {
        case RealtimeStep::LockMemory: return "memory locking (mlockall)";
        case RealtimeStep::PrefaultStack: return "stack pre-faulting";
        case RealtimeStep::CpuAffinity: return "CPU affinity";
        case RealtimeStep::SchedulerPriority: return "SCHED_FIFO priority";
    }
    return "unknown step";
}

RealtimeOutcome lockMemory() noexcept {
    const int rc = mlockall(MCL_CURRENT | MCL_FUTURE);
    return {RealtimeStep::LockMemory, rc == 0 ? 0 : errno};
}

RealtimeOutcome prefaultStack(std::size_t bytes) noexcept {
    // A variable-length region on this frame's stack, written page by page. volatile: not optimised out.
    constexpr std::size_t PAGE_BYTES = 4096;
    constexpr std::size_t MAX_BYTES = 8U * 1024U * 1024U;
    const std::size_t size = bytes < MAX_BYTES ? bytes : MAX_BYTES;
    auto* region = static_cast<volatile unsigned char*>(__builtin_alloca(size));
    for (std::size_t i = 0; i < size; i += PAGE_BYTES) {
        region[i] = 0;
    }
    return {RealtimeStep::PrefaultStack, 0};
}

RealtimeOutcome pinCurrentThread(std::span<const int> cores) noexcept {
    if (cores.empty()) {
        return {RealtimeStep::CpuAffinity, 0};
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    for (const int core : cores) {
        if (core < 0 || core >= CPU_SETSIZE) {
            return {RealtimeStep::CpuAffinity, EINVAL};
        }
        CPU_SET(static_cast<std::size_t>(core), &set);
    }
    const int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    return {RealtimeStep::CpuAffinity, rc};
}

namespace {
RealtimeOutcome setFifoPriorityOf(pthread_t thread, int priority) noexcept {
    if (priority == 0) {
        return {RealtimeStep::SchedulerPriority, 0};
    }
    if (priority < sched_get_priority_min(SCHED_FIFO) || priority > sched_get_priority_max(SCHED_FIFO)) {
        return {RealtimeStep::SchedulerPriority, EINVAL};
    }
    sched_param param{};
    param.sched_priority = priority;
    const int rc = pthread_setschedparam(thread, SCHED_FIFO, &param);
    return {RealtimeStep::SchedulerPriority, rc};
}
}  // namespace

RealtimeOutcome setFifoPriority(int priority) noexcept { return setFifoPriorityOf(pthread_self(), priority); }

RealtimeOutcome setFifoPriority(std::thread& thread, int priority) noexcept {
    return setFifoPriorityOf(thread.native_handle(), priority);
}

void nameThread(std::thread& thread, const char* name) noexcept {
    constexpr std::size_t MAX_NAME = 15;  // the kernel keeps 16 bytes with the terminator
    char truncated[MAX_NAME + 1] = {};
    std::strncpy(truncated, name, MAX_NAME);
    (void)pthread_setname_np(thread.native_handle(), truncated);
}

std::string describe(const RealtimeOutcome& outcome) {
    return std::string(toString(outcome.step)) + ": " + (outcome.errnoValue == 0 ? "ok" : std::strerror(outcome.errnoValue));
}

Result<void, RealtimeOutcome> applyRealtimeSetup(const RealtimeSetup& setup, const RealtimeWarning& warn) {
    AUGUR_ASSERT(warn != nullptr, "applyRealtimeSetup: no warning callback");
    const std::array<RealtimeOutcome, 4> outcomes{
        setup.lockMemory ? lockMemory() : RealtimeOutcome{RealtimeStep::LockMemory, 0},
        setup.prefaultStack_bytes > 0 ? prefaultStack(setup.prefaultStack_bytes)
                                      : RealtimeOutcome{RealtimeStep::PrefaultStack, 0},
        pinCurrentThread(setup.cores), setFifoPriority(setup.fifoPriority)};
    for (const RealtimeOutcome& outcome : outcomes) {
        if (outcome.errnoValue == 0) {
            continue;
        }
        if (setup.failOnRefusal) {
            return fail(outcome);
        }
        warn(outcome);
    }
    return {};
}

}  // namespace augur::platform
