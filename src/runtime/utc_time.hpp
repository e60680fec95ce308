// The current time in UTC as ISO 8601 ("2026-11-24T23:59:00Z"): the date stamp of tuning-cache
// entries and of vkconv-bench's results, one format for both.
#pragma once

#include <string>

namespace vkconv::detail {

std::string utcTimestamp();

}  // namespace vkconv::detail
