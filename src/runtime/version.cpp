#include "vkconv/version.hpp"

#ifndef VKCONV_VERSION_STRING
#error "VKCONV_VERSION_STRING is set by CMakeLists.txt"
#endif

namespace vkconv {

const char* version() { return VKCONV_VERSION_STRING; }

}  // namespace vkconv
