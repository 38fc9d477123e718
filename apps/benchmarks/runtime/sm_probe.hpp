// A check that the runtime's GPU streams run where they should: a probe kernel, enqueued on a stream made
// by platform::Stream::create (so in the active SM partition, if any), records the SMs its blocks ran on,
// launched directly and replayed from a captured graph, as the runtime's stages launch their work.
#pragma once

#include <string>

#include "augur/core/result.hpp"

namespace augur::bench {

struct SmProbe {
    int direct{0};  ///< distinct SMs the probe's blocks ran on, direct launch
    int graph{0};   ///< … replayed from a captured CUDA graph
};

/// Runs the probe with `blocksPerDeviceSm` blocks per SM of the whole device (each spinning a few
/// microseconds, so that the blocks spread over every SM they may use). Init phase: allocates,
/// synchronises. The error says which CUDA call failed.
[[nodiscard]] Result<SmProbe, std::string> probeStreamSms(int blocksPerDeviceSm = 4);

}  // namespace augur::bench
