#include "augur/core/panic.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace augur {
namespace {

void defaultPanicHandler(const PanicInfo& info) noexcept {
    if (info.expression[0] != '\0') {
        std::fprintf(stderr, "augur: panic at %s:%d: %s (failed: %s)\n", info.file, info.line, info.message,
                     info.expression);
    } else {
        std::fprintf(stderr, "augur: panic at %s:%d: %s\n", info.file, info.line, info.message);
    }
    std::fflush(stderr);
}

std::atomic<PanicHandler> g_handler{&defaultPanicHandler};

}  // namespace

PanicHandler setPanicHandler(PanicHandler handler) noexcept {
    return g_handler.exchange(handler != nullptr ? handler : &defaultPanicHandler);
}

void panic(const char* file, int line, const char* expression, const char* message) noexcept {
    const PanicInfo info{file, line, expression != nullptr ? expression : "", message != nullptr ? message : ""};
    g_handler.load()(info);
    std::abort();
}

}  // namespace augur
