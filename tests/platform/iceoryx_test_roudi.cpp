// The in-process RouDi of the iceoryx tests, set up once per test program as a GoogleTest environment
// (before the first test, torn down after the last; --gtest_list_tests does not start it).
#include "iceoryx_test_roudi.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "iceoryx_hoofs/log/logmanager.hpp"
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

class InProcessRouDi final : public ::testing::Environment {
  public:
    void SetUp() override {
        iox::log::LogManager::GetLogManager().SetDefaultLogLevel(iox::log::LogLevel::kError);
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
