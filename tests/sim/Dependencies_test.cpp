// Job dependencies (Job::depends_on, think time): the real engine holds a job until its dependencies have
// completed, submits it after the think time, cancels it when a dependency can never complete, and ignores
// (and counts) dependencies on jobs the trace does not have. Schedules computed by hand.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"
#include "tests/sim/EngineTestSupport.hpp"

#include "cli/Cli.hpp"
#include "sim/Engine.hpp"
#include "sim/Scenario.hpp"
#include "workloads/SwfReader.hpp"

#include <map>
#include <sstream>
#include <tuple>

using namespace colocsim;
using namespace colocsim::test;

namespace {

const std::string& DATA = SIM_DATA;

RunOutcome run(const std::string& trace)
{
  return run_scenario(DATA + "base.yaml", {"workload.trace=" + trace}, "exclusive-fcfs");
}

} // namespace

TEST_CASE("a job waits for its dependencies and their think time, and its wait counts from then",
          "[engine][dependencies]")
{
  // a: tile 0, 0..100; b: tile 1, 0..50. d (submitted at 20) waits for b: submitted at 50, runs 50..90 on
  // tile 1. c (submitted at 10) waits for a and b plus 20 s: max(50, 100) + 20 = 120, runs 120..150.
  const auto o = run("deps.csv");
  REQUIRE(o.jobs.size() == 4);
  for (const auto& [id, r] : o.jobs)
    CHECK(r.status == JobStatus::COMPLETED);
  const auto& c = o.jobs.at("c");
  const auto& d = o.jobs.at("d");
  CHECK_THAT(d.submit_s, WithinAbs(50.0, 1e-6));
  CHECK_THAT(d.start_s, WithinAbs(50.0, 1e-6));
  CHECK_THAT(d.end_s, WithinAbs(90.0, 1e-6));
  CHECK(d.devices == std::vector<DeviceIndex>{1});
  CHECK_THAT(c.submit_s, WithinAbs(120.0, 1e-6));
  CHECK_THAT(c.start_s, WithinAbs(120.0, 1e-6));
  CHECK_THAT(c.end_s, WithinAbs(150.0, 1e-6));
  CHECK_THAT(o.jobs.at("a").submit_s, WithinAbs(0.0, 1e-12));
  CHECK_THAT(o.totals.t_end_s - o.totals.t_first_submit_s, WithinAbs(150.0, 1e-6));
  CHECK(o.totals.cancelled == 0);
  CHECK(o.totals.dependencies_ignored == 0);
}

TEST_CASE("a rejected job cancels the jobs that depend on it, transitively", "[engine][dependencies]")
{
  const auto o = run("deps-cancel.csv");
  REQUIRE(o.jobs.size() == 5);
  CHECK(o.jobs.at("big").status == JobStatus::REJECTED);
  CHECK(o.jobs.at("f").status == JobStatus::CANCELLED);
  CHECK(o.jobs.at("g").status == JobStatus::CANCELLED);
  CHECK_THAT(o.jobs.at("f").end_s, WithinAbs(0.0, 1e-9)); // when big was rejected
  CHECK_THAT(o.jobs.at("g").end_s, WithinAbs(5.0, 1e-9)); // on arrival: f was already cancelled
  CHECK(o.jobs.at("f").start_s < 0);
  const auto& h = o.jobs.at("h");
  CHECK(h.status == JobStatus::COMPLETED);
  CHECK_THAT(h.end_s, WithinAbs(15.0, 1e-6));
  // x names no job of the trace: the dependency is ignored (and counted), x runs on arrival.
  CHECK(o.jobs.at("x").status == JobStatus::COMPLETED);
  CHECK_THAT(o.jobs.at("x").start_s, WithinAbs(6.0, 1e-6));
  CHECK(o.totals.cancelled == 2);
  CHECK(o.totals.rejected == 1);
  CHECK(o.totals.completed == 2);
  CHECK(o.totals.dependencies_ignored == 1);
  CHECK(o.totals.first_ignored_dependency.find("job 'x'") != std::string::npos);
  CHECK(o.totals.first_ignored_dependency.find("'nosuch'") != std::string::npos);
}

TEST_CASE("a job killed at its requested time cancels its dependents, read before or after the kill",
          "[engine][dependencies][estimates]")
{
  // deps-killed.swf on base.yaml's tiles, exclusive FCFS, requested times: job 1 runs on a tile from 0 and is
  // killed at 50 (asks 50 s, would run 100). Job 2 (submitted at 10) is held by it and cancelled at 50, when
  // it is killed. Job 3 is read at 60, after the kill: its dependency can never complete, so it is cancelled
  // at once, at 60, for the same reason (before, a killed dependency was taken for one still running: job 3
  // waited for ever and ended "never started"). Job 4 runs [70, 80].
  const auto o = run_scenario(DATA + "base.yaml",
                              {"workload.trace=deps-killed.swf", "workload.format=swf",
                               "platform.sharing=exclusive", "workload.default_profile=busy",
                               "workload.profile_map=none", "workload.estimates=requested"},
                              "exclusive-fcfs");
  REQUIRE(o.jobs.size() == 4);
  CHECK(o.jobs.at("1").status == JobStatus::KILLED);
  CHECK_THAT(o.jobs.at("1").end_s, WithinAbs(50.0, 1e-6));
  for (const auto* id : {"2", "3"}) {
    INFO("job " << id);
    CHECK(o.jobs.at(id).status == JobStatus::CANCELLED);
    CHECK(o.jobs.at(id).reason == "a job it depends on was killed");
    CHECK(o.jobs.at(id).start_s < 0);
  }
  CHECK_THAT(o.jobs.at("2").end_s, WithinAbs(50.0, 1e-6));
  CHECK_THAT(o.jobs.at("3").end_s, WithinAbs(60.0, 1e-6));
  CHECK(o.jobs.at("4").status == JobStatus::COMPLETED);
  CHECK_THAT(o.jobs.at("4").end_s, WithinAbs(80.0, 1e-6));
  CHECK(o.totals.cancelled == 2);
  CHECK(o.totals.killed == 1);
  CHECK(o.totals.never_started == 0);
}

TEST_CASE("SWF fields 17-18 become a dependency with its think time", "[workloads][swf][dependencies]")
{
  // 18 fields: job submit wait run procs cpu mem req_procs req_time req_mem status user group exe queue
  // partition preceding_job think_time
  std::istringstream in("1 0 0 100 4 -1 -1 4 -1 -1 1 7 -1 -1 -1 -1 -1 -1\n"
                        "2 10 0 50 4 -1 -1 4 -1 -1 0 8 -1 -1 -1 -1 1 30\n");
  SwfReader reader(in, "deps.swf");
  const auto first = reader.next();
  const auto second = reader.next();
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->depends_on.empty());
  CHECK(first->user == "7");
  CHECK(first->trace_status == "completed");
  CHECK(second->depends_on == std::vector<std::string>{"1"});
  CHECK(second->think_time_s == 30);
  CHECK(second->trace_status == "failed");
  CHECK(reader.may_have_dependencies());
}

TEST_CASE("validate prints the critical path of the dependencies and refuses a cycle", "[cli][dependencies]")
{
  const auto run_validate = [](const std::string& trace) {
    const auto r =
        colocsim::test::cli({"validate", DATA + "base.yaml", "--set", "workload.trace=" + DATA + trace});
    return std::make_tuple(r.status, r.out, r.err);
  };
  auto [status, out, err] = run_validate("deps.csv");
  CHECK(status == 0);
  // a (100) → c (think 20, 30 s): 150 s through a and c.
  CHECK_THAT(out,
             ContainsSubstring("dependencies: 2 jobs depend on others (3 dependencies); critical path 150 s "
                               "through 2 jobs (a -> c)"));
  std::tie(status, out, err) = run_validate("deps-cycle.csv");
  CHECK(status == 2);
  CHECK_THAT(err, ContainsSubstring("deps-cycle.csv: depends_on: the dependencies form a cycle: "));
  CHECK(out.empty());
}
