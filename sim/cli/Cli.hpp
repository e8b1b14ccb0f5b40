#pragma once
// Entry point of the colocsim command line, separate from main() so tests can drive it in-process.
#include <ostream>
#include <string>
#include <vector>

namespace colocsim {

/// Runs one command (argv without the program name). Returns the exit status: 0 success, 1 runtime
/// error, 2 bad usage or bad input (the message names file:line:col and what was expected).
int run_cli(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

} // namespace colocsim
