// vkconv::Error as Python exceptions: vkconv.Error, with a `kind` attribute, and for bad arguments
// vkconv.ArgumentError, which is also a ValueError so that `except ValueError` catches it as
// NumPy and PyTorch users expect.
#include <Python.h>

#include "bindings.hpp"
#include "vkconv/error.hpp"

namespace vkconv::python {

namespace {

// The two exception types, handed to the translator as its payload. They live as long as the
// process: the module holds them too, and CPython never unloads extension modules.
struct ErrorTypes {
    PyObject* error = nullptr;
    PyObject* argumentError = nullptr;
};

const char* kindName(Error::Kind kind) {
    switch (kind) {
        case Error::Kind::InvalidArgument: return "invalid_argument";
        case Error::Kind::Unsupported: return "unsupported";
        case Error::Kind::Vulkan: return "vulkan";
        case Error::Kind::Io: return "io";
        case Error::Kind::Internal: return "internal";
    }
    return "internal";
}

// Raises `e` as the matching Python exception, its `kind` set on the instance.
void raise(const ErrorTypes& types, const Error& e) {
    PyObject* type = e.kind() == Error::Kind::InvalidArgument ? types.argumentError : types.error;
    nb::object instance = nb::steal(PyObject_CallFunction(type, "s", e.what()));
    if (!instance.is_valid()) return;  // the call set its own exception
    nb::str kind(kindName(e.kind()));
    if (PyObject_SetAttrString(instance.ptr(), "kind", kind.ptr()) != 0) return;
    PyErr_SetObject(type, instance.ptr());
}

constexpr const char* kErrorDoc =
    "Every failure vkconv reports. The message names the field and the value (for example\n"
    "\"groups = 3: ...\"). `kind` says what failed:\n\n"
    "- \"invalid_argument\": a value vkconv rejects (raised as ArgumentError, a ValueError);\n"
    "- \"unsupported\": valid, but the device or path cannot run it (names the limit);\n"
    "- \"vulkan\": a Vulkan call failed (names the call and the VkResult);\n"
    "- \"io\": a cache file could not be read or written;\n"
    "- \"internal\": a broken invariant inside vkconv (a bug).";

constexpr const char* kArgumentErrorDoc =
    "A bad argument: the message names the field and the value. A subclass of both vkconv.Error\n"
    "(kind \"invalid_argument\") and ValueError.";

}  // namespace

void bindErrors(nb::module_& m) {
    auto* types = new ErrorTypes;  // see ErrorTypes: process lifetime, never freed
    types->error = PyErr_NewExceptionWithDoc("vkconv.Error", kErrorDoc, PyExc_Exception, nullptr);
    if (!types->error) throw nb::python_error();
    nb::object bases = nb::make_tuple(nb::handle(types->error), nb::handle(PyExc_ValueError));
    types->argumentError =
        PyErr_NewExceptionWithDoc("vkconv.ArgumentError", kArgumentErrorDoc, bases.ptr(), nullptr);
    if (!types->argumentError) throw nb::python_error();
    // Class-level defaults, so that instances raised from Python code have a kind as well.
    nb::handle(types->error).attr("kind") = nb::none();
    nb::handle(types->argumentError).attr("kind") = nb::str("invalid_argument");
    m.attr("Error") = nb::borrow(types->error);
    m.attr("ArgumentError") = nb::borrow(types->argumentError);

    nb::register_exception_translator(
        [](const std::exception_ptr& p, void* payload) {
            try {
                std::rethrow_exception(p);
            } catch (const Error& e) {
                raise(*static_cast<const ErrorTypes*>(payload), e);
            }
        },
        types);
}

}  // namespace vkconv::python
