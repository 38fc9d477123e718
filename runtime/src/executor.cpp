#include "augur/runtime/executor.hpp"

namespace augur::runtime {

template class BasicExecutor<platform::MonotonicClock>;

}  // namespace augur::runtime
