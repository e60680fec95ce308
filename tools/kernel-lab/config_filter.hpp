// kernel-lab's --filter: which configuration names a filter keeps, on the GPU and offline.
#pragma once

#include <string>

namespace vkconv::lab {

// filter: comma-separated terms that must all match; a term is alternatives separated by '|'.
inline bool matchesFilter(const std::string& text, const std::string& filter) {
    size_t start = 0;
    while (start <= filter.size() && !filter.empty()) {
        size_t end = filter.find(',', start);
        std::string term = filter.substr(start, end == std::string::npos ? std::string::npos : end - start);
        bool any = false;
        size_t a = 0;
        while (true) {
            size_t b = term.find('|', a);
            if (text.find(term.substr(a, b == std::string::npos ? std::string::npos : b - a)) != std::string::npos) any = true;
            if (b == std::string::npos) break;
            a = b + 1;
        }
        if (!any) return false;
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return true;
}

}  // namespace vkconv::lab
