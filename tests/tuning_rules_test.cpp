// The pure parts of tuning (include/vkconv/tuning.hpp): the acceptance rule fed with made-up
// timings, timing statistics, the micro-tuning neighbourhood on made-up devices, and the pruned
// sweep's candidates.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "kernels/channels_last/channels_last_params.hpp"  // src/
#include "tuning_fakes.hpp"
#include "vkconv/error.hpp"
#include "vkconv/tuning.hpp"

namespace vkconv {
namespace {

TimingStats stats(double median, double spread) {
    TimingStats t;
    t.runs = 20;
    t.medianMs = t.minMs = median;
    t.p10Ms = median * (1 - spread / 2);
    t.p90Ms = median * (1 + spread / 2);
    t.spread = spread;
    return t;
}

TEST(AcceptanceRule, AcceptsOnlyAConfirmedStableGainOfTwoPercent) {
    AcceptanceInput in;
    in.incumbent = stats(1.000, 0.01);
    in.tuned = stats(0.927, 0.004);
    AcceptanceDecision d = decideAcceptance(in);
    EXPECT_EQ(d.verdict, Verdict::NeedsConfirmation) << d.reason;
    EXPECT_FALSE(d.accepted());
    in.incumbentAgain = stats(1.000, 0.006);
    in.tunedAgain = stats(0.930, 0.004);
    d = decideAcceptance(in);
    EXPECT_EQ(d.verdict, Verdict::Accepted) << d.reason;
    EXPECT_NEAR(d.gain, 0.073, 1e-9);
    EXPECT_NEAR(d.confirmedGain, 0.070, 1e-9);
    EXPECT_EQ(d.reason.rfind("accepted: 7.3% faster, spread 0.4%/0.6%, confirmed", 0), 0u) << d.reason;
}

TEST(AcceptanceRule, KeepsTheDefault) {
    AcceptanceInput in;
    in.incumbent = stats(1.000, 0.01);
    in.tuned = stats(0.989, 0.01);  // 1.1% faster
    AcceptanceDecision d = decideAcceptance(in);
    EXPECT_EQ(d.verdict, Verdict::KeptNotFaster);
    EXPECT_EQ(d.reason.rfind("kept default: only 1.1% faster", 0), 0u) << d.reason;

    in.tuned = stats(1.050, 0.01);  // slower
    EXPECT_EQ(decideAcceptance(in).verdict, Verdict::KeptNotFaster);

    in.tuned = stats(0.900, 0.25);  // 10% faster but noisy: its p90 above the default's p10
    in.tunedAgain = stats(0.900, 0.01);
    in.incumbentAgain = stats(1.000, 0.01);
    d = decideAcceptance(in);
    EXPECT_EQ(d.verdict, Verdict::KeptUnstable);
    EXPECT_EQ(d.reason.rfind("kept default: unstable (spread 25.0%", 0), 0u) << d.reason;

    in.tuned = stats(0.900, 0.01);
    in.incumbentAgain = stats(1.000, 0.25);  // the default's second timing is noisy
    EXPECT_EQ(decideAcceptance(in).verdict, Verdict::KeptUnstable);
    in.incumbentAgain = stats(1.000, 0.051);  // past the limit, but not near the tuned range
    in.tuned = stats(0.930, 0.01);
    in.tunedAgain = stats(0.950, 0.01);  // p90 0.95475 against the default's p10 0.9745
    d = decideAcceptance(in);
    EXPECT_EQ(d.verdict, Verdict::Accepted) << d.reason;
    EXPECT_NE(d.reason.find("(5.1% over the 5.0% the rule asks, every p90 below the default's p10)"), std::string::npos)
        << d.reason;
    in.tunedAgain = stats(0.955, 0.05);  // p90 0.9789: inside the default's range
    EXPECT_EQ(decideAcceptance(in).verdict, Verdict::KeptUnstable);
    in.tuned = stats(0.900, 0.01);
    in.tunedAgain = stats(0.900, 0.01);
    in.incumbentAgain = stats(1.000, 0.01);

    // A noisy sweep timing of the default only triggers the confirmation, which decides.
    in.incumbent = stats(1.000, 0.30);
    in.incumbentAgain = stats(1.000, 0.01);
    EXPECT_EQ(decideAcceptance(in).verdict, Verdict::Accepted) << decideAcceptance(in).reason;
    in.incumbent = stats(1.000, 0.01);

    in.incumbentAgain = stats(1.000, 0.01);
    in.tunedAgain = stats(0.995, 0.01);  // the gain does not survive the second timing
    d = decideAcceptance(in);
    EXPECT_EQ(d.verdict, Verdict::KeptNotConfirmed);
    EXPECT_NE(d.reason.find("not confirmed"), std::string::npos) << d.reason;

    // Thresholds are parameters.
    AcceptanceRule strict;
    strict.minGain = 0.15;
    in.tunedAgain = stats(0.900, 0.01);
    EXPECT_EQ(decideAcceptance(in, strict).verdict, Verdict::KeptNotFaster);
}

TEST(AcceptanceRule, SummarizesTimes) {
    std::vector<double> ms;
    for (int i = 1; i <= 21; ++i) ms.push_back(double(i));
    const TimingStats t = summarizeTimes(ms);
    EXPECT_EQ(t.runs, 21);
    EXPECT_DOUBLE_EQ(t.medianMs, 11);
    EXPECT_DOUBLE_EQ(t.minMs, 1);
    EXPECT_DOUBLE_EQ(t.p10Ms, 3);
    EXPECT_DOUBLE_EQ(t.p90Ms, 19);
    EXPECT_DOUBLE_EQ(t.spread, 16.0 / 11.0);
    EXPECT_THROW(summarizeTimes({}), Error);
}

void checkNearby(const DeviceInfo& device, const ConvProblem& problem, Path path) {
    const auto ranked = rankConfigs(path, device, problem);
    ASSERT_FALSE(ranked.empty());
    // The heuristic's choice and a few others of its top 20.
    for (size_t i : {size_t(0), size_t(3), size_t(11), size_t(19)}) {
        if (i >= ranked.size()) break;
        const KernelConfig& current = ranked[i].config;
        SCOPED_TRACE(current.str());
        const auto nearby = nearbyConfigs(current, device, problem);
        ASSERT_GE(nearby.size(), 3u);
        EXPECT_LE(nearby.size(), 6u);
        EXPECT_EQ(nearby.front(), current);
        for (size_t j = 0; j < nearby.size(); ++j) {
            const KernelConfig& c = nearby[j];
            EXPECT_EQ(canImplement(c, device, problem), "") << c.str();
            EXPECT_EQ(c.bm, current.bm) << c.str();  // same tile, same grid
            EXPECT_EQ(c.bn, current.bn) << c.str();
            EXPECT_EQ(c.bk, current.bk) << c.str();
            for (size_t k = 0; k < j; ++k) EXPECT_FALSE(nearby[k] == c) << "twice: " << c.str();
        }
    }
}

// A ranking of made-up configurations: tile 64x64x16 in five subgroup layouts or instruction
// shapes, then 64x128x16 twice, then 64x64x16 split in two (another grid), then one more 64x64x16.
std::vector<RankedConfig> madeUpRanking() {
    auto config = [](uint32_t bn, uint32_t wm, uint32_t wn, uint32_t mmaN, uint32_t split) {
        KernelConfig c;
        c.path = Path::CoopMatF16;
        ChannelsLastNchwKernel k;
        k.warpsM = wm, k.warpsN = wn, k.mmaN = mmaN, k.splitK = split;
        c.params = k;
        c.bm = 64, c.bn = bn, c.bk = 16;
        return c;
    };
    std::vector<RankedConfig> r;
    for (auto [wm, wn, n] : {std::tuple{2u, 4u, 16u}, {2u, 2u, 16u}, {1u, 4u, 16u}, {2u, 4u, 8u}, {4u, 2u, 16u}})
        r.push_back({config(64, wm, wn, n, 1), double(r.size())});
    r.push_back({config(128, 2, 4, 16, 1), 5});
    r.push_back({config(128, 2, 2, 16, 1), 6});
    r.push_back({config(64, 2, 4, 16, 2), 7});
    r.push_back({config(64, 1, 2, 16, 1), 8});
    return r;
}

std::vector<size_t> positions(const std::vector<KernelConfig>& picked, const std::vector<RankedConfig>& ranked) {
    std::vector<size_t> out;
    for (const KernelConfig& c : picked)
        for (size_t i = 0; i < ranked.size(); ++i)
            if (ranked[i].config == c) out.push_back(i);
    return out;
}

TEST(SweepCandidates, AtMostSoManyOfOneTileThenTheRankingFills) {
    const auto ranked = madeUpRanking();
    // Three of the first tile, then the next tiles in ranked order.
    EXPECT_EQ(positions(sweepCandidates(ranked, 6, 3), ranked), (std::vector<size_t>{0, 1, 2, 5, 6, 7}));
    // Two a tile takes five (the split tile has one); the ranking fills the other three.
    EXPECT_EQ(positions(sweepCandidates(ranked, 8, 2), ranked), (std::vector<size_t>{0, 1, 5, 6, 7, 2, 3, 4}));
    // No cap: the heuristic's top N; more than there are: all of them, each once.
    EXPECT_EQ(positions(sweepCandidates(ranked, 4, 0), ranked), (std::vector<size_t>{0, 1, 2, 3}));
    EXPECT_EQ(positions(sweepCandidates(ranked, 100, 1), ranked), (std::vector<size_t>{0, 5, 7, 1, 2, 3, 4, 6, 8}));
    EXPECT_TRUE(sweepCandidates({}, 5, 3).empty());
}

TEST(SweepCandidates, EachKernelsBestComesFirst) {
    // The made-up NCHW ranking, then a channels-last and a gather configuration ranked last.
    auto ranked = madeUpRanking();
    KernelConfig nhwc = ranked[0].config, gather = ranked[0].config;
    nhwc.params = ChannelsLastNhwcKernel{detail::channelsLast(ranked[0].config)};
    gather.params = CoopMatGatherKernel{*ranked[0].config.coopMat()};
    ranked.push_back({nhwc, 9});
    ranked.push_back({gather, 10});
    // Each loader's best (0, 9, 10), then three of the first tile's (1, 2), then the next tile.
    EXPECT_EQ(positions(sweepCandidates(ranked, 6, 3), ranked), (std::vector<size_t>{0, 9, 10, 1, 2, 5}));
    // Fewer than there are kernels: their best in ranked order.
    EXPECT_EQ(positions(sweepCandidates(ranked, 2, 3), ranked), (std::vector<size_t>{0, 9}));
    // No cap: the plain top N, whatever the kernels.
    EXPECT_EQ(positions(sweepCandidates(ranked, 3, 0), ranked), (std::vector<size_t>{0, 1, 2}));
}

TEST(NearbyConfigs, SameTileThreeToSixIncludingTheCurrent) {
    checkNearby(fakeDevice(), ConvProblem::alexnet1(8), Path::Fp32);
    checkNearby(fakeDevice(), smallProblem(), Path::Fp32);
    checkNearby(fakeCoopMatDevice(false), ConvProblem::alexnet1(256), Path::CoopMatF16);
    checkNearby(fakeCoopMatDevice(false), smallProblem(), Path::CoopMatF16);
    checkNearby(fakeCoopMatDevice(true), ConvProblem::alexnet1(2), Path::CoopMatF16);
}

// The channels-last kernel's fragment prefetch is a neighbour both ways, and only that loader
// takes it.
TEST(NearbyConfigs, ChannelsLastTriesTheOtherFragmentPrefetch) {
    const DeviceInfo device = fakeCoopMatDevice(false);
    ConvProblem p;  // ResNet-50's 3x3/256
    p.batch = 64, p.inChannels = 256, p.height = p.width = 14, p.outChannels = 256;
    p.kernelH = p.kernelW = 3, p.padH = p.padW = 1;
    for (const RankedConfig& r : rankConfigs(Path::CoopMatF16, device, p)) {
        const KernelConfig& current = r.config;
        if (!current.is<ChannelsLastNhwcKernel>()) continue;
        SCOPED_TRACE(current.str());
        KernelConfig twin = current;
        twin.as<ChannelsLastNhwcKernel>().fragmentPrefetch = !current.as<ChannelsLastNhwcKernel>().fragmentPrefetch;
        const auto nearby = nearbyConfigs(current, device, p);
        EXPECT_NE(std::find(nearby.begin(), nearby.end(), twin), nearby.end());
        KernelConfig nchw = current;  // the NCHW loader has no fragment prefetch
        nchw.params = ChannelsLastNchwKernel{current.as<ChannelsLastNhwcKernel>()};
        nchw.as<ChannelsLastNchwKernel>().fragmentPrefetch = true;
        EXPECT_NE(canImplement(nchw, device, p).find("fragment prefetch needs the channels-last"), std::string::npos);
        return;
    }
    FAIL() << "no channels-last configuration ranked";
}

}  // namespace
}  // namespace vkconv
