// Alibaba PAI 2020 task and job tables, on a SYNTHETIC fixture that follows the published schema
// (tests/data/workloads/pai/README.md: the real tables are not obtainable here).
#include "tests/workloads/WorkloadsTestSupport.hpp"

#include "workloads/PaiReader.hpp"

#include <fstream>

using namespace colocsim;
using namespace colocsim::test;

namespace {
const std::string PAI = WORKLOADS_DATA + "pai/";
} // namespace

TEST_CASE("PAI task table: tasks become jobs with fractional GPU shares", "[workloads][pai]")
{
  std::ifstream in(PAI + "pai_task_table.synthetic.csv");
  PaiReader r(in, "task.csv");
  const auto jobs = drain(r);
  CHECK(r.table() == PaiTable::TASK);
  REQUIRE(jobs.size() == 5);
  // synjob..01,tensorflow,1.0,Terminated,1739162.0,1739200.0,600.0,29.296875,50.0,MISC
  CHECK(jobs[0].id == "synjob000000000000000001/tensorflow");
  CHECK(jobs[0].submit_s == 1739162);
  CHECK(jobs[0].duration_s == 38);
  CHECK(jobs[0].devices == 1);
  CHECK(jobs[0].gpu_milli == 500);
  CHECK(jobs[0].gpu_types == "MISC");
  CHECK(jobs[0].trace_class == "tensorflow");
  CHECK(jobs[0].qos == "status=Terminated");
  CHECK(jobs[0].origin.line == 4);
  // 4 workers x 100 % → 4 whole devices
  CHECK(jobs[1].id == "synjob000000000000000002/worker");
  CHECK(jobs[1].devices == 4);
  CHECK(jobs[1].gpu_milli == 1000);
  // the evaluator comes earlier than the PyTorchWorker above it in the file
  CHECK(jobs[2].id == "synjob000000000000000004/evaluator");
  CHECK(jobs[2].gpu_milli == 250);
  // 2 instances x 200 % → 2 devices each, Failed is replayed by default
  CHECK(jobs[3].id == "synjob000000000000000003/PyTorchWorker");
  CHECK(jobs[3].devices == 4);
  CHECK(jobs[3].duration_s == 900);
  CHECK(jobs[3].qos == "status=Failed");
  // 150 % on one instance → 2 devices at 750 each
  CHECK(jobs[4].devices == 2);
  CHECK(jobs[4].gpu_milli == 750);
  const auto w = r.warnings();
  REQUIRE(w.size() == 3);
  CHECK_THAT(w[0], ContainsSubstring("skipped 2 task(s) that did not finish in the trace"));
  CHECK_THAT(w[1], ContainsSubstring("skipped 2 CPU-only task(s)"));
  CHECK_THAT(w[2], ContainsSubstring("1 row(s) were out of start_time order"));
}

TEST_CASE("PAI task table: status=terminated leaves failed tasks out", "[workloads][pai]")
{
  PaiOptions o;
  o.terminated_only = true;
  auto r = open_pai(PAI + "pai_task_table.synthetic.csv", o);
  CHECK(drain(*r).size() == 4);
  CHECK_THAT(r->warnings().at(2), ContainsSubstring("skipped 1 failed task(s) (status=terminated)"));
}

TEST_CASE("PAI job table: arrivals and durations, devices from the options", "[workloads][pai]")
{
  PaiOptions o;
  o.job_devices = 2;
  std::ifstream in(PAI + "pai_job_table.synthetic.csv");
  PaiReader r(in, "job.csv", o);
  const auto jobs = drain(r);
  CHECK(r.table() == PaiTable::JOB);
  REQUIRE(jobs.size() == 4);
  CHECK(jobs[0].id == "synjob000000000000000001");
  CHECK(jobs[0].submit_s == 1739100);
  CHECK(jobs[0].duration_s == 100);
  CHECK(jobs[0].devices == 2);
  CHECK(jobs[3].qos == "status=Failed");
  CHECK_THAT(r.warnings().at(0), ContainsSubstring("skipped 1 job(s) that did not finish"));
}

TEST_CASE("PAI: malformed rows", "[workloads][pai][errors]")
{
  CHECK_THAT(input_error_of([] { drain(*open_pai(PAI + "bad-task-columns.csv")); }),
             ContainsSubstring(
                 "bad-task-columns.csv:2: row: wrong number of fields (got 9); expected 10 (task table"));
  CHECK_THAT(input_error_of([] { drain(*open_pai(PAI + "bad-task-gpu-type.csv")); }),
             ContainsSubstring(
                 "bad-task-gpu-type.csv:3:93: gpu_type: unknown GPU type 'A100' (got 'A100'); expected "
                 "one of MISC, P100, T4, V100, V100M32"));
  CHECK_THAT(input_error_of([] { drain(*open_pai(PAI + "bad-task-number.csv")); }),
             ContainsSubstring(
                 "bad-task-number.csv:2:88: plan_gpu: not a number (got 'half'); expected percent of one "
                 "GPU per instance"));
  PaiOptions job;
  job.table = PaiTable::JOB;
  CHECK_THAT(
      input_error_of([&] { drain(*open_pai(PAI + "pai_task_table.synthetic.csv", job)); }),
      ContainsSubstring("pai_task_table.synthetic.csv:4: row: wrong number of fields (got 10); expected 6"));
}
