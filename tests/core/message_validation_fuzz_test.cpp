// Mutated perception object lists through the input gate (label `fuzz`; also under ASan + UBSan).
//
// Each input is the bytes of an ObjectList with bit flips, random bytes and interesting integers and
// floats written into it (NaN, ±inf, 1e30, 3e38, INT64_MIN, 2⁶⁴−1 …), as a faulty or hostile publisher
// could put them into shared memory. Properties, for every input:
//   - an accepted list holds only finite, plausible objects with distinct ids, within capacity;
//   - no single list locks input out: afterwards, a fresh valid stream is accepted within
//     resyncAfterRejections lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "augur/core/message_validation.hpp"
#include "augur/testing/fuzz_loop.hpp"

namespace augur {
namespace {

constexpr std::int64_t NOW_NS = 50'000'000'000;
constexpr std::int64_t STEP_NS = 100'000'000;
constexpr std::uint32_t CAPACITY = 64;

ObjectListLimits limits() {
    ObjectListLimits l;
    l.maxObjects = CAPACITY;
    l.maxAge_ns = 400'000'000;
    l.maxFuture_ns = 100'000'000;
    l.resyncAfterRejections = 3;
    return l;
}

ObjectList validList(std::uint32_t count, std::uint64_t sequence, std::int64_t stamp_ns) {
    ObjectList list{};
    list.header.sequence = sequence;
    list.header.stamp_ns = stamp_ns;
    list.ego = EgoState{5.0F, -3.0F, 0.3F, 12.0F};
    list.objectCount = count;
    for (std::uint32_t i = 0; i < count; ++i) {
        PerceivedObject& o = list.objects[i];
        o.id = 100 + i;
        o.objectClass = static_cast<ObjectClass>(1 + i % 6);
        o.x_m = 8.0F * static_cast<float>(i) - 40.0F;
        o.y_m = 1.5F * static_cast<float>(i % 4);
        o.heading_rad = 0.2F * static_cast<float>(i % 7) - 0.6F;
        o.speed_mps = 0.5F * static_cast<float>(i);
        o.length_m = 4.5F;
        o.width_m = 1.8F;
        o.stdX_m = o.stdY_m = 0.3F;
        o.stdHeading_rad = 0.05F;
        o.stdSpeed_mps = 0.4F;
    }
    return list;
}

void expectAdmissible(const ObjectList& out, const PlausibilityLimits& plausible) {
    ASSERT_LE(out.objectCount, CAPACITY);
    std::set<std::uint32_t> ids;
    for (std::uint32_t i = 0; i < out.objectCount; ++i) {
        const PerceivedObject& o = out.objects[i];
        EXPECT_EQ(checkObject(o, plausible), RejectReason::None) << "object " << i;
        EXPECT_TRUE(std::isfinite(o.x_m) && std::isfinite(o.stdSpeed_mps)) << "object " << i;
        EXPECT_TRUE(ids.insert(o.id).second) << "repeated id " << o.id;
    }
    EXPECT_TRUE(std::isfinite(out.ego.x_m) && std::isfinite(out.ego.speed_mps));
}

TEST(ObjectListGateFuzz, NoMutatedListIsAdmittedBadOrLocksInputOut) {
    const std::vector<ObjectList> seeds{validList(0, 42, NOW_NS - STEP_NS), validList(5, 42, NOW_NS - STEP_NS),
                                        validList(CAPACITY, 42, NOW_NS)};
    testing::FuzzBudget budget;
    budget.fixedSize = true;
    budget.iterations = 3000;
    auto out = std::make_unique<ObjectList>();
    auto list = std::make_unique<ObjectList>();
    std::uint64_t accepted = 0;
    const testing::FuzzReport report = testing::fuzzText(
        "object-list", testing::FuzzCorpus::fromObjects(seeds), budget, {}, [&](const std::string& input) {
            ASSERT_EQ(input.size(), sizeof(ObjectList));
            std::memcpy(list.get(), input.data(), sizeof(ObjectList));
            ObjectListGate sut(limits());
            ASSERT_EQ(sut.admit(validList(3, 41, NOW_NS - 2 * STEP_NS), NOW_NS, *out).reason, RejectReason::None);

            const Admission admission = sut.admit(*list, NOW_NS, *out);
            if (admission.reason == RejectReason::None) {
                ++accepted;
                expectAdmissible(*out, limits().plausibility);
            }

            // A fresh, valid stream after it: accepted within resyncAfterRejections lists.
            bool flows = false;
            for (std::uint32_t k = 1; k <= limits().resyncAfterRejections && !flows; ++k) {
                const std::int64_t now = NOW_NS + static_cast<std::int64_t>(k) * STEP_NS;
                flows = sut.admit(validList(4, 42 + k, now), now, *out).reason == RejectReason::None;
            }
            EXPECT_TRUE(flows) << "one list locked input out";
        });
    EXPECT_GT(report.iterations, seeds.size());
    EXPECT_GT(accepted, 0U) << "some mutations keep the list valid";
}

}  // namespace
}  // namespace augur
