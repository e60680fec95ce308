// The Python side of a Context: the C++ Context (shared: every Conv2d made from it keeps the
// device alive) and the options it was made with.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "vkconv/context.hpp"

namespace vkconv::python {

namespace nb = nanobind;

struct PyContext {
    Context context;
    std::string cacheDir;  // as given ("" = the default folder)
    std::string profile;   // "" = none
};

// vkconv.default_context(): made on first use (the first GPU, no profile) and kept in the module
// as `_default_context`, so that it lives exactly as long as the module.
nb::object defaultContext();

}  // namespace vkconv::python
