// Batsim JSON workloads on Batsim's own example files (tests/data/workloads/batsim/, origin in NOTICE.md),
// the streaming JSON parser underneath, and malformed input.
#include "tests/workloads/WorkloadsTestSupport.hpp"

#include "workloads/BatsimReader.hpp"
#include "workloads/JsonStream.hpp"

#include <fstream>
#include <sstream>

using namespace colocsim;
using namespace colocsim::test;

namespace {
const std::string BATSIM = WORKLOADS_DATA + "batsim/";
} // namespace

TEST_CASE("JSON stream: walks nested values and decodes strings", "[workloads][json]")
{
  std::istringstream in(R"({"a": [1, -2.5e3, true, null, {"k": "x\"y\u00e9\ud83d\ude00"}], "b": {}})");
  JsonStream j(in, "t.json");
  std::string key;
  j.begin_object();
  REQUIRE(j.next_member(key));
  CHECK(key == "a");
  j.begin_array();
  REQUIRE(j.next_element());
  CHECK(j.number_value() == 1);
  REQUIRE(j.next_element());
  CHECK(j.number_value() == -2500);
  REQUIRE(j.next_element());
  CHECK(j.bool_value());
  REQUIRE(j.next_element());
  CHECK(j.scalar_text() == "null");
  REQUIRE(j.next_element());
  j.begin_object();
  REQUIRE(j.next_member(key));
  CHECK(j.string_value() == "x\"y\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(!j.next_member(key));
  CHECK(!j.next_element());
  REQUIRE(j.next_member(key));
  CHECK(key == "b");
  j.skip_value();
  CHECK(!j.next_member(key));
  j.expect_end();

  std::istringstream bad("{\n  \"a\": [1 2]\n}");
  JsonStream k(bad, "bad.json");
  CHECK_THAT(input_error_of([&] { k.skip_value(); }),
             ContainsSubstring("bad.json:2:11: json: expected ',' or ']' after an array element (got '2')"));
}

TEST_CASE("Batsim: delay jobs replay with their delays", "[workloads][batsim]")
{
  auto r = open_batsim(BATSIM + "test_delays.json");
  const auto jobs = drain(*r);
  REQUIRE(jobs.size() == 10);
  // {"id":0, "subtime": 0, "walltime": 100, "res": 1, "profile": "delay10"}
  CHECK(jobs[0].id == "0");
  CHECK(jobs[0].submit_s == 0);
  CHECK(jobs[0].duration_s == 10);
  CHECK(jobs[0].devices == 1);
  CHECK(jobs[0].trace_class == "delay10");
  CHECK(jobs[0].origin.line == 4);
  CHECK(jobs[0].origin.col == 9);
  CHECK(jobs[9].submit_s == 27);
  CHECK(r->warnings().empty());
}

TEST_CASE("Batsim: every profile type of Batsim's documentation example", "[workloads][batsim]")
{
  std::ifstream in(BATSIM + "test_various_profile_types.json", std::ios::binary);
  BatsimReader r(in, "various.json");
  CHECK(r.nb_res() == 4);
  CHECK(r.profile_duration("delay").value_or(0) == 20.2);
  CHECK(
      !r.profile_duration("sequence").has_value()); // a sequence of parallel tasks: set by Batsim's platform
  const auto jobs = drain(r);
  REQUIRE(jobs.size() == 9);
  std::vector<std::string> ids;
  for (const auto& j : jobs)
    ids.push_back(j.id);
  // subtimes 0, 1, 30, 10, 20, 20, 32, 15, 15 in the file: replayed in submit order, ties in file order
  CHECK(ids == std::vector<std::string>{"delay", "simple", "homo", "2_resources", "4_resources",
                                        "homo_no_cpu", "homo_no_com", "reach_walltime", "seq"});
  CHECK(jobs[0].duration_s == 20.2);
  CHECK(jobs[1].duration_s == 100); // parallel: its walltime
  CHECK(jobs[3].devices == 2);
  CHECK(jobs[3].duration_s == 30);
  CHECK(jobs[7].duration_s == 1);
  const auto w = r.warnings();
  REQUIRE(w.size() == 5);
  CHECK_THAT(w[0],
             ContainsSubstring("1 job(s) with profiles of type composed (run time set by Batsim's platform) "
                               "ran for their walltime"));
  CHECK_THAT(w[1], ContainsSubstring("2 job(s) with profiles of type parallel "));
  CHECK_THAT(w[2], ContainsSubstring("3 job(s) with profiles of type parallel_homogeneous "));
  CHECK_THAT(w[3], ContainsSubstring("2 job(s) with profiles of type parallel_homogeneous_total "));
  CHECK_THAT(w[4], ContainsSubstring("5 job(s) were out of subtime order and were replayed in order"));
}

TEST_CASE("Batsim: options scale resources and pick the walltime rule", "[workloads][batsim]")
{
  auto r = open_batsim(BATSIM + "test_delays.json",
                       BatsimOptions{.duration = BatsimDurationRule::WALLTIME, .devices_per_res = 12});
  const auto jobs = drain(*r);
  CHECK(jobs[0].duration_s == 100);
  CHECK(jobs[0].devices == 12);
}

TEST_CASE("Batsim: malformed workloads", "[workloads][batsim][errors]")
{
  CHECK_THAT(
      input_error_of([] { open_batsim(BATSIM + "bad-syntax.json"); }),
      ContainsSubstring("bad-syntax.json:5:9: json: expected ',' or ']' after an array element (got '{')"));
  CHECK_THAT(input_error_of([] { drain(*open_batsim(BATSIM + "bad-res.json")); }),
             ContainsSubstring("bad-res.json:5:56: jobs[1].res: not a whole number >= 1 (got 1.5"));
  CHECK_THAT(
      input_error_of([] { drain(*open_batsim(BATSIM + "bad-profile.json")); }),
      ContainsSubstring("bad-profile.json:5:53: jobs[1].profile: unknown profile 'delay20'; expected a name "
                        "from \"profiles\""));
  CHECK_THAT(input_error_of([] { drain(*open_batsim(BATSIM + "bad-no-walltime.json")); }),
             ContainsSubstring(
                 "bad-no-walltime.json:4:9: jobs[0].walltime: profile 'homogeneous' is of type "
                 "parallel_homogeneous, whose run time depends on Batsim's platform, and the job has no "
                 "walltime"));
  std::istringstream no_jobs(R"({"nb_res": 1, "profiles": {}})");
  CHECK_THAT(input_error_of([&] { BatsimReader r(no_jobs, "w.json"); }),
             ContainsSubstring("w.json:1:1: jobs: missing; expected a \"jobs\" array"));
  std::istringstream bad_seq(R"({"jobs": [], "profiles": {"s": {"type": "composed", "seq": ["nope"]}}})");
  CHECK_THAT(input_error_of([&] { BatsimReader r(bad_seq, "w.json"); }),
             ContainsSubstring("profiles.s.seq: unknown profile 'nope'"));
}

// Found by `scripts/fuzz.sh 10m` (the batsim harness, 24 inputs): an nb_res or a profile's repeat beyond a
// long long's range was converted to one (undefined behaviour, UBSan stops there). Both are bounded before
// the conversion: nb_res by the job device bound 2^20 = 1,048,576, repeat by 1e10.
TEST_CASE("Batsim: nb_res and repeat beyond their bounds are refused before conversion",
          "[workloads][batsim][errors]")
{
  std::istringstream huge_res(R"({"nb_res": 2055555555555555555555555, "jobs": [], "profiles": {}})");
  CHECK_THAT(input_error_of([&] { BatsimReader r(huge_res, "w.json"); }),
             ContainsSubstring("w.json:1:12: nb_res: too large (got 2.05556e+24); expected a whole number in "
                               "[0, 1048576]"));
  std::istringstream max_res(R"({"nb_res": 1048576, "jobs": [], "profiles": {}})");
  CHECK_NOTHROW([&] { BatsimReader r(max_res, "w.json"); }());
  std::istringstream huge_repeat(
      R"({"nb_res": 1, "jobs": [], "profiles": {"s": {"type": "composed", "repeat": 7.77778e33, "seq": []}}})");
  CHECK_THAT(input_error_of([&] { BatsimReader r(huge_repeat, "w.json"); }),
             ContainsSubstring(
                 "profiles.s.repeat: too large (got 7.77778e+33); expected a whole number in [1, 1e10]"));
}
