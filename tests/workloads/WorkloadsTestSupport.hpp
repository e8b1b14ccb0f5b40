#pragma once
// Shared by the workloads tests: the fixture directory (Catch2 shim and file helpers: tests/CatchCompat.hpp).
#include "tests/CatchCompat.hpp"

#include <string>

namespace colocsim::test {

/// Directory of the workloads fixtures, with a trailing slash.
inline const std::string WORKLOADS_DATA = std::string(COLOCSIM_TEST_DATA) + "/workloads/";

} // namespace colocsim::test
