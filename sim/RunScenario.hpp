#pragma once
// Running a scenario: the one entry point that `colocsim run`, `colocsim replay` (and so `colocsim sweep`,
// whose runs are `colocsim run` processes) and the Python module's colocsim.run() call. It stages the output
// directory, builds the run (build_run), simulates it, writes jobs.csv, timeseries.csv and summary.json and
// moves them into place; what the command line prints (notes and warnings, the summary) it hands back as
// data. Drivers that need their own RunObserver (experiments/, `colocsim bench`) call build_run and
// run_simulation themselves.
#include "sim/Outputs.hpp"
#include "sim/Scenario.hpp"

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace colocsim {

/// A note or a warning on a run: on its inputs, its outputs or what its policy did.
struct RunMessage {
  enum class Kind { NOTE, WARNING, INFO };
  Kind kind = Kind::NOTE;
  std::string text;
};

/// The line the command line prints for it: "colocsim: note: ...", "colocsim: warning: ...",
/// "colocsim: ..." (INFO), without the newline.
std::string message_line(const RunMessage& m);

struct RunOptions {
  /// The progress line on stderr (RunSetup::progress_interval_s, progress_tty): seconds between lines, <= 0
  /// for none (progress_from_environment gives what the command line uses).
  double progress_interval_s = 0;
  bool progress_tty = false;
  /// Where the files are written before they are moved into the output directory: this stage (replay has
  /// put its scenario.yaml there), or, when null, a stage of the scenario's output directory made here.
  OutputStage* stage = nullptr;
  /// Called with each note and warning as it arises, so that those known before the simulation are shown
  /// before it; every one is also in RunResult::messages. Also called, before the exception leaves, with
  /// where a failed run's own event log (--log-events) is.
  std::function<void(const RunMessage&)> on_message;
};

struct RunResult {
  Summary summary;                   ///< what summary.json holds
  std::vector<RunMessage> messages;  ///< every note and warning, in the order they arose
  std::vector<std::string> files;    ///< written besides summary.json: jobs.csv, timeseries.csv(.gz)
  bool events_among_results = false; ///< events.jsonl is among the results (outputs.events)
  std::filesystem::path event_log;   ///< the run's own event log file (--log-events); empty: none
};

/// Runs `scenario` into its output directory (Scenario::outputs): the files appear there only when all are
/// written. Ctrl-C or SIGTERM stops the run (an InterruptGuard lives while it runs): RunInterrupted, nothing
/// written. Throws InputError for bad inputs, DecisionError for an infeasible decision, OutputError for a
/// failed write.
RunResult run_scenario(const Scenario& scenario, const RunOptions& options = {});

/// What `colocsim run` prints on stdout after a run: the summary, then where the results are.
void print_run_result(const RunResult& result, const Scenario& scenario, std::ostream& out);

/// The progress line's settings for a run that reports on this process's stderr: none when `quiet`;
/// COLOCSIM_PROGRESS=S (seconds; 0: none) forces plain lines every S seconds; else on a terminal a line that
/// overwrites itself every PROGRESS_TTY_S, elsewhere (a log file) a plain line every PROGRESS_LOG_S.
/// Throws std::invalid_argument for a COLOCSIM_PROGRESS that is not a number >= 0.
void progress_from_environment(RunOptions& options, bool quiet);

} // namespace colocsim
