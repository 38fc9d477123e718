// Shared between transport.cpp and roudi.cpp: one iceoryx runtime per process, one name check.
#pragma once

#include <string>

namespace augur::platform::detail {

/// Records that this process's iceoryx runtime is `appName`; false if one exists already.
bool claimRuntimeName(const std::string& appName);
void releaseRuntimeName();

/// True when `name` may be handed to iceoryx (augur/core/transport_name.hpp): the runtime name
/// becomes the socket path /tmp/<name>, and iceoryx copies names as C strings into 100-character fields.
bool validName(const std::string& name) noexcept;

}  // namespace augur::platform::detail
