#pragma once
// What the command-line tests share: the CLI run in-process with its output captured, a scratch directory
// unique to the test process, and the path of a file of the source tree.
#include "sim/Cli.hpp"

#include <filesystem>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace colocsim::test {

struct CliResult {
  int status;
  std::string out, err;
};

/// `colocsim ARGS...` in this process (run_cli), with its standard output and error.
inline CliResult cli(const std::vector<std::string>& args)
{
  std::ostringstream out, err;
  const int status = run_cli(args, out, err);
  return {status, out.str(), err.str()};
}

/// <temp>/colocsim-PREFIX-PID-NAME, emptied; created unless `create` is false.
inline std::filesystem::path fresh_dir(const std::string& prefix, const std::string& name, bool create = true)
{
  auto d = std::filesystem::temp_directory_path() /
           ("colocsim-" + prefix + "-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(d);
  if (create) std::filesystem::create_directories(d);
  return d;
}

/// The absolute path of a file of the source tree, e.g. source("sim/platforms/aurora.yaml").
inline std::string source(const std::string& relative)
{
  return std::string(COLOCSIM_SOURCE_DIR) + "/" + relative;
}

} // namespace colocsim::test
