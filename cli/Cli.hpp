#pragma once
// Entry point of the colocsim command line, separate from main() so tests can drive it in-process.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include <sys/types.h>

namespace colocsim {

/// Runs one command (argv without the program name). Returns the exit status: 0 success, 1 runtime
/// error, 2 bad usage or bad input (the message names file:line:col and what was expected).
int run_cli(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

/// The colocsim executable to run (this process's own binary; COLOCSIM_EXE overrides it for callers that
/// embed the CLI in another program, such as the in-process tests).
std::string self_exe();

/// Starts `exe args...` in the background, stdin from /dev/null, stdout and stderr to `log` (created or
/// truncated); returns its pid. With own_group, as the leader of a new process group, so that the caller can
/// kill it together with the processes it starts. Throws std::runtime_error if it cannot be started.
pid_t spawn_logged(const std::string& exe, const std::vector<std::string>& args,
                   const std::filesystem::path& log, bool own_group = false);

} // namespace colocsim
