// The benchmark tools' warm-up after host work (bench/idle_warmup.hpp): a short warm-up stretches
// to the device's idle time since the last timing, up to the library's default.
#include <gtest/gtest.h>

#include <optional>

#include "idle_warmup.hpp"

namespace vkconv::bench {
namespace {

TEST(IdleWarmup, StretchesAShortWarmupToTheIdleTimeUpToTheDefault) {
    const double full = TimingOptions{}.warmupMs;
    EXPECT_EQ(warmupAfterIdle(100, std::nullopt), full);  // the first timing: the clocks climb from rest
    EXPECT_EQ(warmupAfterIdle(100, 40.0), 100);           // back to back: as asked
    EXPECT_EQ(warmupAfterIdle(100, 300.0), 300);          // after a 300 ms pipeline build
    EXPECT_EQ(warmupAfterIdle(100, 2500.0), full);        // never past the default
    EXPECT_EQ(warmupAfterIdle(800, 2500.0), 800);         // a longer request stands
    EXPECT_EQ(warmupAfterIdle(0, std::nullopt), 0);       // 0 is none, always
    EXPECT_EQ(warmupAfterIdle(0, 2500.0), 0);
}

TEST(IdleWarmup, CountsTheIdleTimeFromTheLastTimingsEnd) {
    IdleAwareWarmup warmup;
    TimingOptions asked;
    asked.warmupMs = 100;
    asked.iterations = 7;
    const TimingOptions first = warmup.next(asked);
    EXPECT_EQ(first.warmupMs, TimingOptions{}.warmupMs);
    EXPECT_EQ(first.iterations, 7);  // the rest as asked
    warmup.ended();
    const double next = warmup.next(asked).warmupMs;  // right after a timing: little idle time
    EXPECT_GE(next, 100);
    EXPECT_LT(next, TimingOptions{}.warmupMs);
}

}  // namespace
}  // namespace vkconv::bench
