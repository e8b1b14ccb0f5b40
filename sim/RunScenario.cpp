// Running a scenario into its output directory (sim/RunScenario.hpp).
#include "sim/RunScenario.hpp"

#include "base/Units.hpp"
#include "sim/Engine.hpp"
#include "sim/EventLog.hpp"
#include "sim/InterruptGuard.hpp"
#include "sim/Metrics.hpp"
#include "sim/RunInputs.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace colocsim {

namespace {

/// The messages of a run: collected, and passed on as they arise.
class Messages {
public:
  Messages(const RunOptions& options, std::vector<RunMessage>& into) : options_(options), into_(into) {}
  void add(RunMessage::Kind kind, std::string text)
  {
    into_.push_back(RunMessage{kind, std::move(text)});
    if (options_.on_message) options_.on_message(into_.back());
  }
  void note(std::string text) { add(RunMessage::Kind::NOTE, std::move(text)); }
  void warning(std::string text) { add(RunMessage::Kind::WARNING, std::move(text)); }

private:
  const RunOptions& options_;
  std::vector<RunMessage>& into_;
};

/// A run's event log: --log-events FILE (refused now if it exists, without --force; staged like the
/// results, and kept if the run fails), or events.jsonl among the results (outputs.events), or none.
struct RunEventLog {
  std::optional<EventLogFile> file;
  std::optional<EventLog> log;
  bool own_file = false;       ///< --log-events FILE, not events.jsonl among the results
  std::filesystem::path shown; ///< its path as messages name it

  RunEventLog(const Scenario& scenario, const OutputStage& stage)
  {
    const auto& events_file = scenario.outputs.events_file;
    own_file = !events_file.empty();
    shown = own_file ? events_file : scenario.outputs.dir / "events.jsonl";
    if (own_file || scenario.outputs.events) {
      file.emplace(own_file ? events_file : stage.dir() / "events.jsonl", scenario.outputs.force);
      log.emplace(file->stream(), shown.string(), scenario.policy);
    }
  }
};

/// Runs the simulation into `writer`. A run that failed (an infeasible decision, a bad trace row) keeps
/// its own event log up to the failure, ending with an "error" line: it is what explains the failure.
RunTotals simulate(const Scenario& scenario, RunInputs& inputs, OutputWriter& writer, RunEventLog& events,
                   const RunOptions& options, Messages& messages, const std::string& where)
{
  try {
    InterruptGuard::throw_if_caught("before the simulation started");
    RunSetup setup = inputs.setup();
    setup.progress_interval_s = options.progress_interval_s;
    setup.progress_tty = options.progress_tty;
    setup.jobs_total =
        scenario.synthetic ? static_cast<std::uint64_t>(scenario.synthetic->jobs) : scenario.jobs_known;
    setup.stop = InterruptGuard::flag();
    setup.after_engine_created = &InterruptGuard::reinstall;
    if (events.log) setup.trace = &*events.log;
    return run_simulation(setup, writer);
  } catch (const RunInterrupted& e) {
    throw RunInterrupted(e.signal, std::string(signal_name(e.signal)) + ", " + e.what() + where);
  } catch (const OutputError&) {
    throw;
  } catch (const std::exception& e) {
    // A failure to write the log hides nothing.
    if (events.log && events.own_file) {
      try {
        events.log->error(e.what());
        events.file->commit();
        messages.add(RunMessage::Kind::INFO,
                     "the event log up to the failure is in " + events.file->path().string());
      } catch (const OutputError&) {
      }
    }
    throw;
  }
}

/// summary.json's contents: the metrics and what the run was made of.
Summary run_summary(const Scenario& scenario, const RunInputs& inputs, const MetricsCollector& metrics,
                    const RunTotals& totals, std::chrono::steady_clock::time_point wall0)
{
  Summary s = metrics.summarize(totals, scenario.pue);
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  s.scenario = scenario.name;
  s.policy = scenario.policy;
  s.policy_params = scenario.policy_params.to_string();
  s.placement = std::string(gang_rule_name(scenario.placement));
  s.sharing = std::string(to_string(scenario.sharing));
  s.interference = scenario.interference;
  if (!inputs.interference_table_file.empty()) s.interference += " (" + inputs.interference_table_file + ")";
  for (const auto& t : inputs.platform.types)
    s.calibration += (s.calibration.empty() ? "" : "; ") + t.calibration_file;
  s.workload = inputs.reader->describe();
  for (const auto& p : scenario.plugins)
    if (p.loaded) s.plugins.emplace_back(p.path, p.sha256);
  s.user_supplied = inputs.user_supplied;
  s.seed = scenario.seed;
  return s;
}

/// The results appear: the staged outputs, and the event log. The log's writes are checked before the
/// results appear. Among the results (outputs.events) it moves with them; a file of its own is moved into
/// place after them, so that --force, which clears earlier results this run does not write (events.jsonl
/// among them), never removes it.
void commit_results(OutputStage& stage, RunEventLog& events)
{
  if (events.file) {
    if (events.own_file)
      events.file->close();
    else
      events.file->commit();
  }
  stage.commit();
  if (events.file && events.own_file) events.file->commit();
}

/// The notes and warnings on what the inputs held: numbers without provenance, dependencies that name no
/// earlier job, jobs killed at their requested time, jobs whose gpu_types the platform lacks.
void warn_about_inputs(const Scenario& scenario, const RunInputs& inputs, const RunTotals& totals,
                       Messages& messages)
{
  for (const auto& w : inputs.reader->warnings())
    messages.warning(w);
  if (!inputs.user_supplied.empty())
    messages.note(
        std::to_string(inputs.user_supplied.size()) +
        " numbers of the platform or profile catalog were given without provenance and are recorded "
        "as user-supplied (summary.json user_supplied): " +
        join(inputs.user_supplied, "; "));
  if (totals.dependencies_ignored > 0)
    messages.warning(std::to_string(totals.dependencies_ignored) +
                     " dependencies named no earlier job of the replayed trace and were ignored (first: " +
                     totals.first_ignored_dependency +
                     "); dependencies must name jobs that come earlier in the trace, and transforms such as "
                     "window or sample may have dropped them");
  if (totals.killed > 0)
    messages.warning(std::to_string(totals.killed) +
                     " jobs were killed at their requested time (workload.estimates: " + scenario.estimates +
                     "; status 'killed' in jobs.csv), as a resource manager kills jobs that exceed their "
                     "walltime");
  if (totals.rejected_gpu_types > 0)
    messages.warning(std::to_string(totals.rejected_gpu_types) +
                     " jobs were rejected because their gpu_types name no device type of platform '" +
                     inputs.platform.name + "' (" + device_types(inputs.platform) +
                     "; first: " + totals.first_rejected_gpu_types +
                     "); replay on a platform with those types, or set workload.gpu_types: ignore");
}

/// The warnings on what the policy did: jobs it never started, devices it left idle beside waiting jobs.
void warn_about_policy(const RunInputs& inputs, const Summary& s, Messages& messages)
{
  if (s.jobs_never_started > 0) {
    std::ostringstream w;
    w << s.jobs_never_started << " of " << s.jobs_read << " jobs never started: policy '" << s.policy
      << "' left them waiting when nothing was running and nothing was left to arrive (its rules refuse "
         "them on this platform); makespan, energy and the time metrics cover only the jobs that ran";
    messages.warning(w.str());
  }
  // Out of memory under memory=declared: the policy placed jobs by what the trace declares, which may be
  // nothing (0 bytes) or less than the job uses; memory=profile places them by their profiles' footprints.
  const std::string params = "," + s.policy_params + ",";
  if (s.oom_events > 0 && params.find(",memory=declared,") != std::string::npos) {
    std::ostringstream w;
    w << s.oom_events << " out-of-memory event(s), " << s.jobs_failed << " job(s) failed: policy '"
      << s.policy << "' places jobs by the memory the trace declares (memory=declared), and ";
    if (s.jobs_without_declared_memory > 0)
      w << s.jobs_without_declared_memory << " of " << s.jobs_read << " jobs declare none (taken as 0 bytes)";
    else
      w << "what the jobs declare is less than their profiles use";
    w << "; --policy " << s.policy
      << ":memory=profile places them by their profiles' memory footprints (what they really use)";
    messages.warning(w.str());
  }
  // Devices left idle while a job that fits them waits: more than 5 % of the device-time is more than
  // placement delays (repartitions, boots) explain; the policy's own limits are the likely cause.
  const double device_time = inputs.platform.devices.size() * s.makespan_s;
  if (device_time > 0 && s.idle_while_waiting_s > 0.05 * device_time) {
    std::ostringstream w;
    w << "devices that could have run a waiting job sat idle for " << std::llround(s.idle_while_waiting_s)
      << " device-s (" << std::fixed << std::setprecision(1) << 100.0 * s.idle_while_waiting_s / device_time
      << std::defaultfloat << " % of device-time): policy '" << s.policy << "'"
      << (s.policy_params.empty() ? "" : " (" + s.policy_params + ")")
      << " left jobs waiting next to free devices that fit them; check its parameters (a candidates or "
         "window "
         "limit, max_per_device), its queue order (FCFS holds every job behind a head that does not fit)"
      << (s.placement == "pack" ? " and the placement rule (policy.placement: pack keeps a job that fits in "
                                  "one node waiting for a node with enough free devices)"
                                : "");
    messages.warning(w.str());
  }
}

} // namespace

std::string message_line(const RunMessage& m)
{
  switch (m.kind) {
  case RunMessage::Kind::NOTE:
    return "colocsim: note: " + m.text;
  case RunMessage::Kind::WARNING:
    return "colocsim: warning: " + m.text;
  case RunMessage::Kind::INFO:
    break;
  }
  return "colocsim: " + m.text;
}

RunResult run_scenario(const Scenario& scenario, const RunOptions& options)
{
  InterruptGuard interrupts;
  RunResult result;
  Messages messages(options, result.messages);
  const auto where = "; no results written to " + scenario.outputs.dir.string();
  std::optional<OutputStage> own_stage;
  OutputStage& stage = options.stage ? *options.stage : own_stage.emplace(scenario.outputs);
  for (const auto& l : stage.leftovers())
    messages.note(l);
  for (const auto& w : scenario.warnings)
    messages.warning(w);
  RunEventLog events(scenario, stage);
  RunInputs inputs = build_run(scenario);

  const auto wall0 = std::chrono::steady_clock::now();
  MetricsCollector metrics;
  OutputWriter writer(scenario.outputs, stage.dir(), metrics);
  const RunTotals totals = simulate(scenario, inputs, writer, events, options, messages, where);
  writer.finish();
  result.summary = run_summary(scenario, inputs, metrics, totals, wall0);
  write_summary_json(result.summary, stage.dir() / "summary.json");
  if (const int sig = InterruptGuard::caught(); sig != 0)
    throw RunInterrupted(sig, std::string(signal_name(sig)) + " after the simulation" + where);
  commit_results(stage, events);
  for (const auto& n : writer.notes())
    messages.note(n);
  warn_about_inputs(scenario, inputs, totals, messages);
  warn_about_policy(inputs, result.summary, messages);
  result.files = writer.files();
  result.events_among_results = events.log && !events.own_file;
  if (events.own_file) result.event_log = events.shown;
  return result;
}

void print_run_result(const RunResult& result, const Scenario& scenario, std::ostream& out)
{
  print_summary(result.summary, out);
  out << "  results in " << scenario.outputs.dir.string() << "/ (summary.json";
  for (const auto& f : result.files)
    out << ", " << f;
  out << (result.events_among_results ? ", events.jsonl" : "") << ")\n";
  if (!result.event_log.empty()) out << "  event log in " << result.event_log.string() << "\n";
}

void progress_from_environment(RunOptions& options, bool quiet)
{
  options.progress_interval_s = 0;
  options.progress_tty = false;
  if (quiet) return;
  if (const char* env = std::getenv("COLOCSIM_PROGRESS"); env != nullptr && *env != '\0') {
    const auto s = parse_double(env);
    if (!s || *s < 0)
      throw std::invalid_argument(
          "COLOCSIM_PROGRESS expects the seconds between progress lines, a number >= 0 (got '" +
          std::string(env) + "')");
    options.progress_interval_s = *s;
    return;
  }
  const bool tty = isatty(STDERR_FILENO) != 0;
  options.progress_interval_s = tty ? PROGRESS_TTY_S : PROGRESS_LOG_S;
  options.progress_tty = tty;
}

} // namespace colocsim
