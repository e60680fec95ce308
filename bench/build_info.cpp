// The vkconv commit the benchmark was built from, recorded in every JSON result. The header is
// regenerated on every build (bench/GitCommit.cmake), so a rebuild after a commit is never stale.
#include "report.hpp"
#include "vkconv_git_commit.hpp"

namespace vkconv::bench {

const char* gitCommit() { return VKCONV_GIT_COMMIT; }

}  // namespace vkconv::bench
