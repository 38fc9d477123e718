// Uses augur's installed headers and libraries: the version, the configuration parser (a deployment
// without a map is refused with its key named), and the monitor's supervision logic.
#include <cstdio>
#include <string>

#include "augur/config/loader.hpp"
#include "augur/monitor/supervisor.hpp"
#include "augur/runtime/version.hpp"

int main() {
    const auto deployment = augur::config::loadDeploymentFromString("schema_version: 1\nmap: {}\n", "inline.yaml");
    augur::monitor::Supervisor supervisor(augur::monitor::SupervisorSettings{}, 0);
    supervisor.onTick(1);
    const bool refused = deployment.hasError() && augur::config::format(deployment.error()).find("map") != std::string::npos;
    if (!refused || supervisor.active() != 0) {
        std::fprintf(stderr, "augur-consumer: the installed libraries do not work\n");
        return 1;
    }
    std::printf("%s\n", augur::runtime::versionString());
    return 0;
}
