#include "augur/runtime/pipeline_state.hpp"

namespace augur::runtime {

std::unique_ptr<PipelineState> makePipelineState() { return std::make_unique<PipelineState>(); }

}  // namespace augur::runtime
