// main() for every test executable: a panic reaches GoogleTest's output before the abort.
#include <gtest/gtest.h>

#include <cstdio>

#include "augur/core/panic.hpp"

namespace {
void testPanicHandler(const augur::PanicInfo& info) noexcept {
    std::fprintf(stderr, "augur panic in test at %s:%d: %s [%s]\n", info.file, info.line, info.message,
                 info.expression);
    std::fflush(stderr);
}
}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    augur::setPanicHandler(&testPanicHandler);
    return RUN_ALL_TESTS();
}
