// Parsing the JSON files vkconv reads (tuning cache, device descriptions, configurations, the
// benchmark's shapes) with a bound on their size and nesting depth. nlohmann-json parses
// iteratively, but copying, dumping and destroying a value recurse once per level: a 200 KB file
// of nested arrays 100,000 deep overflows the stack. vkconv's own formats nest at most a few
// levels, so anything deeper than kMaxJsonDepth is refused before it is parsed.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "vkconv/error.hpp"

namespace vkconv::detail {

constexpr int kMaxJsonDepth = 32;

// The size and nesting limits of one kind of file.
struct JsonLimits {
    size_t maxBytes;
    int maxDepth = kMaxJsonDepth;
};

// Limits of the files vkconv reads. Generous for what each holds (a tuning cache of 30,000
// entries is about 40 MB), small enough that reading one cannot exhaust memory.
constexpr JsonLimits kTuningCacheLimits{64u << 20};
constexpr JsonLimits kDeviceJsonLimits{4u << 20};
constexpr JsonLimits kConfigJsonLimits{64u << 10};
constexpr JsonLimits kShapesJsonLimits{4u << 20};

// Parses `text` as JSON. Throws vkconv::Error of `kind` ("WHAT: ..." naming the limit or the
// parse error and its offset) when the text is larger than limits.maxBytes, nests deeper than
// limits.maxDepth, or is not JSON.
nlohmann::json parseJson(const std::string& text, const std::string& what, const JsonLimits& limits,
                         Error::Kind kind = Error::Kind::Io);

// The text of the JSON file `path` (a `what`, for messages: "shapes file"), at most
// limits.maxBytes. Throws vkconv::Error(Io) "cannot open WHAT PATH" or "WHAT PATH is larger than
// the N bytes vkconv reads".
std::string readJsonFile(const std::string& path, const std::string& what, const JsonLimits& limits);

// A value as compact JSON for a message, cut to at most `maxChars` characters ("..." marks a cut).
std::string jsonExcerpt(const nlohmann::json& value, size_t maxChars = 80);

}  // namespace vkconv::detail
