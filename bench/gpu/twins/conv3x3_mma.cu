// A CUDA twin of the channels-last cooperative-matrix kernel (shaders/conv2d_coopmat_nhwc.comp) on
// ResNet-50's 3x3/512 at 7x7 (the `layers` suite's batch 2048, stride 1, pad 1), so that Nsight
// Compute, which sees no Vulkan dispatch, can read hardware counters of the same structure, and so
// that the structure can be set beside the one Vulkan cannot express (asynchronous copies).
//
// The operands as the Vulkan kernel reads them: the input packed as fp16 images in channel slices
// of BK channels ([image][slice][pixel][BK halves], pack_input_nhwc_f16.comp), the weights as a
// [k][n] fp16 matrix in the GEMM's K order: the taps inside each BK-channel slice (TAPS_INNER, as
// the heuristic's pick) or the channels inside each tap (k = tap * C + channel); fp32 accumulation, bias as the accumulators'
// start, fp32 NCHW output written straight from the accumulators. Workgroups of 128x128 tiles on
// 2x2 warps (64x64 warp tiles of mma.m16n8k16 through ldmatrix, as NVIDIA's compiler lowers
// 16x16x16 cooperative matrices), N tile fastest. Variants (the first argument):
//   0  registers: each thread holds the next two K slices' 16-byte words in registers (two
//      sets), stores a slice to one of two shared stages, one barrier a slice (the Vulkan
//      kernel without fragment prefetch), BK 16
//   1  registers + fragment prefetch: as 0, and each warp holds a slice's fragments across the
//      barrier, loading slice t+1's while slice t multiplies (the heuristic's pick), BK 16
//   2  asynchronous copies (cp.async) into a ring of 4 shared stages, no register sets, BK 16
//   3  asynchronous copies into 3 stages of BK 32
// each in the taps-inner K order; 4-7 the same four in the channel-major order.
// It checks 4096 outputs of its NaN-poisoned output against a double reference (exit 1 past
// 1e-3). On the GPU machine: `bash bench/gpu/check.sh --twin conv3x3_mma VARIANT`; by hand:
//   nvcc -O3 -arch=sm_90 conv3x3_mma.cu -o twin && ./twin [ITERATIONS] [VARIANT]
// (one checked launch, 200 to warm up, then ITERATIONS timed, each between events).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "twin_timing.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int NB = 2048, C = 512, H = 7, W = 7, K = 512, HW = H * W;
constexpr int M = NB * HW, KG = 9 * C;
constexpr int BM = 128, BN = 128, THREADS = 128;

#define CHECK(x)                                                                              \
    do {                                                                                      \
        cudaError_t e = (x);                                                                  \
        if (e != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s: %s (line %d)\n", #x, cudaGetErrorString(e), __LINE__);  \
            std::exit(2);                                                                     \
        }                                                                                     \
    } while (0)

__device__ __forceinline__ uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void ldmatrixX4(uint32_t (&r)[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem(p)));
}
__device__ __forceinline__ void ldmatrixX4T(uint32_t (&r)[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem(p)));
}
__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// 16 bytes from global to shared, zero-filled where !inside.
__device__ __forceinline__ void copyAsync(void* dst, const void* src, bool inside) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem(dst)), "l"(src), "r"(inside ? 16 : 0));
}
__device__ __forceinline__ void commitCopies() { asm volatile("cp.async.commit_group;\n"); }
template <int N>
__device__ __forceinline__ void waitCopies() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

template <int BK, int STAGES>
struct Tile {
    static constexpr int BKW = BK / 8, AROW = BKW + 1, BROW = BN / 8 + 1;  // 16-byte words, rows padded by one
    static constexpr int A_WORDS = BM * BKW, B_WORDS = BK * BN / 8;
    static constexpr int APT = A_WORDS / THREADS, BPT = B_WORDS / THREADS;
    static constexpr int SLICES = 9 * C / BK, CS = C / BK;
    static constexpr int STAGE_WORDS = BM * AROW + BK * BROW;
    static constexpr size_t SHARED = size_t(STAGES) * STAGE_WORDS * 16;
};

// The kernel: VARIANT 0/1 register sets (1 with fragment prefetch), 2/3 cp.async.
template <int BK, int STAGES, int VARIANT, bool TAPS_INNER>
__global__ void __launch_bounds__(THREADS) conv3x3(const uint4* __restrict__ in, const uint4* __restrict__ wt,
                                                   const float* __restrict__ bias, float* __restrict__ out) {
    using T = Tile<BK, STAGES>;
    extern __shared__ uint4 shared[];
    auto sA = [&](int stage) { return shared + stage * T::STAGE_WORDS; };
    auto sB = [&](int stage) { return shared + stage * T::STAGE_WORDS + BM * T::AROW; };
    const int nTiles = K / BN, tileM0 = blockIdx.x / nTiles * BM, nTile = blockIdx.x % nTiles;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, warpM = warp % 2, warpN = warp / 2;

    // A's 16-byte word v of a slice: row and word in word-major order, as the Vulkan kernel stores
    // them (each 8 lanes one word of 8 consecutive rows: 8 bank groups).
    auto aRow = [](int v) { return v / (8 * T::BKW) * 8 + v % 8; };
    auto aWord = [](int v) { return v / 8 % T::BKW; };
    int aImg[T::APT], aIh[T::APT], aIw[T::APT];
#pragma unroll
    for (int i = 0; i < T::APT; ++i) {
        const int v = tid + i * THREADS, m = tileM0 + aRow(v), pix = m % HW;
        aImg[i] = m / HW, aIh[i] = pix / W - 1, aIw[i] = pix % W - 1;
    }
    // A word i of slice t: where it is in memory and whether it is inside the image.
    auto aSource = [&](int t, int i, bool& inside) {
        const int tap = TAPS_INNER ? t % 9 : t / T::CS, cs = TAPS_INNER ? t / 9 : t % T::CS, v = tid + i * THREADS;
        const int ih = aIh[i] + tap / 3, iw = aIw[i] + tap % 3;
        inside = unsigned(ih) < unsigned(H) && unsigned(iw) < unsigned(W);
        return in + ((size_t(aImg[i]) * T::CS + cs) * HW + (inside ? ih * W + iw : 0)) * T::BKW + aWord(v);
    };
    auto bSource = [&](int t, int i) {
        const int v = tid + i * THREADS, k = t * BK + v / (BN / 8);
        return wt + (size_t(k) * K + nTile * BN) / 8 + v % (BN / 8);
    };
    auto aDest = [&](int stage, int i) { const int v = tid + i * THREADS; return sA(stage) + aRow(v) * T::AROW + aWord(v); };
    auto bDest = [&](int stage, int i) { const int v = tid + i * THREADS; return sB(stage) + v / (BN / 8) * T::BROW + v % (BN / 8); };

    float acc[4][8][4];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        const int n = nTile * BN + warpN * 64 + j * 8 + lane % 4 * 2;
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[i][j][0] = acc[i][j][2] = bias[n], acc[i][j][1] = acc[i][j][3] = bias[n + 1];
    }
    // Fragments of k step kk of a stage: A 4 of m16 x k16, B 8 of k16 x n8 (two per ldmatrix).
    // Fragment i of the warp tile's A (m16 x k16), and pair j of its B (k16 x two n8), at K offset
    // kk of a stage.
    auto loadFragA = [&](uint32_t (&a)[4], int stage, int kk, int i) {
        ldmatrixX4(a, sA(stage) + (warpM * 64 + i * 16 + lane % 16) * T::AROW + kk / 8 + lane / 16);
    };
    auto loadFragB = [&](uint32_t (&b)[4], int stage, int kk, int j) {
        ldmatrixX4T(b, sB(stage) + (kk + lane % 16) * T::BROW + (warpN * 64 + j * 16) / 8 + lane / 16);
    };
    auto loadFrags = [&](int stage, int kk, uint32_t (&a)[4][4], uint32_t (&b)[4][4]) {
#pragma unroll
        for (int i = 0; i < 4; ++i) loadFragA(a[i], stage, kk, i);
#pragma unroll
        for (int j = 0; j < 4; ++j) loadFragB(b[j], stage, kk, j);
    };
    // Fragment pair (i, j)'s two multiply-adds.
    auto multiplyPair = [&](const uint32_t (&a)[4], const uint32_t (&b)[4], int i, int j) {
        mma(acc[i][2 * j], a, b[0], b[1]);
        mma(acc[i][2 * j + 1], a, b[2], b[3]);
    };
    auto multiply = [&](const uint32_t (&a)[4][4], const uint32_t (&b)[4][4]) {
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) multiplyPair(a[i], b[j], i, j);
    };
    // Fragment prefetch as the Vulkan kernel does it (multiplyHeldSlice): each held fragment is
    // reloaded from the next stage as soon as its last multiply is issued.
    auto multiplyHeld = [&](uint32_t (&a)[4][4], uint32_t (&b)[4][4], bool next, int nextStage) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
#pragma unroll
            for (int j = 0; j < 4; ++j) multiplyPair(a[i], b[j], i, j);
            if (next) loadFragA(a[i], nextStage, 0, i);
        }
        if (next)
#pragma unroll
            for (int j = 0; j < 4; ++j) loadFragB(b[j], nextStage, 0, j);
    };

    if constexpr (VARIANT <= 1) {
        static_assert(STAGES == 2 && BK == 16, "the register-set variants mirror the Vulkan kernel's BK 16");
        uint4 a0[T::APT], a1[T::APT], b0[T::BPT], b1[T::BPT];
        auto load = [&](int t, uint4 (&a)[T::APT], uint4 (&b)[T::BPT]) {
#pragma unroll
            for (int i = 0; i < T::APT; ++i) {
                bool inside;
                const uint4* p = aSource(t, i, inside);
                a[i] = inside ? __ldg(p) : make_uint4(0, 0, 0, 0);
            }
#pragma unroll
            for (int i = 0; i < T::BPT; ++i) b[i] = __ldg(bSource(t, i));
        };
        auto store = [&](int stage, const uint4 (&a)[T::APT], const uint4 (&b)[T::BPT]) {
#pragma unroll
            for (int i = 0; i < T::APT; ++i) *aDest(stage, i) = a[i];
#pragma unroll
            for (int i = 0; i < T::BPT; ++i) *bDest(stage, i) = b[i];
        };
        // Slice s into stage s % 2, a barrier, then the set's loads of slice s + 2.
        auto advance = [&](int s, uint4 (&a)[T::APT], uint4 (&b)[T::BPT]) {
            if (s < T::SLICES) store(s % 2, a, b);
            __syncthreads();
            if (s + 2 < T::SLICES) load(s + 2, a, b);
        };
        load(0, a0, b0);
        load(1, a1, b1);
        store(0, a0, b0);
        __syncthreads();
        load(2, a0, b0);
        uint32_t fa[4][4], fb[4][4];
        if constexpr (VARIANT == 1) {
            loadFrags(0, 0, fa, fb);
            advance(1, a1, b1);
        }
        for (int t = 0; t < T::SLICES; t += 2) {
            if constexpr (VARIANT == 1) {
                multiplyHeld(fa, fb, t + 1 < T::SLICES, 1);
                advance(t + 2, a0, b0);
                if (t + 1 >= T::SLICES) break;
                multiplyHeld(fa, fb, t + 2 < T::SLICES, 0);
                advance(t + 3, a1, b1);
            } else {
                loadFrags(0, 0, fa, fb);
                multiply(fa, fb);
                advance(t + 1, a1, b1);
                if (t + 1 >= T::SLICES) break;
                loadFrags(1, 0, fa, fb);
                multiply(fa, fb);
                advance(t + 2, a0, b0);
            }
        }
    } else {
        auto issue = [&](int t) {
            const int stage = t % STAGES;
#pragma unroll
            for (int i = 0; i < T::APT; ++i) {
                bool inside;
                const uint4* p = aSource(t, i, inside);
                copyAsync(aDest(stage, i), p, inside);
            }
#pragma unroll
            for (int i = 0; i < T::BPT; ++i) copyAsync(bDest(stage, i), bSource(t, i), true);
        };
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            issue(s);
            commitCopies();
        }
        for (int t = 0; t < T::SLICES; ++t) {
            waitCopies<STAGES - 2>();  // slice t is in
            __syncthreads();           // ... for every thread, and slice t - 1's stage is free
            if (t + STAGES - 1 < T::SLICES) issue(t + STAGES - 1);
            commitCopies();
#pragma unroll
            for (int kk = 0; kk < BK; kk += 16) {
                uint32_t fa[4][4], fb[4][4];
                loadFrags(t % STAGES, kk, fa, fb);
                multiply(fa, fb);
            }
        }
    }
    // Straight to the NCHW output: accumulator (i, j) holds rows g and g + 8, columns 2t, 2t + 1.
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int m = tileM0 + warpM * 64 + i * 16 + lane / 4 + h * 8, image = m / HW, pix = m % HW;
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                const int n = nTile * BN + warpN * 64 + j * 8 + lane % 4 * 2;
                out[(size_t(image) * K + n) * HW + pix] = acc[i][j][2 * h];
                out[(size_t(image) * K + n + 1) * HW + pix] = acc[i][j][2 * h + 1];
            }
        }
}

template <int BK, int STAGES, int VARIANT, bool TAPS_INNER>
int run(int iterations) {
    using T = Tile<BK, STAGES>;
    // Random fp16 input and weights (uniform in [-1, 1]), packed as the kernel reads them.
    std::vector<__half> x(size_t(NB) * C * HW), w(size_t(KG) * K);
    std::vector<float> bias(K);
    uint64_t state = 0x9E3779B97F4A7C15ull;
    auto next = [&] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return float(double(state >> 11) / double(1ull << 53) * 2.0 - 1.0);
    };
    std::vector<__half> packed(x.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = __float2half(next());
    for (auto& v : w) v = __float2half(next() * 0.05f);
    for (auto& v : bias) v = next();
    // B in the kernel's K order: row t * BK + c of K slice t holds channel c of its slice and tap.
    std::vector<__half> wPacked(w.size());
    for (int t = 0; t < T::SLICES; ++t) {
        const int tap = TAPS_INNER ? t % 9 : t / T::CS, cs = TAPS_INNER ? t / 9 : t % T::CS;
        for (int c = 0; c < BK; ++c)
            std::copy_n(&w[size_t(tap * C + cs * BK + c) * K], K, &wPacked[size_t(t * BK + c) * K]);
    }
    for (int n = 0; n < NB; ++n)  // x is [n][c][pixel]; packed [n][c / BK][pixel][c % BK]
        for (int c = 0; c < C; ++c)
            for (int p = 0; p < HW; ++p)
                packed[((size_t(n) * T::CS + c / BK) * HW + p) * BK + c % BK] = x[(size_t(n) * C + c) * HW + p];
    __half *dIn, *dW;
    float *dBias, *dOut;
    const size_t outFloats = size_t(NB) * K * HW;
    CHECK(cudaMalloc(&dIn, packed.size() * 2));
    CHECK(cudaMalloc(&dW, w.size() * 2));
    CHECK(cudaMalloc(&dBias, K * 4));
    CHECK(cudaMalloc(&dOut, outFloats * 4));
    CHECK(cudaMemcpy(dIn, packed.data(), packed.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dW, wPacked.data(), wPacked.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dBias, bias.data(), K * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dOut, 0xFF, outFloats * 4));  // NaN
    auto kernel = conv3x3<BK, STAGES, VARIANT, TAPS_INNER>;
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(T::SHARED)));
    const int blocks = (M / BM) * (K / BN);
    auto launch = [&] {
        kernel<<<blocks, THREADS, T::SHARED>>>(reinterpret_cast<const uint4*>(dIn), reinterpret_cast<const uint4*>(dW),
                                               dBias, dOut);
    };
    launch();
    CHECK(cudaDeviceSynchronize());
    // The check: 4096 outputs against a double reference on the same fp16 values.
    std::vector<float> got(outFloats);
    CHECK(cudaMemcpy(got.data(), dOut, outFloats * 4, cudaMemcpyDeviceToHost));
    double err = 0, ref2 = 0;
    for (int s = 0; s < 4096; ++s) {
        const size_t o = size_t(std::fabs(next()) * double(outFloats)) % outFloats;
        const int n = int(o / (size_t(K) * HW)), k = int(o / HW % K), p = int(o % HW), oh = p / W, ow = p % W;
        double ref = bias[k];
        for (int c = 0; c < C; ++c)
            for (int tap = 0; tap < 9; ++tap) {
                const int ih = oh + tap / 3 - 1, iw = ow + tap % 3 - 1;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                ref += double(__half2float(x[(size_t(n) * C + c) * HW + ih * W + iw])) *
                       double(__half2float(w[size_t(tap * C + c) * K + k]));
            }
        err += (got[o] - ref) * (got[o] - ref), ref2 += ref * ref;
    }
    const double rel = std::sqrt(err / ref2);
    const std::vector<float> ms = timeLaunches(iterations, launch);
    const double median = ms[ms.size() / 2], flops = 2.0 * M * double(K) * KG;
    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, kernel));
    std::printf("variant %d (BK %d, %d stages, %s): %.4f ms (min %.4f), %.1f TFLOP/s, %d registers, %zu bytes shared, "
                "rel err %.2e %s\n",
                VARIANT, BK, STAGES, TAPS_INNER ? "taps inside channel slices" : "channels inside taps", median, ms[0], flops / median * 1e-9, attr.numRegs, T::SHARED, rel,
                rel < 1e-3 ? "PASS" : "FAIL");
    CHECK(cudaFree(dIn));
    CHECK(cudaFree(dW));
    CHECK(cudaFree(dBias));
    CHECK(cudaFree(dOut));
    return rel < 1e-3 ? 0 : 1;
}

int main(int argc, char** argv) {
    const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 100, variant = argc > 2 ? std::atoi(argv[2]) : 1;
    switch (variant) {
        case 0: return run<16, 2, 0, true>(iterations);
        case 1: return run<16, 2, 1, true>(iterations);
        case 2: return run<16, 4, 2, true>(iterations);
        case 3: return run<32, 3, 3, true>(iterations);
        case 4: return run<16, 2, 0, false>(iterations);
        case 5: return run<16, 2, 1, false>(iterations);
        case 6: return run<16, 4, 2, false>(iterations);
        case 7: return run<32, 3, 3, false>(iterations);
        default: std::fprintf(stderr, "variant 0-7\n"); return 2;
    }
}
