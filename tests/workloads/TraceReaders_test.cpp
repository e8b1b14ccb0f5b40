// SWF and Microsoft ITP readers on real slices (tests/data/workloads/{swf,itp}/, origin in NOTICE.md) and
// on malformed input: every bad row gives file:line, the field and what was expected.
#include "tests/workloads/WorkloadsTestSupport.hpp"

#include "workloads/ItpCsvReader.hpp"
#include "workloads/SwfReader.hpp"

#include <fstream>
#include <sstream>

using namespace colocsim;
using namespace colocsim::test;

namespace {
const std::string& DIR = WORKLOADS_DATA;
} // namespace

TEST_CASE("SWF: the Theta 2022 slice reads exactly", "[workloads][swf]")
{
  auto r = open_swf(DIR + "swf/theta2022-head30.swf");
  const auto jobs = drain(*r);
  REQUIRE(jobs.size() == 30);
  // 1 1641021254 52645 10849 128 -1 -1 128 10800 -1 0 ...
  CHECK(jobs[0].id == "1");
  CHECK(jobs[0].submit_s == 1641021254);
  CHECK(jobs[0].duration_s == 10849);
  CHECK(jobs[0].devices == 128);
  CHECK(jobs[0].qos == "status=0");
  CHECK(jobs[0].origin.line == 4);
  CHECK(jobs[1].devices == 640);
  CHECK(r->warnings().empty());
}

TEST_CASE("SWF: unsorted Theta 2023 rows are replayed in order, with a warning", "[workloads][swf]")
{
  auto r = open_swf(DIR + "swf/theta2023-unsorted.swf");
  const auto jobs = drain(*r);
  REQUIRE(jobs.size() == 10);
  std::vector<std::string> ids;
  for (const auto& j : jobs)
    ids.push_back(j.id);
  CHECK(ids == std::vector<std::string>{"8393", "8392", "8395", "8396", "8398", "8397", "8394", "8399",
                                        "8400", "8401"});
  for (std::size_t i = 1; i < jobs.size(); ++i)
    CHECK(jobs[i].submit_s >= jobs[i - 1].submit_s);
  REQUIRE(r->warnings().size() == 1);
  CHECK_THAT(r->warnings()[0], ContainsSubstring("5 row(s) were out of submit order"));

  SECTION("beyond the reorder window it is an error naming the line")
  {
    std::ifstream in(DIR + "swf/theta2023-unsorted.swf");
    SwfReader small(in, "theta2023-unsorted.swf", 1, 1);
    CHECK_THAT(input_error_of([&] { drain(small); }),
               ContainsSubstring("theta2023-unsorted.swf:5: submit:") &&
                   ContainsSubstring("beyond the reorder window of 1 rows; sort the file by field 2"));
  }
}

TEST_CASE("SWF: requested processors stand in for allocated, unusable rows are skipped", "[workloads][swf]")
{
  std::ifstream in(DIR + "swf/rules.swf");
  SwfReader r(in, "rules.swf", 2);
  const auto jobs = drain(r);
  REQUIRE(jobs.size() == 2);   // job 2 has no run time
  CHECK(jobs[0].devices == 4); // allocated −1 → requested 8, 2 processors per device
  CHECK(jobs[1].devices == 3); // 6 / 2
  CHECK_THAT(r.warnings().at(0), ContainsSubstring("skipped 1 row(s)"));
}

TEST_CASE("SWF: malformed rows", "[workloads][swf][errors]")
{
  CHECK_THAT(
      input_error_of([] { drain(*open_swf(DIR + "swf/bad-number.swf")); }),
      ContainsSubstring("bad-number.swf:3: run_time: not a number (got 'abc'); expected a number or -1"));
  CHECK_THAT(input_error_of([] { drain(*open_swf(DIR + "swf/bad-fields.swf")); }),
             ContainsSubstring("bad-fields.swf:1: row: expected 18 whitespace-separated SWF fields (got 8)"));
  CHECK_THAT(input_error_of([] { open_swf(DIR + "swf/missing.swf"); }),
             ContainsSubstring("cannot open trace file"));
}

TEST_CASE("ITP: the cluster10 slice reads exactly", "[workloads][itp]")
{
  auto r = open_itp_csv(DIR + "itp/cluster10-head30.csv");
  const auto jobs = drain(*r);
  REQUIRE(jobs.size() == 30);
  // 5dc7d9cd-c300-9a4f-c3cd-dc2cc0935548,2266647,604,16
  CHECK(jobs[0].id == "5dc7d9cd-c300-9a4f-c3cd-dc2cc0935548");
  CHECK(jobs[0].submit_s == 2266647);
  CHECK(jobs[0].duration_s == 604);
  CHECK(jobs[0].devices == 16);
  CHECK(jobs[0].profile.empty()); // raw traces name no model: the scenario's default profile applies
  CHECK(jobs[0].origin.line == 2);
}

TEST_CASE("ITP: rows with equal submission times are in order (non-decreasing, not increasing)",
          "[workloads][itp]")
{
  // The cluster05 slice (100 rows) has four jobs submitted at 1884903 s, file lines 10 to 13:
  //   a373ff1b-...,1884903,24717,8 / 3332323b-...,1884903,24220,8 / 39cd0278-...,1884903,22435,8 /
  //   cbcb02f0-...,1884903,27051,8. All 100 rows are read, in file order.
  auto r = open_itp_csv(DIR + "itp/cluster05-rows1826-1925.csv");
  const auto jobs = drain(*r);
  REQUIRE(jobs.size() == 100);
  for (std::size_t i = 8; i <= 11; ++i) {
    CHECK(jobs[i].submit_s == 1884903);
    CHECK(jobs[i].origin.line == static_cast<int>(i) + 2);
  }
  CHECK(jobs[11].id == "cbcb02f0-2518-4946-fbd3-9f0f41721720");
  CHECK(jobs[11].duration_s == 27051);
}

TEST_CASE("ITP: the ElasticFlow model_name column maps to profiles", "[workloads][itp]")
{
  std::istringstream in("job_id,submission_time,duration,num_gpu,model_name,batch_size\n"
                        "x,1,10,2,resnet50,64\ny,2,10,1,vgg16,32\n");
  ItpCsvReader r(in, "ef.csv", parse_profile_map("resnet50=resnet50-train-bs32", SourceLocation{"test"}));
  const auto jobs = drain(r);
  CHECK(jobs[0].profile == "resnet50-train-bs32");
  CHECK(jobs[1].profile.empty());
  CHECK_THAT(input_error_of([] { parse_profile_map("resnet50", SourceLocation{"scenario.yaml"}); }),
             ContainsSubstring("scenario.yaml: profile_map: expected model=profile items (got 'resnet50')"));
}

TEST_CASE("ITP: malformed rows", "[workloads][itp][errors]")
{
  CHECK_THAT(input_error_of([] { drain(*open_itp_csv(DIR + "itp/bad-unsorted.csv")); }),
             ContainsSubstring("bad-unsorted.csv:3: submission_time: unsorted: 5 < previous 10"));
  CHECK_THAT(input_error_of([] { drain(*open_itp_csv(DIR + "itp/bad-gpus.csv")); }),
             ContainsSubstring("bad-gpus.csv:2: num_gpu: got '1.5'; expected a whole number >= 1"));
  CHECK_THAT(input_error_of([] { open_itp_csv(DIR + "itp/bad-header.csv"); }),
             ContainsSubstring("bad-header.csv:1: header: missing column(s) duration"));
}

TEST_CASE("ITP: numbers beyond int or long long are errors, not casts", "[workloads][itp][errors]")
{
  // Found by tests/fuzz (fuzz_itp_csv, UBSan: a double outside the range of the integer it was cast to).
  auto read_text = [](const std::string& text) {
    std::istringstream in(text);
    ItpCsvReader r(in, "big.csv");
    return drain(r);
  };
  // 3e9 GPUs is a whole number but more than int holds: the cast to Job::devices gave -2147483648; both are
  // beyond the 2^20 device bound (docs/formats/limits.md).
  CHECK_THAT(
      input_error_of([&] { read_text("job_id,submission_time,duration,num_gpu\nj1,0,10,3000000000\n"); }),
      ContainsSubstring("big.csv:2: num_gpu: got '3000000000'; expected at most 1048576 GPUs"));
  CHECK_THAT(input_error_of([&] { read_text("job_id,submission_time,duration,num_gpu\nj1,0,10,1e300\n"); }),
             ContainsSubstring("big.csv:2: num_gpu: got '1e300'; expected at most 1048576 GPUs"));
  // The unsorted message quotes the previous time as written (it printed -9223372036854775808 for 1e30).
  CHECK_THAT(input_error_of(
                 [&] { read_text("job_id,submission_time,duration,num_gpu\nj1,1e30,10,1\nj2,5,10,1\n"); }),
             ContainsSubstring("big.csv:3: submission_time: unsorted: 5 < previous 1e30; expected"));
}

TEST_CASE("the SWF and ITP format pages quote the real slices", "[workloads][docs]")
{
  for (const auto& [page, slice] : {std::pair{"swf.md", "swf/theta2022-head30.swf"},
                                    std::pair{"itp-csv.md", "itp/cluster10-head30.csv"}}) {
    std::ifstream in(DIR + slice);
    std::string head, line;
    for (int i = 0; i < 6 && std::getline(in, line); ++i)
      head += line + "\n";
    const std::string doc = colocsim::test::read_source_file(std::string("docs/formats/") + page);
    INFO(page);
    CHECK(doc.find(head) != std::string::npos);
  }
}

TEST_CASE("SWF: a canonical PWA log with its full header", "[workloads][swf]")
{
  std::ifstream in(DIR + "swf/nasa-ipsc-head20.swf");
  SwfReader r(in, "nasa.swf", SwfOptions{.devices_per_proc = 2});
  const auto jobs = drain(r);
  REQUIRE(jobs.size() == 20);
  CHECK(r.max_nodes() == 128);
  CHECK(r.max_procs() == 128);
  //     1        0     -1   1451  128     -1    -1   -1     -1    -1 -1   1   1  -1 -1 -1 -1 -1
  CHECK(jobs[0].id == "1");
  CHECK(jobs[0].duration_s == 1451);
  CHECK(jobs[0].devices == 256); // 128 processors x 2 devices each
  CHECK(jobs[0].qos == "status=-1");
  CHECK(jobs[0].origin.line == 33);
  CHECK(r.warnings().empty());
}

TEST_CASE("SWF: processors to devices rounds up, and a row with 0 allocated processors is skipped",
          "[workloads][swf]")
{
  // Fields: job submit wait run_time allocated_procs cpu mem requested_procs requested_time req_mem status
  // user group exe queue partition preceding think.
  std::istringstream in("1 0 -1 100 128 -1 -1 128 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n"
                        "2 5 -1 100 0 -1 -1 4 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n"
                        "3 9 -1 50 -1 -1 -1 7 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n");
  SwfReader r(in, "three.swf", SwfOptions{.procs_per_device = 3});
  const auto jobs = drain(r);
  // Job 1: 128 processors / 3 per device = 42.67 → 43 devices (42 would leave 2 processors out).
  // Job 2: 0 allocated processors (it did not run as logged): skipped, even though it requested 4.
  // Job 3: allocated unknown (-1), so the 7 requested count: 7 / 3 = 2.33 → 3 devices.
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].id == "1");
  CHECK(jobs[0].devices == 43);
  CHECK(jobs[1].id == "3");
  CHECK(jobs[1].devices == 3);
  REQUIRE(r.warnings().size() == 1);
  CHECK_THAT(r.warnings()[0], ContainsSubstring("skipped 1 row(s) with no run time or no processor count"));
}
