// vkconv's one error type. Every failure the library reports (a bad argument, a device that
// cannot run a problem, a Vulkan call that failed) is a vkconv::Error.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace vkconv {

class Error : public std::runtime_error {
public:
    enum class Kind {
        InvalidArgument,  // the caller passed a value the library rejects (names field and value)
        Unsupported,      // valid, but this device or path cannot run it (says which limit)
        Vulkan,           // a Vulkan call failed (names the call and the VkResult)
        Io,               // a file could not be read or written
        Internal,         // a broken invariant inside vkconv: a bug
    };

    Error(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    Kind kind() const noexcept { return kind_; }

private:
    Kind kind_;
};

// Builds the message "FIELD = VALUE: WHY" for an InvalidArgument error.
template <typename T>
Error invalidArgument(const std::string& field, const T& value, const std::string& why) {
    std::ostringstream s;
    s << field << " = " << value << ": " << why;
    return Error(Error::Kind::InvalidArgument, s.str());
}

}  // namespace vkconv
