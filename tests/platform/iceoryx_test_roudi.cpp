// The in-process RouDi of the iceoryx tests, set up once per test program as a GoogleTest environment
// (before the first test, torn down after the last; --gtest_list_tests does not start it).
#include "iceoryx_test_roudi.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "iceoryx_hoofs/log/logmanager.hpp"
#include "iceoryx_hoofs/posix_wrapper/file_lock.hpp"
#include "iceoryx_hoofs/posix_wrapper/posix_access_rights.hpp"
#include "iceoryx_posh/iceoryx_posh_config.hpp"
#include "iceoryx_posh/internal/roudi/roudi.hpp"
#include "iceoryx_posh/roudi/iceoryx_roudi_components.hpp"
#include "iceoryx_posh/runtime/posh_runtime_single_process.hpp"

namespace augur::testing {
namespace {

iox::RouDiConfig_t testRouDiConfig() {
    iox::mepoo::MePooConfig pools;
    pools.addMemPool({STRESS_POOL_PAYLOAD_BYTES, STRESS_POOL_CHUNKS});
    pools.addMemPool({EXHAUSTION_POOL_PAYLOAD_BYTES, EXHAUSTION_POOL_CHUNKS});
    pools.addMemPool({MESSAGE_POOL_PAYLOAD_BYTES, MESSAGE_POOL_CHUNKS});
    pools.addMemPool({LARGE_POOL_PAYLOAD_BYTES, LARGE_POOL_CHUNKS});

    iox::RouDiConfig_t config;
    config.setDefaults();
    config.m_sharedMemorySegments.clear();
    const auto group = iox::posix::PosixGroup::getGroupOfCurrentProcess().getName();
    config.m_sharedMemorySegments.push_back({group, group, pools});
    return config;
}

/// How long a test program waits for another RouDi on this machine (another test program, a daemon) to end.
constexpr std::chrono::seconds ROUDI_LOCK_TIMEOUT{120};
constexpr std::chrono::milliseconds ROUDI_LOCK_POLL{100};

/// iceoryx 2.0 allows one RouDi per machine, guarded by a file lock that a second RouDi treats as a
/// fatal error. Waits until the lock is free (taking and releasing it), or returns false at `timeout`.
bool waitForRouDiLock(std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        auto lock = iox::posix::FileLock::create(iox::roudi::ROUDI_LOCK_NAME);
        if (!lock.has_error()) {
            return true;  // released here; the RouDi takes it again right away
        }
        if (lock.get_error() != iox::posix::FileLockError::LOCKED_BY_OTHER_PROCESS ||
            std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(ROUDI_LOCK_POLL);
    }
}

class InProcessRouDi final : public ::testing::Environment {
  public:
    void SetUp() override {
        if (!ICEORYX_TESTS_RUNNABLE) {
            return;
        }
        iox::log::LogManager::GetLogManager().SetDefaultLogLevel(iox::log::LogLevel::kError);
        if (!waitForRouDiLock(ROUDI_LOCK_TIMEOUT)) {
            GTEST_FAIL() << "another iceoryx RouDi (lock '" << iox::roudi::ROUDI_LOCK_NAME
                         << "') kept running on this machine for " << ROUDI_LOCK_TIMEOUT.count() << " s";
        }
        m_components.emplace(testRouDiConfig());
        constexpr bool KILL_PROCESSES_IN_DESTRUCTOR = false;
        m_roudi = std::make_unique<iox::roudi::RouDi>(
            m_components->rouDiMemoryManager, m_components->portManager,
            iox::roudi::RouDi::RoudiStartupParameters{iox::roudi::MonitoringMode::OFF,
                                                      KILL_PROCESSES_IN_DESTRUCTOR});
        m_runtime = std::make_unique<iox::runtime::PoshRuntimeSingleProcess>("augur_platform_tests");
    }

    void TearDown() override {
        m_runtime.reset();
        m_roudi.reset();
        m_components.reset();
    }

  private:
    std::optional<iox::roudi::IceOryxRouDiComponents> m_components;
    std::unique_ptr<iox::roudi::RouDi> m_roudi;
    std::unique_ptr<iox::runtime::PoshRuntimeSingleProcess> m_runtime;
};

[[maybe_unused]] ::testing::Environment* const IN_PROCESS_ROUDI =
    ::testing::AddGlobalTestEnvironment(new InProcessRouDi);

}  // namespace
}  // namespace augur::testing
