// Slurm accounting (`sacct --parsable2`) read as a trace: a hand-written fixture with one row per case
// (tests/data/workloads/sacct/README.md), then small inline inputs for each rule and each error.
#include "tests/workloads/WorkloadsTestSupport.hpp"

#include "workloads/SacctReader.hpp"
#include "workloads/TraceFormats.hpp"

#include <sstream>

using namespace colocsim;
using namespace colocsim::test;
using Catch::Matchers::ContainsSubstring;

namespace {
const std::string EXAMPLE = WORKLOADS_DATA + "sacct/example.txt";
const std::string HEAD = "JobID|Submit|Start|End|State|AllocTRES\n";

std::vector<Job> read_text(const std::string& text, SacctOptions o = {})
{
  std::istringstream in(text);
  SacctReader r(in, "t.txt", o);
  return drain(r);
}

std::string error_of(const std::string& text, SacctOptions o = {})
{
  return input_error_of([&] { read_text(text, o); });
}

/// One ended job with the given TRES string (2024-03-01T00:00:00 + 100 s).
std::vector<Job> with_tres(const std::string& tres)
{
  return read_text(HEAD + "1|2024-03-01T00:00:00|2024-03-01T00:00:00|2024-03-01T00:01:40|COMPLETED|" + tres +
                   "\n");
}
} // namespace

TEST_CASE("sacct: every case of the example becomes the job worked out by hand", "[workloads][sacct]")
{
  auto r = open_sacct(EXAMPLE);
  const auto jobs = drain(*r);
  REQUIRE(jobs.size() == 7);
  // 100: the first job; its Submit 12:00:00 is 0. Ran 12:00:10 → 13:00:10 on 2 typed A100s.
  CHECK(jobs[0].id == "100");
  CHECK(jobs[0].submit_s == 0);
  CHECK(jobs[0].duration_s == 3600);
  CHECK(jobs[0].devices == 2);
  CHECK(jobs[0].gpu_milli == 1000);
  CHECK(jobs[0].gpu_types == "a100");
  CHECK(jobs[0].cpus == 8);
  CHECK(jobs[0].host_mem_bytes == 64.0 * 1024 * 1024 * 1024);
  CHECK(jobs[0].requested_s == 7200);
  CHECK(jobs[0].user == "alice");
  CHECK(jobs[0].trace_class == "gpu");
  CHECK(jobs[0].trace_status == "COMPLETED");
  CHECK(jobs[0].origin.line == 2);
  // 101: untyped gres/gpu=1, OUT_OF_MEMORY ran its 10 minutes; Timelimit 1-00:00:00 = 86400 s.
  CHECK(jobs[1].id == "101");
  CHECK(jobs[1].submit_s == 60);
  CHECK(jobs[1].duration_s == 600);
  CHECK(jobs[1].devices == 1);
  CHECK(jobs[1].gpu_types.empty());
  CHECK(jobs[1].requested_s == 86400);
  CHECK(jobs[1].trace_status == "OUT_OF_MEMORY");
  // 102_1: an array task on one MIG 1g.5gb instance of an A100: 1 of 7 slices = 143 milli.
  CHECK(jobs[2].id == "102_1");
  CHECK(jobs[2].submit_s == 120);
  CHECK(jobs[2].duration_s == 1800);
  CHECK(jobs[2].devices == 1);
  CHECK(jobs[2].gpu_milli == 143);
  CHECK(jobs[2].gpu_types == "a100");
  CHECK(jobs[2].trace_status == "TIMEOUT");
  CHECK(jobs[3].id == "102_2");
  CHECK(jobs[3].duration_s == 30);
  CHECK(jobs[3].trace_status == "FAILED");
  // 105 comes after 106+x in the file but was submitted at 12:03: put back in order.
  CHECK(jobs[4].id == "105");
  CHECK(jobs[4].submit_s == 180);
  CHECK(jobs[4].duration_s == 600);
  CHECK(jobs[4].devices == 2);
  CHECK(jobs[4].gpu_types == "v100|a100");
  CHECK(jobs[4].requested_s == 0); // UNLIMITED
  CHECK(jobs[4].trace_status == "CANCELLED");
  // 106+0 and 106+1: the components of a heterogeneous job, each a job.
  CHECK(jobs[5].id == "106+0");
  CHECK(jobs[5].submit_s == 300);
  CHECK(jobs[5].devices == 8);
  CHECK(jobs[5].trace_status == "NODE_FAIL");
  CHECK(jobs[6].id == "106+1");
  CHECK(jobs[6].devices == 2);
  CHECK(jobs[6].gpu_milli == 429); // 3g.40gb: 3 of 7 slices
  CHECK(jobs[6].gpu_types == "h100");
  CHECK(jobs[6].trace_status == "PREEMPTED");
  const auto w = r->warnings();
  REQUIRE(w.size() == 5);
  CHECK_THAT(w[0], ContainsSubstring("skipped 3 job step row(s)"));
  CHECK_THAT(w[1], ContainsSubstring("skipped 3 job(s) that had not ended when sacct ran"));
  CHECK_THAT(w[2], ContainsSubstring("skipped 1 CANCELLED job(s) that never started"));
  CHECK_THAT(w[3], ContainsSubstring("skipped 1 job(s) without a GPU"));
  CHECK_THAT(w[4], ContainsSubstring("1 row(s) were out of Submit order"));
  CHECK(r->describe() == "submit 0 = 2024-03-01T12:00:00 (the first job's Submit)");
}

TEST_CASE("sacct: the output of a real Slurm 22.05 with slurmdbd becomes the jobs slurmctld recorded",
          "[workloads][sacct]")
{
  // tests/data/workloads/sacct/README.md: made by SacctReal.sh; the expected values are slurmctld's own
  // record of the jobs (scontrol show job) and what the script submitted, not the reader's output.
  SacctOptions elapsed;
  elapsed.duration = SacctDuration::ELAPSED;
  for (const auto& options : {SacctOptions{}, elapsed}) {
    auto r = open_sacct(WORKLOADS_DATA + "sacct/slurm-22.05-slurmdbd.txt", options);
    const auto jobs = drain(*r);
    REQUIRE(jobs.size() == 6);
    struct Want {
      const char* id;
      double submit_s, duration_s;
      int devices;
      const char* state;
      double requested_s;
    };
    const Want want[] = {{"1", 0, 2, 2, "COMPLETED", 300},   {"2", 0, 1, 1, "FAILED", 0},
                         {"5_0", 0, 1, 1, "COMPLETED", 120}, {"5_1", 0, 1, 1, "COMPLETED", 120},
                         {"7", 9, 18, 1, "TIMEOUT", 60},     {"8", 9, 19, 2, "CANCELLED", 0}};
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      INFO("job " << want[i].id);
      CHECK(jobs[i].id == want[i].id);
      CHECK(jobs[i].submit_s == want[i].submit_s);
      CHECK(jobs[i].duration_s == want[i].duration_s);
      CHECK(jobs[i].devices == want[i].devices);
      CHECK(jobs[i].gpu_milli == 1000);
      CHECK(jobs[i].gpu_types == "a100"); // also for job 2, which asked for an untyped gpu:1
      CHECK(jobs[i].trace_status == want[i].state);
      CHECK(jobs[i].requested_s == want[i].requested_s);
      CHECK(jobs[i].cpus == 1);
      CHECK(jobs[i].host_mem_bytes == 0); // AllocTRES has no mem= on a node without memory accounting
      CHECK(jobs[i].user == "root");
      CHECK(jobs[i].trace_class == "debug");
      CHECK(jobs[i].qos == "normal");
    }
    CHECK(r->describe() == "submit 0 = 2026-11-29T08:13:03 (the first job's Submit)");
    // 7 .batch steps; job 3, CPU only; never started: job 4, held then cancelled (Start None), and job 9,
    // cancelled while it waited for 4 GPUs, which Slurm prints with Start = End and AllocNodes 0.
    const auto w = r->warnings();
    REQUIRE(w.size() == 3);
    CHECK_THAT(w[0], ContainsSubstring("skipped 7 job step row(s)"));
    CHECK_THAT(w[1], ContainsSubstring("skipped 2 CANCELLED job(s) that never started"));
    CHECK_THAT(w[2], ContainsSubstring("skipped 1 job(s) without a GPU"));
  }
}

TEST_CASE("sacct: an ended job with AllocNodes 0 never started, whatever its Start says",
          "[workloads][sacct]")
{
  // Slurm 22.05 prints a job cancelled while it waited (eligible) with Start = End = the time it was
  // cancelled, an empty AllocTRES and AllocNodes 0; it is counted as never started, not as a run of 0 s.
  const std::string head = "JobID|Submit|Start|End|State|AllocTRES|ReqTRES|AllocNodes\n";
  std::istringstream in(head +
                        "9|2024-03-01T00:00:00|2024-03-01T00:00:05|2024-03-01T00:00:05|CANCELLED by 0||"
                        "gres/gpu=4|0\n"
                        "10|2024-03-01T00:00:01|2024-03-01T00:00:02|2024-03-01T00:00:04|COMPLETED|gres/gpu=1|"
                        "gres/gpu=1|1\n");
  SacctReader r(in, "t.txt");
  const auto jobs = drain(r);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].id == "10");
  const auto w = r.warnings();
  REQUIRE(w.size() == 1);
  CHECK_THAT(w[0], ContainsSubstring("skipped 1 CANCELLED job(s) that never started"));
  // Without the column, the Start time decides: a run of 0 s.
  std::istringstream no_column(
      "JobID|Submit|Start|End|State|ReqTRES\n"
      "9|2024-03-01T00:00:00|2024-03-01T00:00:05|2024-03-01T00:00:05|CANCELLED|gres/gpu=4\n");
  SacctReader r2(no_column, "t.txt");
  CHECK(drain(r2).empty());
  REQUIRE(r2.warnings().size() == 1);
  CHECK_THAT(r2.warnings()[0], ContainsSubstring("skipped 1 job(s) with a run time of 0"));
}

TEST_CASE("sacct: columns in any order, found by name in any case, ReqTRES where AllocTRES is absent",
          "[workloads][sacct]")
{
  const auto jobs = read_text("state|REQTRES|end|Start|submit|jobid|user\n"
                              "COMPLETED|cpu=2,gres/gpu:l4=3|2024-01-02T00:00:05|2024-01-02T00:00:01|"
                              "2024-01-01T23:59:59|42|zoe\n");
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].id == "42");
  CHECK(jobs[0].submit_s == 0);
  CHECK(jobs[0].duration_s == 4);
  CHECK(jobs[0].devices == 3); // no untyped total: the typed counts
  CHECK(jobs[0].gpu_types == "l4");
  CHECK(jobs[0].user == "zoe");
  // An empty AllocTRES (never allocated) falls back to ReqTRES when both columns are there.
  const auto both = read_text("JobID|Submit|Start|End|State|AllocTRES|ReqTRES\n"
                              "7|1000|1000|1060|COMPLETED||gres/gpu=2\n");
  REQUIRE(both.size() == 1);
  CHECK(both[0].devices == 2);
  CHECK(both[0].duration_s == 60); // whole Unix seconds (SLURM_TIME_FORMAT=%s)
}

TEST_CASE("sacct: MIG profiles are shares of 7 slices, mixed sizes take the largest and are counted",
          "[workloads][sacct]")
{
  CHECK(with_tres("gres/gpu:a100_1g.5gb=1").at(0).gpu_milli == 143);
  CHECK(with_tres("gres/gpu:a100_2g.10gb=1").at(0).gpu_milli == 286);
  CHECK(with_tres("gres/gpu:nvidia_a100-sxm4-80gb_4g.40gb=1").at(0).gpu_milli == 571);
  CHECK(with_tres("gres/gpu:nvidia_a100-sxm4-80gb_4g.40gb=1").at(0).gpu_types == "nvidia_a100-sxm4-80gb");
  CHECK(with_tres("gres/gpu:a100_7g.40gb=1").at(0).gpu_milli == 1000);
  const auto bare = with_tres("gres/gpu:3g.20gb=2,gres/gpu=2").at(0);
  CHECK(bare.gpu_milli == 429);
  CHECK(bare.devices == 2);
  CHECK(bare.gpu_types.empty()); // no model before the profile
  // A type with '_' that is not a MIG profile is a whole GPU of that type.
  CHECK(with_tres("gres/gpu:tesla_v100=1").at(0).gpu_milli == 1000);
  CHECK(with_tres("gres/gpu:tesla_v100=1").at(0).gpu_types == "tesla_v100");
  // gres/gpumem and other gres are not GPUs.
  CHECK(with_tres("gres/gpumem=40G,gres/gpu=1").at(0).devices == 1);

  std::istringstream in(HEAD + "1|2024-03-01T00:00:00|2024-03-01T00:00:00|2024-03-01T00:01:40|COMPLETED|"
                               "gres/gpu:a100_1g.5gb=1,gres/gpu:a100_3g.20gb=1,gres/gpu=2\n");
  SacctReader r(in, "m.txt");
  const auto jobs = drain(r);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].devices == 2);
  CHECK(jobs[0].gpu_milli == 429);
  CHECK_THAT(r.warnings().at(0), ContainsSubstring("1 job(s) held GPUs of different MIG sizes"));
}

TEST_CASE("sacct: Slurm durations and the duration option", "[workloads][sacct]")
{
  const SourceLocation at{"d", 1};
  CHECK(parse_slurm_duration("1-02:03:04", at, "f") == 93784);
  CHECK(parse_slurm_duration("02:03:04", at, "f") == 7384);
  CHECK(parse_slurm_duration("90", at, "f") == 5400); // minutes
  CHECK(parse_slurm_duration("05:30", at, "f") == 330);
  CHECK(parse_slurm_duration("2-12", at, "f") == 216000);
  CHECK(parse_slurm_duration("1-02:30", at, "f") == 95400);
  CHECK(parse_slurm_duration("00:01.500", at, "f") == 1.5);
  CHECK_FALSE(parse_slurm_duration("UNLIMITED", at, "f"));
  CHECK_FALSE(parse_slurm_duration("Partition_Limit", at, "f"));
  for (const char* bad : {"1:2:3:4", "abc", "00:61:00", "1-25:00:00", "-5", "1-", "::", "1.5"})
    CHECK_THAT(input_error_of([&] { parse_slurm_duration(bad, at, "Timelimit"); }),
               ContainsSubstring("d:1: Timelimit: not a Slurm duration (got '" + std::string(bad) + "')"));

  // duration=elapsed: the Elapsed column (here shorter than End - Start: suspended for 100 s).
  const std::string text =
      "JobID|Submit|Start|End|State|AllocTRES|Elapsed\n"
      "1|2024-03-01T00:00:00|2024-03-01T00:00:00|2024-03-01T00:05:00|COMPLETED|gres/gpu=1|"
      "00:03:20\n";
  CHECK(read_text(text).at(0).duration_s == 300);
  CHECK(read_text(text, {.duration = SacctDuration::ELAPSED}).at(0).duration_s == 200);
  CHECK_THAT(error_of(HEAD, {.duration = SacctDuration::ELAPSED}),
             ContainsSubstring("t.txt:1: header: missing column(s) Elapsed (duration=elapsed)"));
}

TEST_CASE("sacct: times as sacct prints them, and bad ones named with their line and field",
          "[workloads][sacct][errors]")
{
  const SourceLocation at{"t", 3};
  CHECK(parse_sacct_time("1970-01-01T00:00:00", at, "Start") == 0);
  CHECK(parse_sacct_time("2024-03-01T12:00:00", at, "Start") == 1709294400);
  CHECK(parse_sacct_time("2024-02-29T00:00:00", at, "Start") == 1709164800); // leap day
  CHECK_FALSE(parse_sacct_time("Unknown", at, "Start"));
  CHECK_FALSE(parse_sacct_time("None", at, "Start"));
  for (const char* bad : {"2023-02-29T00:00:00", "2024-13-01T00:00:00", "2024-03-01T24:00:00",
                          "2024-03-01 12:00:00", "yesterday", "1969-12-31T23:59:59"})
    CHECK_THAT(input_error_of([&] { parse_sacct_time(bad, at, "Start"); }),
               ContainsSubstring("t:3: Start: not a"));
  CHECK_THAT(input_error_of([&] { parse_sacct_time("99999999999", at, "End"); }),
             ContainsSubstring("t:3: End: out of range"));

  CHECK_THAT(
      error_of(HEAD + "1|2024-03-01T12:00:00|2024-03-01T12:00:00|2024-03-01T12:61:00|COMPLETED|gres/gpu=1\n"),
      ContainsSubstring("t.txt:2:43: End: not a valid date and time (got '2024-03-01T12:61:00')"));
  CHECK_THAT(error_of(HEAD + "1|Unknown|2024-03-01T12:00:00|2024-03-01T12:01:00|COMPLETED|gres/gpu=1\n"),
             ContainsSubstring("t.txt:2:3: Submit: no time (got 'Unknown')"));
  CHECK_THAT(
      error_of(HEAD + "1|2024-03-01T12:00:00|2024-03-01T12:05:00|2024-03-01T12:01:00|FAILED|gres/gpu=1\n"),
      ContainsSubstring("t.txt:2:43: End: earlier than Start 2024-03-01T12:05:00"));
}

TEST_CASE("sacct: bad headers and rows are errors with file, line, field and what was expected",
          "[workloads][sacct][errors]")
{
  CHECK_THAT(error_of(""), ContainsSubstring("t.txt:1: header: the file is empty"));
  CHECK_THAT(error_of("JobID|Submit|State\n"),
             ContainsSubstring("t.txt:1: header: missing column(s) Start, End, AllocTRES or ReqTRES (got "
                               "'JobID|Submit|State')"));
  // sacct --noheader: the first row is taken for the header, which then names no column.
  CHECK_THAT(error_of("1|2024-03-01T12:00:00|2024-03-01T12:00:00|2024-03-01T12:01:00|COMPLETED|gres/gpu=1\n"),
             ContainsSubstring("sacct --noheader leaves it out"));
  CHECK_THAT(error_of("JobID|Submit|Start|End|State|AllocTRES|jobid\n"),
             ContainsSubstring("t.txt:1:40: header: column 'jobid' named twice"));
  CHECK_THAT(error_of(HEAD + "1|2024-03-01T12:00:00|2024-03-01T12:00:00|COMPLETED|gres/gpu=1\n"),
             ContainsSubstring("t.txt:2: row: wrong number of fields (got 5); expected 6"));
  const std::string row = "|2024-03-01T12:00:00|2024-03-01T12:00:00|2024-03-01T12:01:00|";
  CHECK_THAT(error_of(HEAD + "1" + row + "DONE|gres/gpu=1\n"),
             ContainsSubstring("t.txt:2:63: State: unknown job state (got 'DONE')"));
  CHECK_THAT(error_of(HEAD + row + "COMPLETED|gres/gpu=1\n"), ContainsSubstring("t.txt:2:1: JobID: empty"));
  CHECK_THAT(error_of(HEAD + "1" + row + "COMPLETED|gres/gpu=two\n"),
             ContainsSubstring("t.txt:2:73: AllocTRES: gres/gpu=two: expected a whole number of GPUs"));
  CHECK_THAT(error_of(HEAD + "1" + row + "COMPLETED|cpu=4,gres/gpu\n"),
             ContainsSubstring("AllocTRES: malformed entry 'gres/gpu'"));
  CHECK_THAT(error_of(HEAD + "1" + row + "COMPLETED|gres/gpu:a100=3,gres/gpu=2\n"),
             ContainsSubstring("AllocTRES: typed GPU counts add up to 3, more than gres/gpu=2"));
  CHECK_THAT(error_of(HEAD + "1" + row + "COMPLETED|gres/gpu:a100_8g.80gb=1\n"),
             ContainsSubstring("a MIG profile of 8 compute slices; expected 1 to 7"));
  CHECK_THAT(error_of(HEAD + "1" + row + "COMPLETED|gres/gpu=1,mem=lots\n"),
             ContainsSubstring("AllocTRES: mem=lots: expected a size"));
}

TEST_CASE("sacct: a hostile row is refused at its bound, never overflowed", "[workloads][sacct][errors]")
{
  const std::string row = "1|2024-03-01T12:00:00|2024-03-01T12:00:00|2024-03-01T12:01:00|COMPLETED|";
  CHECK_THAT(error_of(HEAD + row + "gres/gpu=99999999999999999999\n"),
             ContainsSubstring("expected a whole number of GPUs from 0 to 1048576"));
  CHECK_THAT(error_of(HEAD + row + "gres/gpu=2000000\n"),
             ContainsSubstring("expected a whole number of GPUs from 0 to 1048576"));
  CHECK_THAT(error_of(HEAD + row + "gres/gpu=1,mem=1e300G\n"), ContainsSubstring("at most 1 PiB"));
  CHECK_THAT(error_of(HEAD + row + "gres/gpu=1,cpu=nan\n"),
             ContainsSubstring("cpu=nan: expected a CPU count"));
  CHECK_THAT(
      error_of("JobID|Submit|Start|End|State|AllocTRES|Timelimit\n" + row + "gres/gpu=1|99999999-00:00:00\n"),
      ContainsSubstring("Timelimit: out of range"));
  CHECK_THAT(error_of(std::string(300, '|') + "\n"), ContainsSubstring("header: too many columns (got 301)"));
}

TEST_CASE("sacct: registered as a trace format with its options", "[workloads][sacct]")
{
  WorkloadSpec spec;
  spec.format = "sacct";
  spec.path = EXAMPLE;
  spec.options["duration"] = GivenValue{.text = "elapsed"};
  auto r = open_workload(spec);
  const auto jobs = drain(*r);
  REQUIRE(jobs.size() == 7);
  CHECK(jobs[0].duration_s == 3600);
  CHECK_THAT(r->describe(), ContainsSubstring("sacct " + EXAMPLE + " (duration=elapsed"));
  CHECK_THAT(r->describe(), ContainsSubstring("submit 0 = 2024-03-01T12:00:00"));
  spec.options["duration"] = GivenValue{.text = "wall"};
  CHECK_THAT(input_error_of([&] { open_workload(spec); }), ContainsSubstring("workload.options.duration"));
}
