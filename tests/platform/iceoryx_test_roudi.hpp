// An iceoryx 2.0 RouDi and a single-process runtime living inside the test program, so publish /
// subscribe tests need no `iox-roudi` daemon (the pattern of iceoryx's `singleprocess` example).
//
// The RouDi's memory pools are sized for the tests: each test that counts chunks has a pool of its
// own payload size, so no other test's chunks can be in it. iceoryx 2.0 names its shared-memory
// segments and its socket globally, so only one RouDi may run on a machine at a time: the tests using
// this are registered with the CTest resource lock `iceoryx_roudi`.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>

#include "augur/core/messages.hpp"

#if defined(__SANITIZE_THREAD__)
#define AUGUR_ICEORYX_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define AUGUR_ICEORYX_UNDER_TSAN 1
#endif
#endif

namespace augur::testing {

/// iceoryx (a system library) is not built with ThreadSanitizer, so the synchronisation of each sample
/// handoff (atomics and process-shared mutexes in shared memory) is invisible to it and every handoff
/// would be reported as a race. Under ThreadSanitizer no RouDi is started and the tests skip.
#if defined(AUGUR_ICEORYX_UNDER_TSAN)
inline constexpr bool ICEORYX_TESTS_RUNNABLE = false;
#else
inline constexpr bool ICEORYX_TESTS_RUNNABLE = true;
#endif

/// Payload of the loan/publish/take stress test: a sequence number and a pattern derived from it.
struct PatternSample {
    static constexpr std::size_t WORD_COUNT = 15;
    std::uint64_t sequence{0};
    std::uint64_t words[WORD_COUNT]{};
};

/// Payload used only by the pool-exhaustion test (its pool holds EXHAUSTION_POOL_CHUNKS chunks).
struct ExhaustionProbe {
    std::uint8_t bytes[1800]{};
};

inline constexpr std::uint32_t STRESS_POOL_PAYLOAD_BYTES = 128;
inline constexpr std::uint32_t STRESS_POOL_CHUNKS = 8;
inline constexpr std::uint32_t EXHAUSTION_POOL_PAYLOAD_BYTES = 2048;
inline constexpr std::uint32_t EXHAUSTION_POOL_CHUNKS = 4;
inline constexpr std::uint32_t MESSAGE_POOL_PAYLOAD_BYTES = 8192;   // ObjectList, TrackList
inline constexpr std::uint32_t MESSAGE_POOL_CHUNKS = 64;
inline constexpr std::uint32_t LARGE_POOL_PAYLOAD_BYTES = 1U << 20; // MotionPrediction
inline constexpr std::uint32_t LARGE_POOL_CHUNKS = 4;

static_assert(sizeof(PatternSample) <= STRESS_POOL_PAYLOAD_BYTES);
static_assert(sizeof(ExhaustionProbe) > STRESS_POOL_PAYLOAD_BYTES);
static_assert(sizeof(ExhaustionProbe) <= EXHAUSTION_POOL_PAYLOAD_BYTES);
static_assert(sizeof(ObjectList) > EXHAUSTION_POOL_PAYLOAD_BYTES);
static_assert(sizeof(ObjectList) <= MESSAGE_POOL_PAYLOAD_BYTES);
static_assert(sizeof(MotionPrediction) > MESSAGE_POOL_PAYLOAD_BYTES);
static_assert(sizeof(MotionPrediction) <= LARGE_POOL_PAYLOAD_BYTES);

/// How long a test waits for RouDi to connect a publisher and a subscriber (generous: emulated
/// aarch64 runs are several times slower than native ones).
inline constexpr std::chrono::seconds CONNECT_TIMEOUT{20};

/// Polls `connected()` every millisecond until it returns true or `timeout` has passed.
template <typename Predicate>
bool waitUntil(Predicate connected, std::chrono::milliseconds timeout = CONNECT_TIMEOUT) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!connected()) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

}  // namespace augur::testing

/// First statement of every iceoryx test (see ICEORYX_TESTS_RUNNABLE).
#define AUGUR_REQUIRE_ICEORYX()                                                                  \
    do {                                                                                         \
        if (!::augur::testing::ICEORYX_TESTS_RUNNABLE) {                                         \
            GTEST_SKIP() << "iceoryx is not instrumented for ThreadSanitizer";                   \
        }                                                                                        \
    } while (false)
