#include "runtime/json_limits.hpp"

#include "runtime/cache_files.hpp"

namespace vkconv::detail {

namespace {

// The deepest nesting of arrays and objects in `text`, stopping at the first level past `limit`
// (returns that level); brackets inside strings do not count.
int nestingDepth(const std::string& text, int limit) {
    int depth = 0, deepest = 0;
    bool inString = false, escaped = false;
    for (const char c : text) {
        if (inString) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > deepest) deepest = depth;
            if (deepest > limit) return deepest;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

}  // namespace

nlohmann::json parseJson(const std::string& text, const std::string& what, const JsonLimits& limits,
                         Error::Kind kind) {
    if (text.size() > limits.maxBytes)
        throw Error(kind, what + ": " + std::to_string(text.size()) + " bytes, more than the " +
                              std::to_string(limits.maxBytes) + " vkconv reads");
    if (nestingDepth(text, limits.maxDepth) > limits.maxDepth)
        throw Error(kind, what + ": arrays or objects nested more than " + std::to_string(limits.maxDepth) +
                              " deep, deeper than any vkconv file");
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        // The parser quotes the bytes it last read: a file's arbitrary bytes must not reach a
        // terminal or a log as they are.
        std::string message;
        for (const unsigned char c : std::string(e.what())) {
            if (c >= 0x20 && c < 0x7f) {
                message += char(c);
            } else {
                static const char* hex = "0123456789abcdef";
                message += "\\x";
                message += hex[c >> 4];
                message += hex[c & 15];
            }
        }
        throw Error(kind, what + ": not valid JSON (" + message + ")");
    }
}

std::string readJsonFile(const std::string& path, const std::string& what, const JsonLimits& limits) {
    std::string text;
    switch (readFileAtMost(path, text, limits.maxBytes)) {
        case FileRead::Absent: throw Error(Error::Kind::Io, "cannot open " + what + " " + path);
        case FileRead::TooLarge:
            throw Error(Error::Kind::Io, what + " " + path + " is larger than the " + std::to_string(limits.maxBytes) +
                                             " bytes vkconv reads");
        case FileRead::Ok: break;
    }
    return text;
}

std::string jsonExcerpt(const nlohmann::json& value, size_t maxChars) {
    // Values reach here only after parseJson (bounded depth), so dump() cannot recurse deeply;
    // replace: invalid UTF-8 in a string must not turn a message into an exception.
    std::string s = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (s.size() > maxChars) s = s.substr(0, maxChars > 3 ? maxChars - 3 : 0) + "...";
    return s;
}

}  // namespace vkconv::detail
