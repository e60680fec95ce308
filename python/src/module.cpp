// The Python module `vkconv`: conv2d on any Vulkan GPU from NumPy (and DLPack) arrays.
#include "bindings.hpp"

NB_MODULE(vkconv, m) {
    m.doc() =
        "vkconv: 2-D convolution (what torch.nn.functional.conv2d computes) on any Vulkan 1.3 GPU.\n\n"
        "conv2d(x, w, b, ...) convolves NumPy arrays (or any CPU array that speaks DLPack or the\n"
        "buffer protocol) and returns a new float32 NumPy array. Conv2d(ctx, w, b, ...) is the planned\n"
        "form for repeated calls: it keeps the weights and pipelines on the device. devices() lists\n"
        "the Vulkan devices, Context picks one, and the tuning functions (rank_configs, TuningCache,\n"
        "decide_acceptance, ...) are what `vkconv sweep` is built from. Every failure raises\n"
        "vkconv.Error (bad arguments: vkconv.ArgumentError, also a ValueError).";
    vkconv::python::bindErrors(m);
    vkconv::python::bindDevices(m);
    vkconv::python::bindTuning(m);
    vkconv::python::bindConv2d(m);
    vkconv::python::bindDevice(m);
    vkconv::python::bindReference(m);
    vkconv::python::bindBatchNorm(m);
}
