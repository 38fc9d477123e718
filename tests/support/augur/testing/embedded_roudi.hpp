// One RouDi inside the test program, started before the first test and stopped after the last (a
// GoogleTest environment), for suites that publish and subscribe through real shared memory. Such
// suites carry the CTest resource lock `iceoryx` (one RouDi per machine).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "augur/platform/roudi.hpp"

#if defined(__SANITIZE_THREAD__)
#define AUGUR_ICEORYX_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define AUGUR_ICEORYX_UNDER_TSAN 1
#endif
#endif

namespace augur::testing {

/// iceoryx (a system library) is not built with ThreadSanitizer, so its synchronisation in shared
/// memory is invisible to it and every sample handoff would be reported as a race: under
/// ThreadSanitizer no RouDi is started and iceoryx tests skip.
#if defined(AUGUR_ICEORYX_UNDER_TSAN)
inline constexpr bool ICEORYX_TESTS_RUNNABLE = false;
#else
inline constexpr bool ICEORYX_TESTS_RUNNABLE = true;
#endif

/// How long a test program waits for another RouDi on this machine to end.
inline constexpr std::int64_t ROUDI_LOCK_WAIT_MS = 120'000;

class EmbeddedRouDiEnvironment final : public ::testing::Environment {
public:
    explicit EmbeddedRouDiEnvironment(std::string appName,
                                      std::vector<platform::MempoolEntry> pools = platform::augurMempools())
        : m_appName(std::move(appName)), m_pools(std::move(pools)) {}

    void SetUp() override {
        if (!ICEORYX_TESTS_RUNNABLE) {
            return;
        }
        auto roudi = platform::EmbeddedRouDi::start(m_appName, m_pools, ROUDI_LOCK_WAIT_MS);
        ASSERT_TRUE(roudi.hasValue()) << platform::toString(roudi.error());
        m_roudi = std::move(roudi).value();
    }
    void TearDown() override { m_roudi.reset(); }

private:
    std::string m_appName;
    std::vector<platform::MempoolEntry> m_pools;
    std::unique_ptr<platform::EmbeddedRouDi> m_roudi;
};

}  // namespace augur::testing

/// First statement of every iceoryx test.
#define AUGUR_REQUIRE_ICEORYX()                                                                  \
    do {                                                                                        \
        if (!::augur::testing::ICEORYX_TESTS_RUNNABLE) {                                         \
            GTEST_SKIP() << "iceoryx tests do not run under ThreadSanitizer";                    \
        }                                                                                       \
    } while (false)
