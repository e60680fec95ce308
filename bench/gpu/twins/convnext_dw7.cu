// A CUDA twin of the grouped direct kernel (shaders/conv2d_grouped_direct.comp) on ConvNeXt's 7x7
// depthwise layer (N 128, C 96, 56x56, pad 3), so that Nsight Compute, which sees no Vulkan
// dispatch, can read hardware counters of the same algorithm. As the staged tiles with weights as
// uniforms: each workgroup a TILE_H x 64 output tile of one plane; its input tile (halo and a
// one-column shift, so that rows are whole 16-byte vectors) copied into shared memory with 16-byte
// loads; each thread ROWS rows x 4 columns, its window rows read as 16-byte vectors; weights from
// constant memory; 16-byte stores. ROWS 2, TILE_H 8 is the heuristic's pick ("8x64 thread 2x4 k1
// threads 16x4"). It checks a few planes of its NaN-poisoned output against a double reference
// (exit 1 past the fp32 bound, 1e-5). On the GPU machine:
// `bash bench/gpu/check.sh --twin convnext_dw7 ROWS TILE_H` (bench/gpu/README.md); by hand:
//   nvcc -O3 -arch=sm_90 convnext_dw7.cu -o twin && ./twin [ITERATIONS] [ROWS] [TILE_H]
// (RUN in main lists the pairs built.)
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#include "twin_timing.cuh"

constexpr int N = 128, C = 96, H = 56, W = 56, R = 7;
constexpr int ROW_VECS = 18;
// TILE_H x 64 output tiles; ROWS output rows a thread (4 columns each), TILE_H / ROWS rows of 16
// threads a workgroup.
__constant__ float cWeights[C * 52];  // per channel 49 taps padded to 13 vectors

template <int ROWS, int TILE_H>
__global__ void __launch_bounds__(16 * TILE_H / ROWS) depthwise7(const float* __restrict__ in,
                                                                 const float* __restrict__ bias, float* __restrict__ out) {
    constexpr int IN_ROWS = TILE_H + R - 1, TILE_VECS = IN_ROWS * ROW_VECS, TILES = (H + TILE_H - 1) / TILE_H;
    constexpr int THREADS = 16 * TILE_H / ROWS, LOADS = (TILE_VECS + THREADS - 1) / THREADS;
    __shared__ float4 sIn[TILE_VECS];
    const int tid = threadIdx.x, c = blockIdx.z;
    const int image = blockIdx.x / TILES, oh0 = (blockIdx.x % TILES) * TILE_H, ih0 = oh0 - 3;
    const float* plane = in + (size_t(image) * C + c) * H * W;
    float4 v[LOADS];
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
        const int e = tid + i * THREADS, r = e / ROW_VECS, q = e % ROW_VECS;
        const int ih = ih0 + r, iw = -4 + 4 * q;
        const bool inside = e < TILE_VECS && ih >= 0 && ih < H && iw >= 0 && iw < W;
        v[i] = inside ? *reinterpret_cast<const float4*>(plane + ih * W + iw) : make_float4(0, 0, 0, 0);
    }
    const float b = bias[c];
#pragma unroll
    for (int i = 0; i < LOADS; ++i)
        if (tid + i * THREADS < TILE_VECS) sIn[tid + i * THREADS] = v[i];
    __syncthreads();
    const int tx = tid % 16, ty = tid / 16;
    float acc[ROWS][4];
#pragma unroll
    for (int j = 0; j < ROWS; ++j)
#pragma unroll
        for (int q = 0; q < 4; ++q) acc[j][q] = b;
    const float* w = cWeights + c * 52;
#pragma unroll
    for (int a = 0; a < ROWS + R - 1; ++a) {  // window row a feeds output row j through kernel row a - j
        float x[12];
#pragma unroll
        for (int k = 0; k < 3; ++k) {
            const float4 t = sIn[(ty * ROWS + a) * ROW_VECS + tx + k];
            x[4 * k] = t.x, x[4 * k + 1] = t.y, x[4 * k + 2] = t.z, x[4 * k + 3] = t.w;
        }
#pragma unroll
        for (int j = 0; j < ROWS; ++j) {
            const int r = a - j;
            if (r < 0 || r >= R) continue;
#pragma unroll
            for (int s = 0; s < R; ++s)
#pragma unroll
                for (int q = 0; q < 4; ++q) acc[j][q] = fmaf(x[1 + q + s], w[r * R + s], acc[j][q]);
        }
    }
#pragma unroll
    for (int j = 0; j < ROWS; ++j) {
        const int oh = oh0 + ty * ROWS + j, ow = tx * 4;
        if (oh < H && ow < W)
            *reinterpret_cast<float4*>(out + ((size_t(image) * C + c) * H + oh) * W + ow) =
                make_float4(acc[j][0], acc[j][1], acc[j][2], acc[j][3]);
    }
}

template <int ROWS, int TILE_H>
void run(int iterations, const float* dIn, const float* dBias, float* dOut, const std::vector<float>& x,
         const std::vector<float>& w, const std::vector<float>& b);

int main(int argc, char** argv) {
    const int iterations = argc > 1 ? atoi(argv[1]) : 100;
    const int rows = argc > 2 ? atoi(argv[2]) : 2, tileH = argc > 3 ? atoi(argv[3]) : 8;
    const size_t elems = size_t(N) * C * H * W;
    std::vector<float> x(elems), w(C * 52, 0.f), b(C);
    srand(7);
    for (auto& e : x) e = rand() / float(RAND_MAX) * 2 - 1;
    for (int c = 0; c < C; ++c) {
        for (int t = 0; t < 49; ++t) w[c * 52 + t] = rand() / float(RAND_MAX) * 2 - 1;
        b[c] = rand() / float(RAND_MAX) * 2 - 1;
    }
    float *dIn, *dOut, *dBias;
    cudaMalloc(&dIn, elems * 4), cudaMalloc(&dOut, elems * 4), cudaMalloc(&dBias, C * 4);
    cudaMemcpy(dIn, x.data(), elems * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dBias, b.data(), C * 4, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(cWeights, w.data(), C * 52 * 4);
    bool ran = false;
#define RUN(r, t) if (rows == r && tileH == t) run<r, t>(iterations, dIn, dBias, dOut, x, w, b), ran = true;
    RUN(1, 8) RUN(2, 8) RUN(4, 8) RUN(2, 16) RUN(4, 16) RUN(2, 28) RUN(4, 28) RUN(2, 56) RUN(4, 56) RUN(7, 56) RUN(7, 28)
    if (!ran) {
        std::fprintf(stderr, "convnext_dw7: no twin for ROWS %d, TILE_H %d (see RUN)\n", rows, tileH);
        return 1;
    }
    return 0;
}

template <int ROWS, int TILE_H>
void run(int iterations, const float* dIn, const float* dBias, float* dOut, const std::vector<float>& x,
         const std::vector<float>& w, const std::vector<float>& b) {
    const size_t elems = size_t(N) * C * H * W;
    const dim3 grid(N * ((H + TILE_H - 1) / TILE_H), 1, C), block(16 * TILE_H / ROWS);
    cudaMemset(dOut, 0xff, elems * 4);  // NaN: an output the kernel misses fails the check
    const std::vector<float> ms =
        timeLaunches(iterations, [&] { depthwise7<ROWS, TILE_H><<<grid, block>>>(dIn, dBias, dOut); });
    // Check image 0, channel c against a double reference.
    std::vector<float> y(elems);
    cudaMemcpy(y.data(), dOut, elems * 4, cudaMemcpyDeviceToHost);
    double num = 0, den = 0;
    for (int c = 0; c < C; c += 17)
        for (int oh = 0; oh < H; ++oh)
            for (int ow = 0; ow < W; ++ow) {
                double r = b[c];
                for (int i = 0; i < R; ++i)
                    for (int j = 0; j < R; ++j) {
                        const int ih = oh - 3 + i, iw = ow - 3 + j;
                        if (ih >= 0 && ih < H && iw >= 0 && iw < W) r += double(x[(size_t(c) * H + ih) * W + iw]) * w[c * 52 + i * R + j];
                    }
                const double d = y[(size_t(c) * H + oh) * W + ow] - r;
                num += d * d, den += r * r;
            }
    const cudaError_t status = cudaGetLastError();
    const double error = std::sqrt(num / den);
    std::printf("convnext_dw7 twin, %dx64 tiles, thread %dx4: median %.4f ms (min %.4f) over %d runs; rel. error %.2e; %s\n",
                TILE_H, ROWS, ms[ms.size() / 2], ms[0], iterations, error, cudaGetErrorString(status));
    if (!(error <= 1e-5) || status != cudaSuccess) std::exit(1);  // the fp32 path's bound; NaN fails too
}
