#include "augur/runtime/watchdog.hpp"

namespace augur::runtime {

template class BasicWatchdog<platform::MonotonicClock>;

}  // namespace augur::runtime
