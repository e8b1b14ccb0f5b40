#pragma once
// What the command-line tests share: the CLI run in-process with its output captured, the real binary run
// through a shell, a scratch directory unique to the test process, and the path of a file of the source
// tree. Every invocation made through cli() or shell() has its outputs parsed strictly
// (tests/support/StrictFormats.hpp): the tests run colocsim only through these two, and
// tests/support/OutputCoverage_test.cpp keeps it so (CONTRIBUTING.md, Tests).
#include "cli/Cli.hpp"
#include "tests/CatchCompat.hpp"
#include "tests/support/StrictFormats.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace colocsim::test {

struct CliResult {
  int status;
  std::string out, err;
};

/// The outputs of one colocsim invocation (`args` without the program name; `cwd` resolves a relative
/// output path), parsed strictly: the `-o`/`--output` path of run, replay, sweep, generate and calibrate
/// (every .json and .csv file under it; a sweep's run directories included) after a successful run, and
/// after a sweep that failed too (its sweep.csv and finished runs are kept); the key=value figures
/// `bench` prints and the trace `generate` prints without -o (when `out`, the standard output, was seen).
/// Each problem fails the calling test.
inline void check_cli_outputs(const std::vector<std::string>& args, int status, const std::string* out,
                              const std::filesystem::path& cwd = {})
{
  namespace fs = std::filesystem;
  if (args.empty()) return;
  const std::string& command = args[0];
  auto has = [&](const std::string& flag) {
    for (const auto& a : args)
      if (a == flag) return true;
    return false;
  };
  if (has("--help") || has("-h") || has("--dry-run") || has("--help-scenario")) return;
  if (command == "bench") {
    if (status != 0 || out == nullptr) return;
    for (const auto& p : check_key_values(*out, "colocsim bench stdout"))
      FAIL_CHECK("output of colocsim bench not strict: " << p);
    return;
  }
  const bool writes = command == "run" || command == "replay" || command == "sweep" ||
                      command == "generate" || command == "calibrate";
  if (!writes || (status != 0 && command != "sweep")) return;
  std::string output;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if ((args[i] == "-o" || args[i] == "--output") && i + 1 < args.size())
      output = args[i + 1];
    else if (args[i].rfind("-o", 0) == 0 && args[i].size() > 2 && args[i][2] != '-')
      output = args[i].substr(2); // -oDIR
    else if (args[i].rfind("--output=", 0) == 0)
      output = args[i].substr(9);
  }
  if (output.empty()) {
    // run/replay default to the scenario's outputs.dir; generate without -o prints to stdout.
    if (command == "generate") {
      if (status == 0 && out != nullptr) {
        const auto p = check_csv_output(*out, "colocsim generate stdout", "trace.csv");
        for (const auto& problem : p)
          FAIL_CHECK("output of colocsim generate not strict: " << problem);
      }
      return;
    }
    if (command == "calibrate" || status != 0) return; // fit/check without -o write nothing
    FAIL_CHECK("colocsim " << command
                           << " without -o: a test names its output path so that it can be checked");
    return;
  }
  fs::path path(output);
  if (path.is_relative() && !cwd.empty()) path = cwd / path;
  if (status != 0 && !fs::exists(path)) return; // a sweep that stopped before writing anything
  std::size_t files = 0;
  for (const auto& p : check_output_tree(path, &files))
    FAIL_CHECK("output of colocsim " << command << " not strict: " << p);
}

/// `colocsim ARGS...` in this process (run_cli), with its standard output and error; its outputs are
/// checked (check_cli_outputs).
inline CliResult cli(const std::vector<std::string>& args)
{
  std::ostringstream out, err;
  const int status = run_cli(args, out, err);
  CliResult r{status, out.str(), err.str()};
  check_cli_outputs(args, r.status, &r.out);
  return r;
}

#ifdef COLOCSIM_BINARY
/// cli() for a command that starts colocsim processes (a sweep runs each run as `colocsim run`): they run
/// the real binary (COLOCSIM_EXE), not this test executable.
inline CliResult cli_spawning_binary(const std::vector<std::string>& args)
{
  ::setenv("COLOCSIM_EXE", COLOCSIM_BINARY, 1);
  return cli(args);
}
#endif

/// The words of a shell command line (split at blanks; the tests' paths have none).
inline std::vector<std::string> shell_words(const std::string& command)
{
  std::vector<std::string> words;
  std::istringstream in(command);
  for (std::string w; in >> w;)
    words.push_back(w);
  return words;
}

/// Runs a shell command line and returns its exit status (-1 if it did not exit normally). Every
/// invocation of the colocsim binary in it (COLOCSIM_BINARY, or a word ending in "/colocsim") has its
/// outputs checked as cli() does; a `cd DIR &&` before it resolves relative output paths. Standard output
/// is not seen here, so bench figures are checked only through cli().
inline int shell(const std::string& command)
{
  const int raw = std::system(command.c_str());
  const int status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  const auto words = shell_words(command);
  std::filesystem::path cwd;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "cd" && i + 1 < words.size()) cwd = words[i + 1];
    const std::string& w = words[i];
    const bool is_colocsim = w.size() >= 9 && w.compare(w.size() - 9, 9, "/colocsim") == 0;
    if (!is_colocsim) continue;
    std::vector<std::string> args;
    for (std::size_t j = i + 1; j < words.size(); ++j) {
      const std::string& a = words[j];
      if (a == "&&" || a == "||" || a == ";" || a == "|" || a[0] == '>' || a[0] == '<' ||
          a.rfind("2>", 0) == 0)
        break;
      args.push_back(a);
    }
    // A command line that runs several steps: only the exit status of the whole is known, so a colocsim
    // step followed by others is checked when its output exists.
    check_cli_outputs(args, status, nullptr, cwd);
  }
  return status;
}

#ifdef COLOCSIM_BINARY
/// Starts `COLOCSIM_BINARY args...` in the background as the leader of a new process group (so that a test
/// can kill it together with the processes it starts), stdout and stderr to `log`; returns its pid. Its
/// outputs are not checked here: the test checks them after it stopped the process (with cli() of a later
/// step, or check_output_tree()).
inline pid_t spawn_colocsim(const std::vector<std::string>& args, const std::filesystem::path& log)
{
  return spawn_logged(COLOCSIM_BINARY, args, log, /*own_group=*/true);
}

/// The disk-full tests' set-up: dir/trace.csv, 20,000 jobs made by the binary, and a tmpfs of `size_kb` KB
/// mounted on dir/small for a run to fill. False, with a warning and dir removed, where mounting is not
/// permitted (it needs root or CAP_SYS_ADMIN). The caller unmounts dir/small.
inline bool trace_and_small_tmpfs(const std::filesystem::path& dir, int size_kb)
{
  const std::string bin = COLOCSIM_BINARY;
  REQUIRE(shell(bin + " generate --jobs 20000 -o " + (dir / "trace.csv").string() + " > /dev/null") == 0);
  const auto mnt = dir / "small";
  std::filesystem::create_directories(mnt);
  const std::string size = std::to_string(size_kb);
  if (shell("mount -t tmpfs -o size=" + size + "k tmpfs " + mnt.string() + " 2> /dev/null") != 0) {
    WARN("skipped: mounting a " + size + " KB tmpfs is not permitted here (needs root or CAP_SYS_ADMIN)");
    std::filesystem::remove_all(dir);
    return false;
  }
  return true;
}
#endif

/// <temp>/colocsim-PREFIX-PID-NAME, emptied; created unless `create` is false.
inline std::filesystem::path fresh_dir(const std::string& prefix, const std::string& name, bool create = true)
{
  auto d = std::filesystem::temp_directory_path() /
           ("colocsim-" + prefix + "-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(d);
  if (create) std::filesystem::create_directories(d);
  return d;
}

/// The scratch folders of one test file, fresh_dir(prefix, name, create) with the file's own prefix: after
/// `const ScratchDirs fresh_dir{"plot-test"};`, fresh_dir("svg") is <temp>/colocsim-plot-test-PID-svg.
struct ScratchDirs {
  std::string prefix;
  bool create = true;
  std::filesystem::path operator()(const std::string& name) const
  {
    return colocsim::test::fresh_dir(prefix, name, create);
  }
};

/// The cells of a CSV file without quoted fields, row by row (the header first).
inline std::vector<std::vector<std::string>> read_csv_cells(const std::filesystem::path& file)
{
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> row;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');)
      row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

/// Writes `text` to `file` (a test's input: a trace, a scenario, a spec).
inline void write_file(const std::filesystem::path& file, const std::string& text)
{
  std::ofstream f(file);
  f << text;
}

/// The absolute path of a file of the source tree, e.g. source("sim/platforms/aurora.yaml").
inline std::string source(const std::string& relative)
{
  return std::string(COLOCSIM_SOURCE_DIR) + "/" + relative;
}

} // namespace colocsim::test
