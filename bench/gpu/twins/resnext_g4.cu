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
// `bash bench/gpu/check.sh --twin resnext_g4 ROWS VEC_W THREADS_W THREADS_H`; by hand:
//   nvcc -O3 -arch=sm_90 resnext_g4.cu -o twin && ./twin [ITERATIONS] [ROWS VEC_W THREADS_W THREADS_H]
// (RUN in main lists the tiles built.)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int N = 128, C = 128, H = 56, W = 56, G = 32, CG = 4, KG = 4, R = 3;
constexpr int GROUP_WEIGHTS = KG * CG * R * R;  // [c][kb][r][s]
__constant__ float cWeights[G * GROUP_WEIGHTS];

template <int ROWS, int VEC_W, int THREADS_W, int THREADS_H>
__global__ void __launch_bounds__(THREADS_W * THREADS_H) grouped3x3(const float* __restrict__ in,
                                                                      const float* __restrict__ bias,
                                                                      float* __restrict__ out) {
    constexpr int TILE_W = THREADS_W * VEC_W, TILE_H = THREADS_H * ROWS;
    constexpr int TILES_W = (W + TILE_W - 1) / TILE_W, TILES_H = (H + TILE_H - 1) / TILE_H;
    constexpr int IN_H = ROWS + R - 1, IN_W = VEC_W + R - 1;
    const int g = blockIdx.z, image = blockIdx.x / (TILES_W * TILES_H), tile = blockIdx.x % (TILES_W * TILES_H);
    const int tx = threadIdx.x % THREADS_W, ty = threadIdx.x / THREADS_W;
    const int oh0 = (tile / TILES_W) * TILE_H + ty * ROWS, ow0 = (tile % TILES_W) * TILE_W + tx * VEC_W;
    float acc[KG][ROWS][VEC_W];
#pragma unroll
    for (int kb = 0; kb < KG; ++kb)
#pragma unroll
        for (int j = 0; j < ROWS; ++j)
#pragma unroll
            for (int v = 0; v < VEC_W; ++v) acc[kb][j][v] = bias[g * KG + kb];
    const float* w = cWeights + g * GROUP_WEIGHTS;
#pragma unroll 1
    for (int c = 0; c < CG; ++c) {
        const float* plane = in + (size_t(image) * C + g * CG + c) * H * W;
#pragma unroll
        for (int a = 0; a < IN_H; ++a) {
            const int ih = oh0 - 1 + a;
            float x[IN_W];
#pragma unroll
            for (int q = 0; q < IN_W; ++q) {
                const int iw = ow0 - 1 + q;
                x[q] = ih >= 0 && ih < H && iw >= 0 && iw < W ? plane[ih * W + iw] : 0.f;
            }
#pragma unroll
            for (int j = 0; j < ROWS; ++j) {
                const int r = a - j;
                if (r < 0 || r >= R) continue;
#pragma unroll
                for (int s = 0; s < R; ++s)
#pragma unroll
                    for (int v = 0; v < VEC_W; ++v)
#pragma unroll
                        for (int kb = 0; kb < KG; ++kb)
                            acc[kb][j][v] = fmaf(x[v + s], w[((c * KG + kb) * R + r) * R + s], acc[kb][j][v]);
            }
        }
    }
#pragma unroll
    for (int kb = 0; kb < KG; ++kb)
#pragma unroll
        for (int j = 0; j < ROWS; ++j) {
            const int oh = oh0 + j;
            if (oh >= H) break;
            float* row = out + ((size_t(image) * C + g * KG + kb) * H + oh) * W;
#pragma unroll
            for (int v = 0; v < VEC_W; ++v)
                if (ow0 + v < W) row[ow0 + v] = acc[kb][j][v];
        }
}

template <int ROWS, int VEC_W, int THREADS_W, int THREADS_H>
void run(int iterations, const float* dIn, const float* dBias, float* dOut, const std::vector<float>& x,
         const std::vector<float>& w, const std::vector<float>& b) {
    constexpr int TILE_W = THREADS_W * VEC_W, TILE_H = THREADS_H * ROWS;
    const size_t elems = size_t(N) * C * H * W;
    const dim3 grid(N * ((W + TILE_W - 1) / TILE_W) * ((H + TILE_H - 1) / TILE_H), 1, G), block(THREADS_W * THREADS_H);
    auto kernel = grouped3x3<ROWS, VEC_W, THREADS_W, THREADS_H>;
    cudaMemset(dOut, 0xff, elems * 4);  // NaN: an output the kernel misses fails the check
    for (int i = 0; i < 200; ++i) kernel<<<grid, block>>>(dIn, dBias, dOut);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    std::vector<float> ms;
    for (int i = 0; i < iterations; ++i) {
        cudaEventRecord(e0);
        kernel<<<grid, block>>>(dIn, dBias, dOut);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float t;
        cudaEventElapsedTime(&t, e0, e1);
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
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
    std::printf("resnext_g4 twin, %dx%d tiles, thread %dx%d k4, threads %dx%d: median %.4f ms (min %.4f, "
                "%.2fx the floor) over %d runs; rel. error %.2e; %s\n",
                TILE_H, TILE_W, ROWS, VEC_W, THREADS_W, THREADS_H, ms[ms.size() / 2], ms[0], ms[ms.size() / 2] / floorMs,
                iterations, error, cudaGetErrorString(status));
    if (!(error <= 1e-5) || status != cudaSuccess) std::exit(1);  // the fp32 path's bound; NaN fails too
}

int main(int argc, char** argv) {
    const int iterations = argc > 1 ? atoi(argv[1]) : 100;
    const int rows = argc > 2 ? atoi(argv[2]) : 2, vecW = argc > 3 ? atoi(argv[3]) : 4;
    const int threadsW = argc > 4 ? atoi(argv[4]) : 14, threadsH = argc > 5 ? atoi(argv[5]) : 4;
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
    bool ran = false;
#define RUN(r, v, tw, th)                                                      \
    if (rows == r && vecW == v && threadsW == tw && threadsH == th)           \
        run<r, v, tw, th>(iterations, dIn, dBias, dOut, x, w, b), ran = true;
    RUN(2, 4, 14, 4) RUN(2, 4, 14, 8) RUN(2, 4, 14, 16) RUN(4, 4, 14, 4) RUN(4, 4, 14, 8) RUN(1, 4, 14, 8)
    RUN(2, 8, 7, 8) RUN(4, 8, 7, 8) RUN(2, 2, 28, 4) RUN(4, 2, 28, 4) RUN(7, 4, 14, 4) RUN(2, 4, 16, 4)
    if (!ran) {
        std::fprintf(stderr, "resnext_g4: no twin for thread %dx%d, threads %dx%d (see RUN)\n", rows, vecW, threadsW,
                     threadsH);
        return 1;
    }
    return 0;
}
