// A CUDA twin of the grouped direct kernel (shaders/conv2d_grouped_direct.comp) on the `layers`
// suite's ResNeXt grouped 3x3 (N 128, C = K = 128 in 32 groups of 4 channels, 56x56, pad 1), so
// that Nsight Compute, which sees no Vulkan dispatch, can read hardware counters of the same
// algorithm, and so that nvcc's code for it can be set beside NVIDIA's Vulkan compiler's. As the
// heuristic's pick on the H200 ("8x56 thread 2x4 k4 threads 14x4 from-memory"): each workgroup a
// TILE_H x TILE_W output tile of one image and one group, all 4 of the group's output channels;
// each thread ROWS rows x VEC_W columns of them, its window rows read straight from memory (the
// L1 cache catches the rows its neighbours read too), padding as zeros by bounds checks; the
// group's 144 weights from constant memory (the Vulkan kernel's uniform buffer); bias as the
// accumulators' start; each output stored once. It checks some planes of its NaN-poisoned output
// against a double reference (exit 1 past the fp32 bound, 1e-5). On the GPU machine:
// `bash bench/gpu/check.sh --twin resnext_g4 ROWS VEC_W THREADS_W THREADS_H [WSRC [KT]]`; by hand:
//   nvcc -O3 -arch=sm_90 resnext_g4.cu -o twin && ./twin [ITERATIONS] [ROWS VEC_W THREADS_W THREADS_H [WSRC [KT]]]
// (RUN in main lists the tiles built.)
#include <cuda_runtime.h>

#include "twin_timing.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int N = 128, C = 128, H = 56, W = 56, G = 32, CG = 4, KG = 4, R = 3;
constexpr int GROUP_WEIGHTS = KG * CG * R * R;  // [c][kb][r][s]
__constant__ float cWeights[G * GROUP_WEIGHTS];

// Where the weights come from (WSRC): 0 constant memory, as [c][kb][r][s] (the Vulkan kernel's
// uniform buffer); 1 shared memory, the group's 144 copied in once a workgroup as [c][r][s][kb], so
// that each (c, r, s) is one 16-byte broadcast read of the 4 output channels' weights; 2 the same
// layout read from global memory (the L1 cache); 3 constant weights, and the windows from shared
// memory: the workgroup's input tile of all 4 channels, halo included, copied in once with 16-byte
// loads (rows 16-byte aligned: VEC_W 4 only), one barrier, then each window row 3 16-byte reads.
// KT: output channels a thread computes, 4 (all of its group's) or 2 (the grid's y the half: half
// the accumulators, twice the workgroups, each window read twice).
template <int ROWS, int VEC_W, int THREADS_W, int THREADS_H, int WSRC, int KT>
__global__ void __launch_bounds__(THREADS_W * THREADS_H) grouped3x3(const float* __restrict__ in,
                                                                      const float* __restrict__ bias,
                                                                      const float4* __restrict__ wGlobal,
                                                                      float* __restrict__ out) {
    constexpr int TILE_W = THREADS_W * VEC_W, TILE_H = THREADS_H * ROWS;
    constexpr int TILES_W = (W + TILE_W - 1) / TILE_W, TILES_H = (H + TILE_H - 1) / TILE_H;
    constexpr int IN_H = ROWS + R - 1, IN_W = VEC_W + R - 1;
    const int g = blockIdx.z, image = blockIdx.x / (TILES_W * TILES_H), tile = blockIdx.x % (TILES_W * TILES_H);
    const int tx = threadIdx.x % THREADS_W, ty = threadIdx.x / THREADS_W, k0 = blockIdx.y * KT;
    const int oh0 = (tile / TILES_W) * TILE_H + ty * ROWS, ow0 = (tile % TILES_W) * TILE_W + tx * VEC_W;
    float acc[KT][ROWS][VEC_W];
#pragma unroll
    for (int kb = 0; kb < KT; ++kb)
#pragma unroll
        for (int j = 0; j < ROWS; ++j)
#pragma unroll
            for (int v = 0; v < VEC_W; ++v) acc[kb][j][v] = bias[g * KG + k0 + kb];
    const float* w = cWeights + g * GROUP_WEIGHTS;
    __shared__ float4 sW[WSRC == 1 ? CG * R * R : 1];
    constexpr bool STAGED = WSRC == 3;
    constexpr int ST_ROWS = TILE_H + R - 1, ST_VECS = TILE_W / 4 + 2, ST_ALL = CG * ST_ROWS * ST_VECS;
    constexpr int THREADS = THREADS_W * THREADS_H, ST_LOADS = (ST_ALL + THREADS - 1) / THREADS;
    static_assert(!STAGED || VEC_W == 4, "staged windows read 16-byte vectors: VEC_W 4");
    __shared__ float4 sIn[STAGED ? ST_ALL : 1];
    if (STAGED) {
        const int tileOh0 = (tile / TILES_W) * TILE_H, tileOw0 = (tile % TILES_W) * TILE_W;
        float4 v[ST_LOADS];
#pragma unroll
        for (int l = 0; l < ST_LOADS; ++l) {
            const int i = threadIdx.x + l * THREADS, c = i / (ST_ROWS * ST_VECS), rem = i % (ST_ROWS * ST_VECS);
            const int ih = tileOh0 - 1 + rem / ST_VECS, iw = tileOw0 - 4 + 4 * (rem % ST_VECS);
            v[l] = i < ST_ALL && ih >= 0 && ih < H && iw >= 0 && iw < W
                       ? *reinterpret_cast<const float4*>(in + (size_t(image) * C + g * CG + c) * H * W + ih * W + iw)
                       : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int l = 0; l < ST_LOADS; ++l)
            if (threadIdx.x + l * THREADS < ST_ALL) sIn[threadIdx.x + l * THREADS] = v[l];
        __syncthreads();
    }
    if (WSRC == 1) {
        for (int i = threadIdx.x; i < CG * R * R; i += THREADS_W * THREADS_H) sW[i] = wGlobal[g * CG * R * R + i];
        __syncthreads();
    }
#pragma unroll 1
    for (int c = 0; c < CG; ++c) {
        const float* plane = in + (size_t(image) * C + g * CG + c) * H * W;
#pragma unroll
        for (int a = 0; a < IN_H; ++a) {
            const int ih = oh0 - 1 + a;
            float x[IN_W];
            if (STAGED) {
                const int at = (c * ST_ROWS + ty * ROWS + a) * ST_VECS + tx;
                const float4 v0 = sIn[at], v1 = sIn[at + 1], v2 = sIn[at + 2];
                x[0] = v0.w, x[1] = v1.x, x[2] = v1.y, x[3] = v1.z, x[4] = v1.w, x[5] = v2.x;
            } else {
#pragma unroll
                for (int q = 0; q < IN_W; ++q) {
                    const int iw = ow0 - 1 + q;
                    x[q] = ih >= 0 && ih < H && iw >= 0 && iw < W ? plane[ih * W + iw] : 0.f;
                }
            }
#pragma unroll
            for (int j = 0; j < ROWS; ++j) {
                const int r = a - j;
                if (r < 0 || r >= R) continue;
#pragma unroll
                for (int s = 0; s < R; ++s) {
                    if (WSRC == 0 || WSRC == 3) {
#pragma unroll
                        for (int v = 0; v < VEC_W; ++v)
#pragma unroll
                            for (int kb = 0; kb < KT; ++kb)
                                acc[kb][j][v] = fmaf(x[v + s], w[((c * KG + k0 + kb) * R + r) * R + s], acc[kb][j][v]);
                        continue;
                    }
                    const float4 t = WSRC == 1 ? sW[(c * R + r) * R + s] : wGlobal[((g * CG + c) * R + r) * R + s];
                    const float wk[KG] = {KT == 4 || k0 == 0 ? t.x : t.z, KT == 4 || k0 == 0 ? t.y : t.w, t.z, t.w};
#pragma unroll
                    for (int v = 0; v < VEC_W; ++v)
#pragma unroll
                        for (int kb = 0; kb < KT; ++kb) acc[kb][j][v] = fmaf(x[v + s], wk[kb], acc[kb][j][v]);
                }
            }
        }
    }
#pragma unroll
    for (int kb = 0; kb < KT; ++kb)
#pragma unroll
        for (int j = 0; j < ROWS; ++j) {
            const int oh = oh0 + j;
            if (oh >= H) break;
            float* row = out + ((size_t(image) * C + g * KG + k0 + kb) * H + oh) * W;
#pragma unroll
            for (int v = 0; v < VEC_W; ++v)
                if (ow0 + v < W) row[ow0 + v] = acc[kb][j][v];
        }
}

template <int ROWS, int VEC_W, int THREADS_W, int THREADS_H, int WSRC, int KT>
void run(int iterations, const float* dIn, const float* dBias, const float4* dW, float* dOut, const std::vector<float>& x,
         const std::vector<float>& w, const std::vector<float>& b) {
    constexpr int TILE_W = THREADS_W * VEC_W, TILE_H = THREADS_H * ROWS;
    const size_t elems = size_t(N) * C * H * W;
    const dim3 grid(N * ((W + TILE_W - 1) / TILE_W) * ((H + TILE_H - 1) / TILE_H), KG / KT, G), block(THREADS_W * THREADS_H);
    auto kernel = grouped3x3<ROWS, VEC_W, THREADS_W, THREADS_H, WSRC, KT>;
    cudaMemset(dOut, 0xff, elems * 4);  // NaN: an output the kernel misses fails the check
    const std::vector<float> ms = timeLaunches(iterations, [&] { kernel<<<grid, block>>>(dIn, dBias, dW, dOut); });
    // Check every 13th output channel of images 0 and N-1 against a double reference.
    std::vector<float> y(elems);
    cudaMemcpy(y.data(), dOut, elems * 4, cudaMemcpyDeviceToHost);
    double num = 0, den = 0;
    for (int image : {0, N - 1})
        for (int k = 0; k < C; k += 13) {
            const int g = k / KG, kb = k % KG;
            for (int oh = 0; oh < H; ++oh)
                for (int ow = 0; ow < W; ++ow) {
                    double r = b[k];
                    for (int c = 0; c < CG; ++c)
                        for (int i = 0; i < R; ++i)
                            for (int j = 0; j < R; ++j) {
                                const int ih = oh - 1 + i, iw = ow - 1 + j;
                                if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                                    r += double(x[((size_t(image) * C + g * CG + c) * H + ih) * W + iw]) *
                                         w[g * GROUP_WEIGHTS + ((c * KG + kb) * R + i) * R + j];
                            }
                    const double d = y[((size_t(image) * C + k) * H + oh) * W + ow] - r;
                    num += d * d, den += r * r;
                }
        }
    const cudaError_t status = cudaGetLastError();
    const double error = std::sqrt(num / den);
    const double floorMs = 2.0 * elems * 4 / 4.21e9;  // input and output once at the measured copy speed
    std::printf("resnext_g4 twin, %dx%d tiles, thread %dx%d k%d, threads %dx%d, weights %s: median %.4f ms (min %.4f, "
                "%.2fx the floor) over %d runs; rel. error %.2e; %s\n",
                TILE_H, TILE_W, ROWS, VEC_W, KT, THREADS_W, THREADS_H, WSRC == 0 ? "constant" : WSRC == 1 ? "shared" : WSRC == 2 ? "global" : "constant, windows staged",
                ms[ms.size() / 2], ms[0], ms[ms.size() / 2] / floorMs,
                iterations, error, cudaGetErrorString(status));
    if (!(error <= 1e-5) || status != cudaSuccess) std::exit(1);  // the fp32 path's bound; NaN fails too
}

int main(int argc, char** argv) {
    const int iterations = argc > 1 ? atoi(argv[1]) : 100;
    const int rows = argc > 2 ? atoi(argv[2]) : 2, vecW = argc > 3 ? atoi(argv[3]) : 4;
    const int threadsW = argc > 4 ? atoi(argv[4]) : 14, threadsH = argc > 5 ? atoi(argv[5]) : 4;
    const int wsrc = argc > 6 ? atoi(argv[6]) : 0, kt = argc > 7 ? atoi(argv[7]) : 4;
    const size_t elems = size_t(N) * C * H * W;
    std::vector<float> x(elems), w(G * GROUP_WEIGHTS), b(C);
    srand(7);
    for (auto& e : x) e = rand() / float(RAND_MAX) * 2 - 1;
    for (auto& e : w) e = rand() / float(RAND_MAX) * 2 - 1;
    for (auto& e : b) e = rand() / float(RAND_MAX) * 2 - 1;
    float *dIn, *dOut, *dBias;
    cudaMalloc(&dIn, elems * 4), cudaMalloc(&dOut, elems * 4), cudaMalloc(&dBias, C * 4);
    cudaMemcpy(dIn, x.data(), elems * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dBias, b.data(), C * 4, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(cWeights, w.data(), w.size() * 4);
    // The same weights as [g][c][r][s][kb] for WSRC 1 and 2.
    std::vector<float> wT(w.size());
    for (int g = 0; g < G; ++g)
        for (int c = 0; c < CG; ++c)
            for (int kb = 0; kb < KG; ++kb)
                for (int t = 0; t < R * R; ++t)
                    wT[(((g * CG + c) * R * R) + t) * KG + kb] = w[g * GROUP_WEIGHTS + (c * KG + kb) * R * R + t];
    float4* dW;
    cudaMalloc(&dW, wT.size() * 4);
    cudaMemcpy(dW, wT.data(), wT.size() * 4, cudaMemcpyHostToDevice);
    bool ran = false;
#define RUN(r, v, tw, th, ws, k)                                                             \
    if (rows == r && vecW == v && threadsW == tw && threadsH == th && wsrc == ws && kt == k)      \
        run<r, v, tw, th, ws, k>(iterations, dIn, dBias, dW, dOut, x, w, b), ran = true;
    RUN(2, 4, 14, 4, 0, 4) RUN(2, 4, 14, 8, 0, 4) RUN(4, 4, 14, 4, 0, 4) RUN(2, 8, 7, 8, 0, 4) RUN(7, 4, 14, 4, 0, 4)
    RUN(1, 4, 14, 8, 0, 4) RUN(2, 4, 16, 4, 0, 4)
    RUN(2, 4, 14, 4, 1, 4) RUN(2, 4, 16, 4, 1, 4) RUN(4, 4, 14, 4, 1, 4)
    RUN(2, 4, 14, 4, 2, 4) RUN(2, 4, 16, 4, 2, 4)
    RUN(2, 4, 16, 4, 0, 2) RUN(4, 4, 16, 4, 0, 2) RUN(2, 4, 16, 2, 0, 2) RUN(2, 4, 16, 4, 1, 2)
    RUN(2, 4, 16, 4, 3, 4) RUN(2, 4, 14, 4, 3, 4) RUN(4, 4, 16, 4, 3, 4) RUN(2, 4, 16, 8, 3, 4) RUN(1, 4, 16, 8, 3, 4)
    RUN(2, 4, 16, 2, 3, 4) RUN(4, 4, 14, 4, 3, 4)
    if (!ran) {
        std::fprintf(stderr, "resnext_g4: no twin for thread %dx%d, threads %dx%d, weights %d, k%d (see RUN)\n", rows,
                     vecW, threadsW, threadsH, wsrc, kt);
        return 1;
    }
    return 0;
}
