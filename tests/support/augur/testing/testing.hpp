// Test support shared by every suite.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "augur/platform/gpu_info.hpp"

namespace augur::testing {

/// Absolute path of a file in the source tree, e.g. sourcePath("config/default.yaml").
inline std::string sourcePath(const std::string& relative) { return std::string(AUGUR_SOURCE_DIR) + "/" + relative; }

/// True when a CUDA device can run the test.
inline bool gpuPresent() { return platform::cudaCompiledIn() && platform::gpuCount() > 0; }

}  // namespace augur::testing

/// First statement of every GPU test: skips (reported as skipped by CTest) without a CUDA device.
#define AUGUR_REQUIRE_GPU()                                                  \
    do {                                                                     \
        if (!::augur::testing::gpuPresent()) {                               \
            GTEST_SKIP() << "no CUDA device on this machine";                \
        }                                                                    \
    } while (false)
