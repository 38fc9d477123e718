// Shared between transport.cpp and roudi.cpp: one iceoryx runtime per process.
#pragma once

#include <string>

namespace augur::platform::detail {

/// Records that this process's iceoryx runtime is `appName`; false if one exists already.
bool claimRuntimeName(const std::string& appName);
void releaseRuntimeName();

}  // namespace augur::platform::detail
