// The parts of the Python module `vkconv`, each binding one concept of the C++ API. module.cpp
// calls them in order (errors first: every later part raises through it).
#pragma once

#include <nanobind/nanobind.h>

namespace vkconv::python {

namespace nb = nanobind;

void bindErrors(nb::module_& m);   // errors.cpp: vkconv.Error, vkconv.ArgumentError
void bindDevices(nb::module_& m);  // devices.cpp: devices(), DeviceInfo, Context, profiles()
void bindTuning(nb::module_& m);   // tuning.cpp: ConvProblem, KernelConfig, the tuning API
void bindConv2d(nb::module_& m);   // conv2d.cpp: conv2d(), Conv2d
void bindDevice(nb::module_& m);   // device.cpp: Tensor (device memory), Sequence
void bindReference(nb::module_& m);  // reference.cpp: reference_conv2d(), relative_error()
void bindBatchNorm(nb::module_& m);  // batch_norm.cpp: fold_batchnorm()

}  // namespace vkconv::python
