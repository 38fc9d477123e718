// Command-line conventions of augur's programs, on CLI11 (the offline tools augur-flock, augur-smooth,
// augur-map, augur-hil-baseline and the augur-bench-* programs use all of them, the benchmarks through
// apps/benchmarks/support/augur/bench/bench_cli.hpp; augur-runtime and augur-hil keep their own exit
// statuses; augur-dds-listener, a C program, follows them by hand).
//
//   --help          the generated help on standard output, exit status 0 (EXIT_OK)
//   --version       "augur VERSION (commit ID)" on standard output, exit status 0 (augur_version.hpp)
//   a bad option    one line on standard error naming the option, the value and the accepted range,
//                   exit status 2 (EXIT_USAGE); numbers must be finite and inside their documented range
//   a bad input     the tool's own message, exit status 1 (EXIT_INPUT): unreadable or malformed files,
//                   inputs whose memory needs exceed the limit, results that are not finite
//
// Offline tool code: allocates freely; CLI11 throws, and parse() turns its exceptions into a result.
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "augur/core/result.hpp"
#include "augur_version.hpp"

namespace augur::apps::cli {

inline constexpr int EXIT_OK = 0;
inline constexpr int EXIT_INPUT = 1;
inline constexpr int EXIT_USAGE = 2;

/// A number as messages and help print it: the shorter of its shortest exact fixed and scientific forms,
/// exponents without '+' and leading zeros ("0.5", "600", "1048576", "1e6", "2e-7").
[[nodiscard]] inline std::string formatNumber(double value) {
    char text[64];
    std::string fixed;
    for (int decimals = 0; decimals <= 17 && std::abs(value) < 1e17; ++decimals) {
        std::snprintf(text, sizeof(text), "%.*f", decimals, value);
        if (std::strtod(text, nullptr) == value) {
            fixed = text;
            break;
        }
    }
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(text, sizeof(text), "%.*e", digits - 1, value);
        if (std::strtod(text, nullptr) == value) {
            break;
        }
    }
    std::string scientific(text);
    const std::size_t e = scientific.find('e');
    std::size_t digit = e + 1;
    const std::string sign = scientific[digit] == '-' ? "-" : "";
    digit += (scientific[digit] == '+' || scientific[digit] == '-') ? 1 : 0;
    while (digit + 1 < scientific.size() && scientific[digit] == '0') {
        ++digit;
    }
    scientific = scientific.substr(0, e + 1) + sign + scientific.substr(digit);
    return !fixed.empty() && fixed.size() <= scientific.size() ? fixed : scientific;
}

/// Adds option `name` that takes one of the names in `choices` and stores the value paired with it in
/// `target` (e.g. "cv" → MotionModel::ConstantVelocity). A name not listed is a usage error naming the
/// choices; help shows them and the name of the current value of `target` as the default.
template <typename T>
CLI::Option* addChoice(CLI::App& app, const std::string& name, T& target, std::vector<std::pair<std::string, T>> choices,
                       const std::string& description) {
    std::vector<std::string> names;
    std::string current;
    for (const auto& [text, value] : choices) {
        names.push_back(text);
        if (value == target) {
            current = text;
        }
    }
    return app
        .add_option_function<std::string>(
            name,
            [&target, choices](const std::string& text) {
                for (const auto& [choice, value] : choices) {
                    if (choice == text) {
                        target = value;
                    }
                }
            },
            description)
        ->check(CLI::IsMember(names))
        ->default_str(current);
}

/// Validator: a finite number in [low, high], or (low, high] when `lowOpen`. Help shows the range.
[[nodiscard]] inline CLI::Validator numberIn(double low, double high, bool lowOpen = false) {
    const std::string range = (lowOpen ? "(" : "[") + formatNumber(low) + ", " + formatNumber(high) + "]";
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            double value = 0.0;
            const char* end = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(text.data(), end, value);
            const bool inside = ec == std::errc() && ptr == end && std::isfinite(value) &&
                                (lowOpen ? value > low : value >= low) && value <= high;
            return inside ? std::string() : "'" + text + "' is not a number in " + range;
        },
        "NUMBER in " + range);
}

/// Validator: an integer in [low, high]. Help shows the range.
[[nodiscard]] inline CLI::Validator integerIn(std::int64_t low, std::int64_t high) {
    const std::string range = "[" + std::to_string(low) + ", " + std::to_string(high) + "]";
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            std::int64_t value = 0;
            const char* end = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(text.data(), end, value);
            const bool inside = ec == std::errc() && ptr == end && value >= low && value <= high;
            return inside ? std::string() : "'" + text + "' is not an integer in " + range;
        },
        "INT in " + range);
}

/// The programs' shared settings of `app`: -h/--help, --version, and a column wide enough for the option
/// ranges.
inline void useConventions(CLI::App& app) {
    app.set_help_flag("-h,--help", "Print this help and exit");
    app.set_version_flag("--version", versionLine(), "Print the version and the commit, and exit");
    app.get_formatter()->column_width(42);
}

enum class Parsed : std::uint8_t {
    Run,   ///< the options are bound to the app's variables
    Help,     ///< --help was given: print app.help() and exit with EXIT_OK
    Version,  ///< --version was given: print versionLine() and exit with EXIT_OK
};

/// Parses `args` (argv[0] excluded) into the variables bound to `app`. Errors: the message CLI11 gives,
/// which names the option ("--mu: '1' is not an integer in [2, 2147483647]", "--input is required",
/// "The following arguments were not expected: --frobnicate").
[[nodiscard]] inline Result<Parsed, std::string> parse(CLI::App& app, std::vector<std::string> args) {
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
    try {
        app.parse(args);
    } catch (const CLI::CallForHelp&) {
        return Parsed::Help;
    } catch (const CLI::CallForVersion&) {
        return Parsed::Version;
    } catch (const CLI::ParseError& e) {
        return fail(std::string(e.what()));
    }
    return Parsed::Run;
}

/// The same for main()'s arguments.
[[nodiscard]] inline Result<Parsed, std::string> parse(CLI::App& app, int argc, const char* const* argv) {
    return parse(app, std::vector<std::string>(argv + std::min(argc, 1), argv + argc));
}

/// The help text of `program`, whose options define(app, options) declares on an Options.
template <typename Options, typename Define>
[[nodiscard]] std::string helpOf(const char* program, Define&& define) {
    Options options;
    CLI::App app{"", program};
    define(app, options);
    return app.help();
}

/// Parses `args` (argv[0] excluded) into `options` through the app define(app, options) declares, and
/// sets options.help and options.version. Errors as parse().
template <typename Options, typename Define>
[[nodiscard]] Result<void, std::string> parseInto(const char* program, const std::vector<std::string>& args,
                                                  Options& options, Define&& define) {
    CLI::App app{"", program};
    define(app, options);
    auto parsed = parse(app, args);
    if (!parsed) {
        return fail(std::move(parsed).error());
    }
    options.help = *parsed == Parsed::Help;
    options.version = *parsed == Parsed::Version;
    return {};
}

}  // namespace augur::apps::cli
