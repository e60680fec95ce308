// vkconv's version (CMake's project version), as the tuning cache records it with each entry.
#pragma once

namespace vkconv {

const char* version();  // e.g. "0.1.0"

}  // namespace vkconv
