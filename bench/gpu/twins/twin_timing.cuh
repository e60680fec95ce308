// The CUDA twins' timing (bench/gpu/twins/*.cu): 200 launches to warm up the clocks, then
// `iterations` launches, each between two events. Nsight Compute's one profiled launch comes
// after the warm-up (check.sh's --launch-skip). Returns the times sorted: [size / 2] is the
// median, [0] the fastest. Exits on a CUDA error.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

inline void twinCheck(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
}

template <class Launch>
std::vector<float> timeLaunches(int iterations, Launch launch) {
    for (int i = 0; i < 200; ++i) launch();
    cudaEvent_t e0, e1;
    twinCheck(cudaEventCreate(&e0), "cudaEventCreate");
    twinCheck(cudaEventCreate(&e1), "cudaEventCreate");
    std::vector<float> ms(iterations);
    for (int i = 0; i < iterations; ++i) {
        twinCheck(cudaEventRecord(e0), "cudaEventRecord");
        launch();
        twinCheck(cudaEventRecord(e1), "cudaEventRecord");
        twinCheck(cudaEventSynchronize(e1), "cudaEventSynchronize");
        twinCheck(cudaEventElapsedTime(&ms[i], e0, e1), "cudaEventElapsedTime");
    }
    twinCheck(cudaEventDestroy(e0), "cudaEventDestroy");
    twinCheck(cudaEventDestroy(e1), "cudaEventDestroy");
    std::sort(ms.begin(), ms.end());
    return ms;
}
