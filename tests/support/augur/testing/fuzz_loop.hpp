// The loop of a deterministic, bounded fuzz test: feeds mutated corpus entries to a check.
//
//   TEST(LoaderFuzz, MutatedFilesGiveADeploymentOrAnError) {
//       const FuzzCorpus corpus = FuzzCorpus::fromFiles({"config/default.yaml"});
//       const FuzzReport report = fuzzText("loader", corpus, FuzzBudget{}, YAML_TOKENS,
//                                          [](const std::string& input) { ... EXPECT_... });
//       EXPECT_GT(report.iterations, 0U);
//   }
//
// Wire messages: a corpus of message bytes (FuzzCorpus::fromObjects) and `budget.fixedSize = true` keep
// every input exactly sizeof(T) bytes; the check copies it into a T (std::memcpy) and validates it.
//
// Input i is the corpus entry i (unmutated) for i < corpus size, else a mutation of a corpus entry
// drawn by a Mutator seeded with (seed, i): the sequence is the same on every run, and one input can be
// reproduced from its iteration alone. The loop stops after `iterations` inputs, at the first input
// on which the check failed (GoogleTest's HasFailure), or when `timeLimit` has passed (a safety stop on
// slow machines and under sanitizers: the test then passes with fewer inputs, and says so).
//
// What a failure leaves behind: the input is written to `fuzz-<name>-<iteration>.input` in the working
// directory (ctest: the test's build folder) and its seed and iteration are printed, also when the
// process dies on the input (a sanitizer report, a panic's abort, a signal). A watchdog thread aborts
// the process, saving the input first, when one input runs longer than `inputLimit`: a hang fails the
// test in seconds instead of running into ctest's timeout (or out of memory). Environment overrides for
// longer local runs: AUGUR_FUZZ_ITERATIONS, AUGUR_FUZZ_SECONDS, AUGUR_FUZZ_SEED; AUGUR_FUZZ_ONLY=N checks
// only input N (to reproduce a failure under a debugger).
//
// Test-only code; one fuzz loop per process at a time (the crash report state is process-wide).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "augur/testing/mutator.hpp"
#include "augur/testing/testing.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
#define AUGUR_FUZZ_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define AUGUR_FUZZ_UNDER_SANITIZER 1
#endif
#endif
#if defined(AUGUR_FUZZ_UNDER_SANITIZER) && __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define AUGUR_FUZZ_HAVE_DEATH_CALLBACK 1
#endif

namespace augur::testing {

/// The committed inputs a fuzz test starts from.
struct FuzzCorpus {
    std::vector<std::string> entries;

    /// Reads each file (paths relative to the source tree); a missing file fails the test.
    static FuzzCorpus fromFiles(const std::vector<std::string>& relativePaths) {
        FuzzCorpus corpus;
        for (const std::string& relative : relativePaths) {
            std::ifstream in(sourcePath(relative), std::ios::binary);
            EXPECT_TRUE(in.good()) << "fuzz corpus file missing: " << relative;
            std::ostringstream text;
            text << in.rdbuf();
            corpus.entries.push_back(std::move(text).str());
        }
        return corpus;
    }

    /// The bytes of trivially copyable objects (e.g. wire messages), one entry each.
    template <typename T>
    static FuzzCorpus fromObjects(const std::vector<T>& objects) {
        static_assert(std::is_trivially_copyable_v<T>, "fromObjects needs a trivially copyable type");
        FuzzCorpus corpus;
        for (const T& object : objects) {
            corpus.entries.emplace_back(reinterpret_cast<const char*>(&object), sizeof(T));
        }
        return corpus;
    }
};

struct FuzzBudget {
    std::uint64_t iterations{2000};                ///< inputs tried (corpus entries included)
    std::chrono::milliseconds timeLimit{60'000};   ///< safety stop for the whole loop
    std::chrono::milliseconds inputLimit{10'000};  ///< one input taking longer aborts the test (a hang)
    std::uint64_t seed{0x5EEDF00DULL};
    Mutator::Options mutator{};
    bool fixedSize{false};  ///< size-preserving binary mutations only (Mutator::mutateFixedSize)
};

struct FuzzReport {
    std::uint64_t iterations{0};       ///< inputs tried
    bool stoppedByTimeLimit{false};
    std::chrono::microseconds slowestInput{0};
};

namespace detail {

/// Process-wide state read by the crash handlers (async-signal-safe use only: plain data and write()).
struct FuzzCrashState {
    const char* data{nullptr};
    std::size_t size{0};
    char path[512]{};
    char message[640]{};
};
inline FuzzCrashState g_fuzzCrash{};

inline void writeAll(int fd, const char* data, std::size_t size) noexcept {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n <= 0) {
            return;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

inline void dumpCurrentInput() noexcept {
    if (g_fuzzCrash.data == nullptr) {
        return;
    }
    const int fd = ::open(g_fuzzCrash.path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        writeAll(fd, g_fuzzCrash.data, g_fuzzCrash.size);
        ::close(fd);
    }
    writeAll(STDERR_FILENO, g_fuzzCrash.message, std::strlen(g_fuzzCrash.message));
    g_fuzzCrash.data = nullptr;
}

inline void fuzzSignalHandler(int signal) {
    dumpCurrentInput();
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

inline void installCrashHandlers() {
    static const bool installed = [] {
#if defined(AUGUR_FUZZ_HAVE_DEATH_CALLBACK)
        __sanitizer_set_death_callback(&dumpCurrentInput);  // sanitizer reports end here
#else
        std::signal(SIGSEGV, &fuzzSignalHandler);  // (the sanitizers own these signals)
        std::signal(SIGBUS, &fuzzSignalHandler);
        std::signal(SIGFPE, &fuzzSignalHandler);
        std::signal(SIGILL, &fuzzSignalHandler);
#endif
        std::signal(SIGABRT, &fuzzSignalHandler);  // a panic (AUGUR_ASSERT) or std::terminate
        return true;
    }();
    (void)installed;
}

inline std::int64_t nanosecondsOf(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

inline std::uint64_t envOr(const char* name, std::uint64_t fallback) {
    const char* text = std::getenv(name);
    return text != nullptr && *text != '\0' ? std::strtoull(text, nullptr, 0) : fallback;
}

}  // namespace detail

/// Runs `check(input)` (a callable taking `const std::string&`, reporting with EXPECT_/ADD_FAILURE) on
/// the corpus entries and then on mutated inputs, within `budget`. `name` names the saved inputs;
/// `dictionary` holds format tokens for the mutator (may be empty).
template <typename Check>
FuzzReport fuzzText(const std::string& name, const FuzzCorpus& corpus, FuzzBudget budget,
                    const std::vector<std::string>& dictionary, Check&& check) {
    using Clock = std::chrono::steady_clock;
    budget.iterations = detail::envOr("AUGUR_FUZZ_ITERATIONS", budget.iterations);
    budget.timeLimit = std::chrono::seconds(detail::envOr(
        "AUGUR_FUZZ_SECONDS",
        static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(budget.timeLimit).count())));
    budget.seed = detail::envOr("AUGUR_FUZZ_SEED", budget.seed);
    FuzzReport report;
    if (corpus.entries.empty()) {
        ADD_FAILURE() << "fuzz " << name << ": empty corpus";
        return report;
    }
    detail::installCrashHandlers();
    const Clock::time_point start = Clock::now();
    // Start of the input being checked (steady clock, ns), 0 between inputs; read by the watchdog.
    std::atomic<std::int64_t> inputStart_ns{0};
    std::atomic<bool> finished{false};
    std::thread watchdog([&] {
        const auto limit_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(budget.inputLimit).count();
        while (!finished.load()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            const std::int64_t began = inputStart_ns.load();
            const std::int64_t now = detail::nanosecondsOf(Clock::now());
            if (began != 0 && now - began > limit_ns) {
                std::fprintf(stderr, "\nfuzz %s: one input ran longer than %lld ms (a hang)", name.c_str(),
                             static_cast<long long>(budget.inputLimit.count()));
                detail::dumpCurrentInput();
                std::abort();
            }
        }
    });
    std::string input;
    const std::uint64_t only = detail::envOr("AUGUR_FUZZ_ONLY", ~std::uint64_t{0});
    for (std::uint64_t i = only == ~std::uint64_t{0} ? 0 : only; i < budget.iterations; ++i) {
        if (only != ~std::uint64_t{0} && i != only) {
            break;
        }
        if (Clock::now() - start > budget.timeLimit) {
            report.stoppedByTimeLimit = true;
            break;
        }
        if (i < corpus.entries.size()) {
            input = corpus.entries[i];
        } else {
            FuzzRng pick(budget.seed ^ (0x9E3779B97F4A7C15ULL * (i + 1)));
            Mutator mutator(pick.next(), budget.mutator);
            mutator.setDictionary(dictionary);
            const std::string& base = corpus.entries[pick.below(corpus.entries.size())];
            const std::string& other = corpus.entries[pick.below(corpus.entries.size())];
            if (budget.fixedSize) {
                input = base;
                mutator.mutateFixedSize({reinterpret_cast<std::uint8_t*>(input.data()), input.size()},
                                        {reinterpret_cast<const std::uint8_t*>(other.data()), other.size()});
            } else {
                input = mutator.mutateText(base, other);
            }
        }
        const std::string path = "fuzz-" + name + "-" + std::to_string(i) + ".input";
        std::snprintf(detail::g_fuzzCrash.path, sizeof detail::g_fuzzCrash.path, "%s", path.c_str());
        std::snprintf(detail::g_fuzzCrash.message, sizeof detail::g_fuzzCrash.message,
                      "\nfuzz %s: died on iteration %llu (seed 0x%llx); the input is in %s\n", name.c_str(),
                      static_cast<unsigned long long>(i), static_cast<unsigned long long>(budget.seed), path.c_str());
        detail::g_fuzzCrash.size = input.size();
        detail::g_fuzzCrash.data = input.data();

        const Clock::time_point before = Clock::now();
        inputStart_ns.store(detail::nanosecondsOf(before));
        try {
            check(input);
        } catch (const std::exception& e) {  // the readers under test report errors, they do not throw
            ADD_FAILURE() << "fuzz " << name << ": the check threw " << e.what();
        } catch (...) {
            ADD_FAILURE() << "fuzz " << name << ": the check threw";
        }
        inputStart_ns.store(0);
        const auto took = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - before);
        detail::g_fuzzCrash.data = nullptr;
        ++report.iterations;
        report.slowestInput = std::max(report.slowestInput, took);
        if (::testing::Test::HasFailure()) {
            std::ofstream(path, std::ios::binary).write(input.data(), static_cast<std::streamsize>(input.size()));
            ADD_FAILURE() << "fuzz " << name << ": failed on iteration " << i << " (seed 0x" << std::hex << budget.seed
                          << std::dec << "); the input is in " << path;
            break;
        }
    }
    finished.store(true);
    watchdog.join();
    std::printf("fuzz %s: %llu inputs in %.1f s (slowest %.1f ms)%s\n", name.c_str(),
                static_cast<unsigned long long>(report.iterations),
                std::chrono::duration<double>(Clock::now() - start).count(), report.slowestInput.count() / 1000.0,
                report.stoppedByTimeLimit ? ", stopped by the time limit" : "");
    return report;
}

}  // namespace augur::testing
