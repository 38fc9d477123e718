// Broken contracts: one assertion macro that reaches one central handler.
//
// Use AUGUR_ASSERT for conditions that only a bug can violate (an index past a capacity the caller
// checked, a null pointer from our own code). Never use it for anything input can trigger: bad input
// gets a checked result (see result.hpp). The handler logs and aborts; it never returns.
#pragma once

namespace augur {

/// Where and why a contract broke.
struct PanicInfo {
    const char* file;
    int line;
    const char* expression;  ///< the failed condition as written, or "" for AUGUR_PANIC
    const char* message;
};

/// A panic handler reports the failure (log, flush traces, signal a supervisor). augur aborts the
/// process after it returns. It must be async-signal-tolerant: no allocation, no locks.
using PanicHandler = void (*)(const PanicInfo&) noexcept;

/// Installs `handler` (nullptr restores the default, which writes to stderr). Thread-safe.
/// Returns the previous handler.
PanicHandler setPanicHandler(PanicHandler handler) noexcept;

/// Calls the installed handler, then std::abort(). Allocation-free.
[[noreturn]] void panic(const char* file, int line, const char* expression, const char* message) noexcept;

}  // namespace augur

#define AUGUR_PANIC(msg) ::augur::panic(__FILE__, __LINE__, "", (msg))

#define AUGUR_ASSERT(cond, msg)                                     \
    do {                                                            \
        if (!(cond)) [[unlikely]] {                                 \
            ::augur::panic(__FILE__, __LINE__, #cond, (msg));       \
        }                                                           \
    } while (false)
