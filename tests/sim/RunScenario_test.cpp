// run_scenario (sim/RunScenario.hpp), the engine layer's one entry point of a run: the files appear in the
// output directory, and the notes and warnings come back as data (and through on_message as they arise)
// instead of being printed. The run is metrics-idle.csv under exclusive-fcfs on 2 tiles (worked out in
// Metrics_test.cpp: makespan 180 s, 80 device-s idle while a job waits, 22.2 % of device-time, a warning).
#include "tests/CatchCompat.hpp"

#include "sim/RunScenario.hpp"

#include <filesystem>
#include <iostream>
#include <sstream>
#include <unistd.h>

using namespace colocsim;
using Catch::Matchers::StartsWith;
using colocsim::test::ContainsSubstring;

namespace {
namespace fs = std::filesystem;
const std::string DATA = std::string(COLOCSIM_TEST_DATA) + "/sim/";

Scenario idle_scenario(const fs::path& out)
{
  Scenario s =
      load_scenario(DATA + "base.yaml", {"workload.trace=" + DATA + "metrics-idle.csv"}, "exclusive-fcfs");
  s.outputs.dir = out;
  return s;
}
} // namespace

TEST_CASE("run_scenario writes the results and returns the warnings as data, printing nothing", "[run]")
{
  const auto dir = fs::temp_directory_path() / ("colocsim-runscenario-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const Scenario scenario = idle_scenario(dir / "out");
  std::vector<RunMessage> passed_on;
  RunOptions options;
  options.on_message = [&](const RunMessage& m) { passed_on.push_back(m); };

  std::ostringstream err, out;
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  RunResult r;
  try {
    r = run_scenario(scenario, options);
  } catch (...) {
    std::cerr.rdbuf(old_err);
    std::cout.rdbuf(old_out);
    throw;
  }
  std::cerr.rdbuf(old_err);
  std::cout.rdbuf(old_out);

  CHECK(err.str().empty()); // no progress line (none asked), no message printed
  CHECK(out.str().empty());
  CHECK_THAT(r.summary.makespan_s, Catch::Matchers::WithinAbs(180.0, 1e-6));
  CHECK_THAT(r.summary.idle_while_waiting_s, Catch::Matchers::WithinAbs(80.0, 1e-6));
  CHECK(r.summary.policy == "exclusive-fcfs");
  for (const auto* f : {"summary.json", "jobs.csv", "timeseries.csv"})
    CHECK(fs::exists(dir / "out" / f));
  CHECK(r.files == std::vector<std::string>{"jobs.csv", "timeseries.csv"});
  CHECK_FALSE(r.events_among_results);
  CHECK(r.event_log.empty());

  REQUIRE(r.messages.size() == 1);
  CHECK(r.messages[0].kind == RunMessage::Kind::WARNING);
  CHECK_THAT(r.messages[0].text,
             StartsWith("devices that could have run a waiting job sat idle for 80 device-s "
                        "(22.2 % of device-time): policy 'exclusive-fcfs'"));
  REQUIRE(passed_on.size() == 1);
  CHECK(passed_on[0].text == r.messages[0].text);
  CHECK_THAT(message_line(r.messages[0]), StartsWith("colocsim: warning: devices that could have run"));
  CHECK(message_line(RunMessage{RunMessage::Kind::NOTE, "x"}) == "colocsim: note: x");
  CHECK(message_line(RunMessage{RunMessage::Kind::INFO, "x"}) == "colocsim: x");

  std::ostringstream printed;
  print_run_result(r, scenario, printed);
  CHECK_THAT(printed.str(), ContainsSubstring("makespan") &&
                                ContainsSubstring("  results in " + (dir / "out").string() +
                                                  "/ (summary.json, jobs.csv, timeseries.csv)\n"));

  // The output directory is never overwritten without force: the second run is refused before it runs.
  CHECK_THROWS(run_scenario(scenario, options));
  fs::remove_all(dir);
}
