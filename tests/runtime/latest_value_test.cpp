// The triple buffer between the link thread and the cycle thread: newest value, no tearing.
#include "augur/runtime/latest_value.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>

namespace augur::runtime {
namespace {

/// Two halves that a torn copy would not keep in step.
struct Pair {
    std::uint64_t value{0};
    std::uint64_t twice{0};
};

TEST(LatestValue, BeforeAnyPublishTheInitialValueIsRead) {
    constexpr Pair INITIAL{7, 14};
    LatestValue<Pair> sut(INITIAL);

    const Pair read = sut.newest();

    EXPECT_EQ(read.value, INITIAL.value);
    EXPECT_EQ(read.twice, INITIAL.twice);
}

TEST(LatestValue, TheLastOfSeveralPublishesIsRead) {
    LatestValue<Pair> sut;

    sut.publish({1, 2});
    sut.publish({2, 4});
    sut.publish({3, 6});
    const Pair first = sut.newest();
    const Pair again = sut.newest();

    EXPECT_EQ(first.value, 3U);
    EXPECT_EQ(again.value, 3U) << "a value read stays until a newer one is published";
}

TEST(LatestValue, AValuePublishedAfterAReadIsTheNextRead) {
    LatestValue<Pair> sut;
    sut.publish({1, 2});
    (void)sut.newest();

    sut.publish({2, 4});

    EXPECT_EQ(sut.newest().value, 2U);
}

TEST(LatestValue, AConcurrentReaderSeesWholeValuesThatNeverGoBack) {
    constexpr std::uint64_t PUBLISHES = 200'000;
    LatestValue<Pair> sut;
    std::atomic<bool> done{false};
    std::thread producer([&] {
        for (std::uint64_t i = 1; i <= PUBLISHES; ++i) {
            sut.publish({i, 2 * i});
        }
        done.store(true);
    });
    std::uint64_t torn = 0;
    std::uint64_t backwards = 0;
    std::uint64_t previous = 0;
    bool finished = false;
    while (!finished) {
        finished = done.load();  // one more read after the producer ended
        const Pair read = sut.newest();
        torn += read.twice != 2 * read.value ? 1U : 0U;
        backwards += read.value < previous ? 1U : 0U;
        previous = read.value;
    }
    producer.join();

    EXPECT_EQ(torn, 0U);
    EXPECT_EQ(backwards, 0U);
    EXPECT_EQ(previous, PUBLISHES) << "the last value published is read in the end";
}

}  // namespace
}  // namespace augur::runtime
