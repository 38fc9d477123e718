// The GPU lane of a runtime stage: a high-priority stream its graphs are replayed on and the event that
// marks the end of the work enqueued there (recorded after each launch, polled — never a blocking device
// synchronise). Shared by the CUDA parts of Intention and Motion. Init phase: create(); run phase:
// the stream and event calls.
#pragma once

#include <string>

#include "augur/core/result.hpp"
#include "augur/platform/stream.hpp"

namespace augur::runtime::detail {

struct GpuLane {
    platform::Stream stream;
    platform::Event done;

    /// The stream (high priority) and the event; the error names `owner` and the step that failed.
    [[nodiscard]] static Result<GpuLane, std::string> create(const std::string& owner) {
        auto stream = platform::Stream::create(platform::StreamPriority::High);
        if (!stream) {
            return fail(owner + ": high-priority stream: " + platform::describe(stream.error()));
        }
        auto done = platform::Event::create(false);
        if (!done) {
            return fail(owner + ": completion event: " + platform::describe(done.error()));
        }
        GpuLane lane;
        lane.stream = std::move(stream).value();
        lane.done = std::move(done).value();
        return Result<GpuLane, std::string>(std::move(lane));
    }
};

}  // namespace augur::runtime::detail
