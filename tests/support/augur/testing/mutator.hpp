// A small, deterministic mutation engine for fuzz tests that run as ordinary GoogleTest tests.
//
// The same seed gives the same sequence of mutated inputs on every machine and run (SplitMix64, no
// global state, no clock), so a failure found in CI is reproduced by running the test again; the fuzz
// loop (fuzz_loop.hpp) prints the seed and iteration of a failing input and can write it to a file.
//
// Two kinds of input:
//   * Text formats (YAML, XML, CSV): `mutateText` applies a short stack of byte-level mutations, and
//     "interesting" values are written as text where a number stood (`0`, `-1`, `2147483647`, `nan`,
//     `-inf`, `1e30`, `3e38`, `4.9e-324`, …), plus optional format tokens (a dictionary: `<`, `="`,
//     `: `, `,`, …) inserted or overwritten at random places.
//   * Binary buffers of a fixed size, such as the bytes of a trivially copyable wire message:
//     `mutateFixedSize` / `mutatedCopy<T>` keep the size and write bit flips, random bytes and
//     interesting integers and floats in their binary form (native byte order) at random offsets.
//     Note that a mutated struct may hold bytes that are not a valid value of its `bool` or `enum`
//     members, or padding garbage: pass it only to code that treats the bytes as untrusted (e.g. a
//     message validator that reads enums through their underlying type), as a receiver of shared
//     memory must.
//
// Mutations (one of each is drawn per step, 1 … maxStackedMutations steps per input):
//   FlipBit, RandomByte, InterestingBinary (1/2/4/8-byte integers, float, double), InterestingText,
//   DictionaryToken, DeleteChunk, DuplicateChunk, InsertRandomChunk, OverwriteChunk, Truncate, Splice
//   (the head of this input and the tail of another corpus entry, or a chunk of it inserted).
// Size-changing mutations are skipped in fixed-size mode; no output grows beyond `maxSize` bytes.
//
// Test-only code: allocates freely; not thread-safe (one Mutator per thread).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace augur::testing {

/// SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators", OOPSLA 2014).
class FuzzRng {
public:
    explicit FuzzRng(std::uint64_t seed) noexcept : m_state(seed) {}

    std::uint64_t next() noexcept {
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31U);
    }
    /// Uniform in [0, bound); 0 when bound is 0. (Modulo bias is irrelevant here.)
    std::uint64_t below(std::uint64_t bound) noexcept { return bound == 0 ? 0 : next() % bound; }
    /// True with probability 1 / n.
    bool oneIn(std::uint64_t n) noexcept { return below(n) == 0; }

private:
    std::uint64_t m_state;
};

enum class Mutation : std::uint8_t {
    FlipBit = 0,
    RandomByte,
    InterestingBinary,
    InterestingText,
    DictionaryToken,
    DeleteChunk,
    DuplicateChunk,
    InsertRandomChunk,
    OverwriteChunk,
    Truncate,
    Splice,
    Count
};

/// Integers and floating-point values that tend to break parsers and arithmetic, as text.
inline constexpr std::string_view INTERESTING_TEXT[] = {
    "0",         "-0",        "1",          "-1",          "127",         "128",         "255",
    "256",       "-128",      "32767",      "-32768",      "65535",       "65536",       "2147483647",
    "-2147483648", "4294967295", "4294967296", "9223372036854775807", "-9223372036854775808",
    "18446744073709551615", "18446744073709551616", "99999999999999999999999", "nan", "NaN", "-nan",
    "inf",       "-inf",      "infinity",   ".nan",        ".inf",        "-.inf",       "1e30",
    "-1e30",     "3e38",      "3.5e38",     "-3.5e38",     "1e308",       "1.8e308",     "-1.8e308",
    "1e-310",    "4.9e-324",  "1.17549435e-38", "1e-45",   "0.1",         "-0.0",        "1e",
    "0x10",      "+",         "-",          ".",           "",            "00000000000000000001",
};

/// Fixed-size binary mutations only: what a wire-message fuzzer needs.
inline constexpr Mutation FIXED_SIZE_MUTATIONS[] = {Mutation::FlipBit, Mutation::RandomByte,
                                                    Mutation::InterestingBinary, Mutation::OverwriteChunk,
                                                    Mutation::Splice};

/// The dictionary of comma-separated text (separators, line ends, comments, signs, a NUL), plus the
/// format's own tokens (`extra`: its column names, header keys, values).
inline std::vector<std::string> csvTokens(std::initializer_list<std::string> extra = {}) {
    std::vector<std::string> tokens{",", "\n", "\r\n", "#", " ", "\t", "-", "+", ".", "e", "\"", std::string(1, '\0')};
    tokens.insert(tokens.end(), extra.begin(), extra.end());
    return tokens;
}

class Mutator {
public:
    struct Options {
        std::size_t maxSize{1U << 20U};          ///< no output grows beyond this many bytes
        std::uint32_t maxStackedMutations{4};   ///< mutations applied to one input: 1 … this
        std::size_t maxChunk{64};               ///< longest chunk deleted, duplicated or inserted
    };

    explicit Mutator(std::uint64_t seed) : m_rng(seed) {}
    Mutator(std::uint64_t seed, Options options) : m_rng(seed), m_options(options) {}

    /// Format tokens inserted by DictionaryToken (e.g. "<", "/>", "=\"", ": ", "- ", ",", "\n").
    void setDictionary(std::vector<std::string> tokens) { m_dictionary = std::move(tokens); }

    /// A mutated copy of `input`; `spliceWith` (another corpus entry, may be empty) feeds Splice.
    [[nodiscard]] std::string mutateText(std::string_view input, std::string_view spliceWith = {}) {
        std::vector<std::uint8_t> bytes(input.begin(), input.end());
        mutateBytes(bytes, {reinterpret_cast<const std::uint8_t*>(spliceWith.data()), spliceWith.size()});
        return {bytes.begin(), bytes.end()};
    }

    /// Mutates a byte buffer in place; it may grow (up to maxSize), shrink or become empty.
    void mutateBytes(std::vector<std::uint8_t>& data, std::span<const std::uint8_t> spliceWith = {}) {
        const std::uint64_t steps = 1 + m_rng.below(m_options.maxStackedMutations);
        for (std::uint64_t i = 0; i < steps; ++i) {
            apply(static_cast<Mutation>(m_rng.below(static_cast<std::uint64_t>(Mutation::Count))), data, spliceWith);
        }
    }

    /// Mutates `bytes` in place keeping its size; `spliceWith` (same or any size, may be empty) feeds
    /// Splice, which then overwrites a range with the same range of the other buffer.
    void mutateFixedSize(std::span<std::uint8_t> bytes, std::span<const std::uint8_t> spliceWith = {}) {
        if (bytes.empty()) {
            return;
        }
        const std::uint64_t steps = 1 + m_rng.below(m_options.maxStackedMutations);
        for (std::uint64_t i = 0; i < steps; ++i) {
            const Mutation m = FIXED_SIZE_MUTATIONS[m_rng.below(std::size(FIXED_SIZE_MUTATIONS))];
            applyFixed(m, bytes, spliceWith);
        }
    }

    /// A copy of `value` with its bytes mutated (size kept); `other` feeds Splice. See the note on
    /// bool and enum members in the banner.
    template <typename T>
    [[nodiscard]] T mutatedCopy(const T& value, const T* other = nullptr) {
        static_assert(std::is_trivially_copyable_v<T>, "mutatedCopy needs a trivially copyable type");
        std::vector<std::uint8_t> bytes(sizeof(T));
        std::memcpy(bytes.data(), &value, sizeof(T));
        std::span<const std::uint8_t> splice;
        std::vector<std::uint8_t> otherBytes;
        if (other != nullptr) {
            otherBytes.resize(sizeof(T));
            std::memcpy(otherBytes.data(), other, sizeof(T));
            splice = otherBytes;
        }
        mutateFixedSize(bytes, splice);
        T out;
        std::memcpy(&out, bytes.data(), sizeof(T));
        return out;
    }

    /// Applies one named mutation (tests of the mutator, or a fuzzer that wants a fixed mix).
    void apply(Mutation mutation, std::vector<std::uint8_t>& data, std::span<const std::uint8_t> spliceWith = {}) {
        switch (mutation) {
            case Mutation::FlipBit:
            case Mutation::RandomByte:
            case Mutation::InterestingBinary:
            case Mutation::OverwriteChunk: applyFixed(mutation, data, spliceWith); return;
            case Mutation::InterestingText: interestingText(data); return;
            case Mutation::DictionaryToken: dictionaryToken(data); return;
            case Mutation::DeleteChunk: {
                if (data.empty()) {
                    return;
                }
                const std::size_t at = m_rng.below(data.size());
                const std::size_t length = 1 + m_rng.below(std::min(m_options.maxChunk, data.size() - at));
                data.erase(data.begin() + static_cast<std::ptrdiff_t>(at),
                           data.begin() + static_cast<std::ptrdiff_t>(at + length));
                return;
            }
            case Mutation::DuplicateChunk: {
                if (data.empty()) {
                    return;
                }
                const std::size_t from = m_rng.below(data.size());
                const std::size_t length = 1 + m_rng.below(std::min(m_options.maxChunk, data.size() - from));
                const std::vector<std::uint8_t> chunk(data.begin() + static_cast<std::ptrdiff_t>(from),
                                                      data.begin() + static_cast<std::ptrdiff_t>(from + length));
                insert(data, m_rng.below(data.size() + 1), chunk);
                return;
            }
            case Mutation::InsertRandomChunk: {
                std::vector<std::uint8_t> chunk(1 + m_rng.below(m_options.maxChunk));
                const bool printable = !m_rng.oneIn(4);  // mostly text, sometimes any byte
                for (std::uint8_t& b : chunk) {
                    b = printable ? static_cast<std::uint8_t>(0x20 + m_rng.below(0x5F)) : static_cast<std::uint8_t>(m_rng.next());
                }
                insert(data, m_rng.below(data.size() + 1), chunk);
                return;
            }
            case Mutation::Truncate: data.resize(m_rng.below(data.size() + 1)); return;
            case Mutation::Splice: {
                if (spliceWith.empty()) {
                    return;
                }
                if (m_rng.oneIn(2)) {  // head of this + tail of the other
                    const std::size_t cut = m_rng.below(data.size() + 1);
                    const std::size_t otherCut = m_rng.below(spliceWith.size() + 1);
                    data.resize(cut);
                    const std::size_t room = m_options.maxSize > cut ? m_options.maxSize - cut : 0;
                    const std::size_t take = std::min(room, spliceWith.size() - otherCut);
                    data.insert(data.end(), spliceWith.begin() + static_cast<std::ptrdiff_t>(otherCut),
                                spliceWith.begin() + static_cast<std::ptrdiff_t>(otherCut + take));
                } else {  // a chunk of the other inserted
                    const std::size_t from = m_rng.below(spliceWith.size());
                    const std::size_t length = 1 + m_rng.below(std::min(m_options.maxChunk, spliceWith.size() - from));
                    insert(data, m_rng.below(data.size() + 1),
                           {spliceWith.begin() + static_cast<std::ptrdiff_t>(from),
                            spliceWith.begin() + static_cast<std::ptrdiff_t>(from + length)});
                }
                return;
            }
            case Mutation::Count: return;
        }
    }

    FuzzRng& rng() noexcept { return m_rng; }

private:
    void applyFixed(Mutation mutation, std::span<std::uint8_t> data, std::span<const std::uint8_t> spliceWith) {
        if (data.empty()) {
            return;
        }
        switch (mutation) {
            case Mutation::FlipBit: data[m_rng.below(data.size())] ^= static_cast<std::uint8_t>(1U << m_rng.below(8)); return;
            case Mutation::RandomByte: data[m_rng.below(data.size())] = static_cast<std::uint8_t>(m_rng.next()); return;
            case Mutation::InterestingBinary: {
                std::uint8_t value[8]{};
                const std::size_t width = interestingBinary(value);
                if (width > data.size()) {
                    return;
                }
                std::memcpy(data.data() + m_rng.below(data.size() - width + 1), value, width);
                return;
            }
            case Mutation::OverwriteChunk: {
                const std::size_t from = m_rng.below(data.size());
                const std::size_t to = m_rng.below(data.size());
                const std::size_t length = 1 + m_rng.below(std::min({m_options.maxChunk, data.size() - from, data.size() - to}));
                std::memmove(data.data() + to, data.data() + from, length);
                return;
            }
            case Mutation::Splice: {
                const std::size_t common = std::min(data.size(), spliceWith.size());
                if (common == 0) {
                    return;
                }
                const std::size_t from = m_rng.below(common);
                const std::size_t length = 1 + m_rng.below(common - from);
                std::memcpy(data.data() + from, spliceWith.data() + from, length);
                return;
            }
            default: return;
        }
    }

    /// Writes one interesting value's bytes into `out`; returns its width (1, 2, 4 or 8).
    std::size_t interestingBinary(std::uint8_t (&out)[8]) {
        static constexpr std::int64_t INTEGERS[] = {0, 1, -1, 0x7F, 0x80, 0xFF, 0x7FFF, -0x8000, 0xFFFF, 0x7FFFFFFF,
                                                    -0x7FFFFFFF - 1, 0xFFFFFFFF, INT64_MAX, INT64_MIN};
        static constexpr float FLOATS[] = {0.0F, -0.0F, 1.0F, -1.0F, 1e30F, 3e38F, -3e38F, 1e-45F, 1.17549435e-38F,
                                           __builtin_nanf(""), __builtin_inff(), -__builtin_inff()};
        static constexpr double DOUBLES[] = {0.0, -0.0, 1.0, -1.0, 1e30, 3e38, 1e308, -1e308, 4.9e-324, 2.2250738585072014e-308,
                                             __builtin_nan(""), __builtin_inf(), -__builtin_inf()};
        switch (m_rng.below(3)) {
            case 0: {
                const std::int64_t v = INTEGERS[m_rng.below(std::size(INTEGERS))];
                const std::size_t width = std::size_t{1} << m_rng.below(4);
                std::memcpy(out, &v, width);  // little-endian targets: the low bytes
                return width;
            }
            case 1: {
                const float v = FLOATS[m_rng.below(std::size(FLOATS))];
                std::memcpy(out, &v, sizeof v);
                return sizeof v;
            }
            default: {
                const double v = DOUBLES[m_rng.below(std::size(DOUBLES))];
                std::memcpy(out, &v, sizeof v);
                return sizeof v;
            }
        }
    }

    static bool isNumberChar(std::uint8_t c) noexcept {
        return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
    }

    /// Replaces the number-like token at (or after) a random offset with an interesting value as text;
    /// inserts the value at the offset when no such token follows it.
    void interestingText(std::vector<std::uint8_t>& data) {
        const std::string_view value = INTERESTING_TEXT[m_rng.below(std::size(INTERESTING_TEXT))];
        std::size_t at = m_rng.below(data.size() + 1);
        while (at < data.size() && !(data[at] >= '0' && data[at] <= '9')) {
            ++at;
        }
        if (at == data.size()) {
            insert(data, m_rng.below(data.size() + 1), {reinterpret_cast<const std::uint8_t*>(value.data()), value.size()});
            return;
        }
        std::size_t begin = at;
        while (begin > 0 && isNumberChar(data[begin - 1])) {
            --begin;
        }
        std::size_t end = at;
        while (end < data.size() && isNumberChar(data[end])) {
            ++end;
        }
        data.erase(data.begin() + static_cast<std::ptrdiff_t>(begin), data.begin() + static_cast<std::ptrdiff_t>(end));
        insert(data, begin, {reinterpret_cast<const std::uint8_t*>(value.data()), value.size()});
    }

    void dictionaryToken(std::vector<std::uint8_t>& data) {
        if (m_dictionary.empty()) {
            return;
        }
        const std::string& token = m_dictionary[m_rng.below(m_dictionary.size())];
        const std::span<const std::uint8_t> bytes{reinterpret_cast<const std::uint8_t*>(token.data()), token.size()};
        const std::size_t at = m_rng.below(data.size() + 1);
        if (m_rng.oneIn(2) || at + token.size() > data.size()) {
            insert(data, at, bytes);
        } else {
            std::memcpy(data.data() + at, bytes.data(), bytes.size());
        }
    }

    /// Inserts `chunk` at `at`, keeping the buffer within maxSize.
    void insert(std::vector<std::uint8_t>& data, std::size_t at, std::span<const std::uint8_t> chunk) {
        const std::size_t room = m_options.maxSize > data.size() ? m_options.maxSize - data.size() : 0;
        const std::size_t length = std::min(room, chunk.size());
        data.insert(data.begin() + static_cast<std::ptrdiff_t>(at), chunk.begin(),
                    chunk.begin() + static_cast<std::ptrdiff_t>(length));
    }

    FuzzRng m_rng;
    Options m_options{};
    std::vector<std::string> m_dictionary;
};

}  // namespace augur::testing
