#pragma once
// The colocsim subcommands: one table (cli_commands) drives dispatch and the main --help. A new command
// lives in its own sim/Cli<Name>.cpp, defines `int cmd_<name>(args, out)` (declared here) and adds one row
// to the table in Cli.cpp. Helpers shared by commands are declared here too.
#include "sim/InterruptGuard.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace colocsim {

/// Bad command-line usage: printed as "colocsim: <message>", exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CliCommand {
  std::string name;
  std::string summary;
  std::function<int(const std::vector<std::string>& args, std::ostream& out)> run;
};

const std::vector<CliCommand>& cli_commands();

int cmd_run(const std::vector<std::string>& args, std::ostream& out);
int cmd_validate(const std::vector<std::string>& args, std::ostream& out);
int cmd_policies(const std::vector<std::string>& args, std::ostream& out);
int cmd_devices(const std::vector<std::string>& args, std::ostream& out);
int cmd_bench(const std::vector<std::string>& args, std::ostream& out);
int cmd_replay(const std::vector<std::string>& args, std::ostream& out);
int cmd_formats(const std::vector<std::string>& args, std::ostream& out);
int cmd_generate(const std::vector<std::string>& args, std::ostream& out);
int cmd_sweep(const std::vector<std::string>& args, std::ostream& out);

/// When a sweep run here stops starting runs (`colocsim sweep --deadline`, `advise --budget`): after `at`
/// no run starts; a run still running then gets SIGTERM, and SIGKILL SWEEP_STOP_GRACE_S later; its folder
/// is removed and it is recorded as not run (sweep.csv status `deadline`, never `failed`), so that --resume
/// runs it. The first `finish_first` runs (advise: the baseline's seed 1) start and finish all the same.
struct SweepDeadline {
  std::optional<std::chrono::steady_clock::time_point> at;
  std::size_t finish_first = 0;
};
/// How long a run stopped at the deadline has to end after SIGTERM before it is killed.
constexpr double SWEEP_STOP_GRACE_S = 2.0;
/// cmd_sweep with a deadline of the caller's (the earlier of it and --deadline's counts).
int sweep_with_deadline(const std::vector<std::string>& args, std::ostream& out,
                        const SweepDeadline& deadline);
/// A wall time given to `option` (advise --budget, sweep --deadline) in seconds: a number > 0 with an
/// optional unit ms, s, m, min or h (seconds without one), at most 30 days; UsageError otherwise.
double parse_wall_time(const std::string& option, const std::string& value);
int cmd_advise(const std::vector<std::string>& args, std::ostream& out);
int cmd_plot(const std::vector<std::string>& args, std::ostream& out);
int cmd_profiles(const std::vector<std::string>& args, std::ostream& out);
int cmd_pack(const std::vector<std::string>& args, std::ostream& out);

struct Scenario;
class OutputStage;
struct Summary;
/// `colocsim run` and `replay`: runs a loaded scenario with run_scenario (sim/RunScenario.hpp), with its
/// notes and warnings on stderr as they arise and the progress line COLOCSIM_PROGRESS or the terminal asks
/// for (progress_from_environment), then prints the summary unless `quiet`. The files are written into
/// `stage` (replay has put its scenario.yaml there), or into a stage of the scenario's output directory.
/// `summary`, if given, receives the run's summary.
int execute_run(const Scenario& scenario, bool quiet, std::ostream& out, OutputStage* stage = nullptr,
                Summary* summary = nullptr);
int cmd_calibrate(const std::vector<std::string>& args, std::ostream& out);

/// The value after option args[i] (advances i); UsageError if there is none.
std::string next_arg(const std::vector<std::string>& args, std::size_t& i);
/// True if --help was asked (help printed); UsageError for any other argument.
bool no_options_or_help(const std::vector<std::string>& args, const char* help, std::ostream& out);
/// Loads policy plugins named on the command line (--policy-plugin); InputError if one cannot be loaded.
void load_plugins(const std::vector<std::string>& paths);
/// --policy-python FILE.py:CLASS (run, bench, sweep): the Python bridge (python/Bridge.cpp) to load like a
/// --policy-plugin, and the --set assignments that choose its policy `python` with the file (absolute) and
/// the class. UsageError for a value without FILE:CLASS, InputError when the bridge or the file is missing.
struct PythonPolicyArg {
  std::string bridge;
  std::vector<std::string> sets;
};
PythonPolicyArg parse_python_policy(const std::string& value);
/// Peak resident memory of this process in MiB (getrusage).
double peak_rss_mb();

} // namespace colocsim
