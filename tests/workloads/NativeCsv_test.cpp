// Native CSV reader and writer: exact field values of the documented example, one located error per
// malformed fixture, and writer -> reader round trips.
#include "workloads/NativeCsv.hpp"

#include "WorkloadsTestSupport.hpp"

#include <cmath>
#include <sstream>
#include <vector>

using namespace colocsim;
using Catch::Matchers::ContainsSubstring;
using colocsim::test::drain;

namespace {

const std::string& DATA = test::WORKLOADS_DATA;

std::vector<Job> read_file(const std::string& name)
{
  auto reader = open_native_csv(DATA + name);
  return drain(*reader);
}

std::vector<Job> read_text(const std::string& text, const std::string& file = "inline.csv")
{
  std::istringstream in(text);
  NativeCsvReader reader(in, file);
  return drain(reader);
}

} // namespace

TEST_CASE("native CSV: the documented example parses to exact values", "[workloads][csv]")
{
  const auto jobs = read_file("native-example.csv");
  REQUIRE(jobs.size() == 5);

  CHECK(jobs[0].id == "job-1");
  CHECK(jobs[0].submit_s == 0.0);
  CHECK(jobs[0].duration_s == 120.5);
  CHECK(jobs[0].devices == 1);
  CHECK(jobs[0].gpu_milli == 1000);
  CHECK(jobs[0].mem_request_bytes == 16e9);
  CHECK(jobs[0].profile == "resnet50-infer-bs1");
  CHECK(jobs[0].qos == "LS");
  CHECK(jobs[0].origin.line == 4);
  CHECK_THAT(jobs[0].origin.to_string(), ContainsSubstring("native-example.csv:4"));

  CHECK(jobs[1].id == "job-2");
  CHECK(jobs[1].devices == 2);
  CHECK(jobs[1].duration_s == 3600.0);
  CHECK(jobs[1].mem_request_bytes == 28.36e9);
  CHECK(jobs[1].qos == "BE");

  // A blank line is skipped but still counted.
  CHECK(jobs[2].origin.line == 7);
  CHECK(jobs[2].submit_s == 12.25);
  CHECK(jobs[2].gpu_milli == 500);
  CHECK(jobs[2].mem_request_bytes == 512.0 * 1024 * 1024);

  // Quoted id with a comma; empty optional fields take their defaults.
  CHECK(jobs[3].id == "job,4");
  CHECK(jobs[3].duration_s == 0.5);
  CHECK(jobs[3].gpu_milli == 250);
  CHECK(jobs[3].mem_request_bytes == 1073741824.0);
  CHECK(jobs[3].profile.empty());
  CHECK(jobs[3].qos.empty());

  CHECK(jobs[4].mem_request_bytes == 0.0);
  CHECK(jobs[4].profile == "stream-triad");
  CHECK(jobs[4].qos == "best \"effort\"");
}

TEST_CASE("native CSV: columns in any order, optional ones absent, spaces trimmed", "[workloads][csv]")
{
  const auto jobs = read_file("reordered.csv");
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].id == "a");
  CHECK(jobs[0].submit_s == 1.0);
  CHECK(jobs[0].duration_s == 60.0);
  CHECK(jobs[0].profile == "llama3-8b-decode-bs1");
  CHECK(jobs[0].devices == 1);
  CHECK(jobs[0].gpu_milli == 1000);
  CHECK(jobs[0].mem_request_bytes == 0.0);
  CHECK(jobs[1].id == "b");
  CHECK(jobs[1].submit_s == 2.5);
  CHECK(jobs[1].duration_s == 45.5);
  CHECK(jobs[1].profile.empty());
}

TEST_CASE("native CSV: CRLF line ends and exponent notation", "[workloads][csv]")
{
  const auto jobs = read_file("crlf.csv");
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[1].id == "w-2");
  CHECK(jobs[1].submit_s == 1000.0);
  CHECK(jobs[1].duration_s == 0.25);
}

TEST_CASE("native CSV: an empty trace after the header gives no jobs", "[workloads][csv]")
{
  CHECK(read_text("id,submit_s,duration_s\n# nothing yet\n").empty());
}

TEST_CASE("native CSV: each malformed file names file:line, the field and what was expected",
          "[workloads][csv]")
{
  struct Case {
    const char* file;
    const char* where;
    const char* field;
    const char* what;
  };
  const Case cases[] = {
      {"bad-unknown-column.csv", "bad-unknown-column.csv:1:", "header",
       "unknown column 'gpus'; valid: id, submit_s, duration_s, devices, gpu_milli, mem, profile, qos"},
      {"bad-duplicate-column.csv", "bad-duplicate-column.csv:1:", "header",
       "duplicate column 'id' (also column 1)"},
      {"bad-missing-column.csv", "bad-missing-column.csv:2:", "header",
       "missing required column 'duration_s'"},
      {"bad-field-count.csv", "bad-field-count.csv:3:", "wrong number of fields", "(got 5); expected 4"},
      {"bad-number.csv", "bad-number.csv:3:3:", "submit_s", "not a number (got 'soon'); expected"},
      {"bad-duration.csv", "bad-duration.csv:3:5:", "duration_s", "not positive (got '0'); expected"},
      {"bad-negative-duration.csv", "bad-negative-duration.csv:2:", "duration_s", "not positive (got '-5')"},
      {"bad-unsorted.csv", "bad-unsorted.csv:6:3:", "submit_s",
       "unsorted: submit_s 5 < previous 10 at line 4; expected non-decreasing submit times"},
      {"bad-gpu-milli.csv", "bad-gpu-milli.csv:3:", "gpu_milli",
       "out of range (got '1500'); expected an integer in 1..1000"},
      {"bad-devices.csv", "bad-devices.csv:2:", "devices",
       "out of range (got '0'); expected an integer >= 1"},
      {"bad-mem.csv", "bad-mem.csv:2:", "mem", "not a size (got '16 gigs'); expected a size"},
      {"bad-quote.csv", "bad-quote.csv:2:8:", "profile", "unterminated quoted field"},
      {"bad-empty-id.csv", "bad-empty-id.csv:2:", "id", "empty (got ''); expected a non-empty job id"},
      {"no-header.csv", "no-header.csv", "header", "no header row"},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    REQUIRE_THROWS_AS(read_file(c.file), InputError);
    REQUIRE_THROWS_WITH(read_file(c.file), ContainsSubstring(c.where) && ContainsSubstring(c.field) &&
                                               ContainsSubstring(c.what));
  }
}

TEST_CASE("native CSV: the rows before a bad one are delivered first", "[workloads][csv]")
{
  auto reader = open_native_csv(DATA + "bad-unsorted.csv");
  REQUIRE(reader->next()->id == "a");
  REQUIRE(reader->next()->id == "b");
  REQUIRE_THROWS_AS(reader->next(), InputError);
}

TEST_CASE("native CSV: all problems of one row are reported together", "[workloads][csv]")
{
  try {
    read_text("id,submit_s,duration_s,gpu_milli\nx,-1,abc,0\n", "multi.csv");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 3);
    CHECK(e.diagnostics()[0].path == "submit_s");
    CHECK(e.diagnostics()[1].path == "duration_s");
    CHECK(e.diagnostics()[2].path == "gpu_milli");
    CHECK(e.diagnostics()[2].where.to_string() == "multi.csv:2:10");
  }
}

TEST_CASE("native CSV: a missing file is an InputError naming the path", "[workloads][csv]")
{
  REQUIRE_THROWS_WITH(open_native_csv(DATA + "does-not-exist.csv"),
                      ContainsSubstring("does-not-exist.csv") && ContainsSubstring("cannot open"));
}

TEST_CASE("native CSV: writer -> reader round-trips every field exactly", "[workloads][csv]")
{
  std::vector<Job> jobs(6);
  jobs[0] = Job{"plain", 0.0, 1.0, 1, 1000, 0.0, "resnet50-infer-bs1", "LS", {}};
  jobs[1] = Job{"with,comma", 0.1, 1.0 / 3.0, 8, 1, 16e9, "p,q", "say \"hi\"", {}};
  jobs[2] = Job{"#not-a-comment", 0.1 + 0.2, 86400.0 * 365, 2, 470, 512.0 * 1024 * 1024 + 0.5, "", "", {}};
  jobs[3] = Job{" spaced ", 1e-300 + 1.0, 1e-9, 1, 999, 1e300, " a ", "b ", {}};
  jobs[4] = Job{"big", 12902960.123456789, 6.02214076e23, 64, 1000, 9007199254740993.0, "x", "", {}};
  jobs[5] = Job{"last", 12902960.123456789, std::nextafter(1.0, 2.0), 1, 1000, 3.0, "y", "BE", {}};
  jobs[1].user = "alice, bob";
  jobs[1].trace_status = "completed";
  jobs[1].cpus = 0.25;
  jobs[1].host_mem_bytes = 64e9;
  jobs[5].depends_on = {"plain", "with,comma"};
  jobs[5].think_time_s = 0.5;
  jobs[4].gpu_types = "T4|V100M16";
  jobs[3].batch_size = 64;

  std::ostringstream out;
  NativeCsvWriter writer(out);
  for (const auto& j : jobs)
    writer.write(j);
  CHECK(writer.rows_written() == jobs.size());
  CHECK(out.str().rfind(
            "id,submit_s,duration_s,devices,gpu_milli,mem,profile,qos,user,status,cpus,host_mem,depends_on,"
            "think_time_s,gpu_types,batch_size\n",
            0) == 0);

  const auto back = read_text(out.str(), "roundtrip.csv");
  REQUIRE(back.size() == jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    INFO("job " << i << ": " << jobs[i].id);
    CHECK(back[i].id == jobs[i].id);
    CHECK(back[i].submit_s == jobs[i].submit_s);
    CHECK(back[i].duration_s == jobs[i].duration_s);
    CHECK(back[i].devices == jobs[i].devices);
    CHECK(back[i].gpu_milli == jobs[i].gpu_milli);
    CHECK(back[i].batch_size == jobs[i].batch_size);
    CHECK(back[i].mem_request_bytes == jobs[i].mem_request_bytes);
    CHECK(back[i].profile == jobs[i].profile);
    CHECK(back[i].qos == jobs[i].qos);
    CHECK(back[i].user == jobs[i].user);
    CHECK(back[i].trace_status == jobs[i].trace_status);
    CHECK(back[i].cpus == jobs[i].cpus);
    CHECK(back[i].host_mem_bytes == jobs[i].host_mem_bytes);
    CHECK(back[i].depends_on == jobs[i].depends_on);
    CHECK(back[i].think_time_s == jobs[i].think_time_s);
    CHECK(back[i].gpu_types == jobs[i].gpu_types);
    CHECK(back[i].origin.line == static_cast<int>(i) + 2);
  }
}

TEST_CASE("native CSV: the writer refuses what the format cannot hold", "[workloads][csv]")
{
  std::ostringstream out;
  NativeCsvWriter writer(out);
  Job job{"a", 0, 1, 1, 1000, 0, "two\nlines", "", {}};
  CHECK_THROWS_AS(writer.write(job), std::invalid_argument);
  job.profile = "ok";
  job.id.clear();
  CHECK_THROWS_AS(writer.write(job), std::invalid_argument);
}

TEST_CASE("native CSV: the column table matches the writer's header", "[workloads][csv]")
{
  std::ostringstream out;
  NativeCsvWriter writer(out);
  std::string header;
  for (const auto& c : native_csv_columns())
    header += (header.empty() ? "" : ",") + c.name;
  CHECK(out.str() == header + "\n");
  CHECK(native_csv_columns().size() == 16);
}

TEST_CASE("native CSV: batch_size is read, optional, and checked", "[workloads][csv][mig]")
{
  const auto jobs = read_text("id,submit_s,duration_s,batch_size\na,0,1,8\nb,0,1,\nc,0,1,0\nd,0,1,1048576\n");
  REQUIRE(jobs.size() == 4);
  CHECK(jobs[0].batch_size == 8);
  CHECK(jobs[1].batch_size == 0); // empty: not stated
  CHECK(jobs[2].batch_size == 0);
  CHECK(jobs[3].batch_size == 1048576);
  CHECK(read_text("id,submit_s,duration_s\na,0,1\n").at(0).batch_size == 0); // no column: not stated
  REQUIRE_THROWS_WITH(read_text("id,submit_s,duration_s,batch_size\na,0,1,1048577\n", "b.csv"),
                      ContainsSubstring("b.csv:2:7: batch_size: out of range (got '1048577'); expected an "
                                        "integer in 0..1048576"));
  REQUIRE_THROWS_WITH(read_text("id,submit_s,duration_s,batch_size\na,0,1,big\n", "b.csv"),
                      ContainsSubstring("b.csv:2:7: batch_size: not an integer (got 'big')"));
  REQUIRE_THROWS_WITH(read_text("id,submit_s,duration_s,batch_size\na,0,1,-2\n", "b.csv"),
                      ContainsSubstring("b.csv:2:7: batch_size: out of range (got '-2')"));
}

TEST_CASE("native CSV: the format page shows the tested example", "[workloads][csv][docs]")
{
  const std::string page = test::slurp(std::string(COLOCSIM_SOURCE_DIR) + "/docs/formats/native-csv.md");
  CHECK(page.find(test::slurp(DATA + "native-example.csv")) != std::string::npos);
}

TEST_CASE("native CSV: dependencies, think time and the host request are read and checked",
          "[workloads][csv]")
{
  const auto jobs = read_text("id,submit_s,duration_s,user,status,cpus,host_mem,depends_on,think_time_s\n"
                              "a,0,10,u1,completed,8,64GB,,\n"
                              "b,0,10,,,,,a,30\n"
                              "c,5,10,,,,,a|b,\n",
                              "deps.csv");
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].user == "u1");
  CHECK(jobs[0].trace_status == "completed");
  CHECK(jobs[0].cpus == 8);
  CHECK(jobs[0].host_mem_bytes == 64e9);
  CHECK(jobs[0].depends_on.empty());
  CHECK(jobs[1].depends_on == std::vector<std::string>{"a"});
  CHECK(jobs[1].think_time_s == 30);
  CHECK(jobs[2].depends_on == std::vector<std::string>{"a", "b"});
  CHECK(jobs[2].think_time_s == 0);

  auto error = [](const std::string& row) {
    try {
      read_text("id,submit_s,duration_s,cpus,depends_on,think_time_s\n" + row + "\n", "bad.csv");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error("a,0,10,,a,"), ContainsSubstring("bad.csv:2:9: depends_on: the job depends on itself"));
  CHECK_THAT(error("a,0,10,,x||y,"), ContainsSubstring("depends_on: empty job id"));
  CHECK_THAT(error("a,0,10,,,5"),
             ContainsSubstring("think_time_s: a think time without depends_on (got '5')"));
  CHECK_THAT(error("a,0,10,-1,,"), ContainsSubstring("bad.csv:2:8: cpus: not a number >= 0 (got '-1')"));
}

TEST_CASE("native CSV: gpu_types are read and checked", "[workloads][csv]")
{
  const auto jobs = read_text("id,submit_s,duration_s,gpu_types\na,0,10,T4|V100M16\nb,0,10,\n", "types.csv");
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].gpu_types == "T4|V100M16");
  CHECK(jobs[1].gpu_types.empty());
  for (const std::string bad : {"T4||P100", "|T4", "T4|", "T4 |P100"}) {
    INFO(bad);
    REQUIRE_THROWS_WITH(read_text("id,submit_s,duration_s,gpu_types\na,0,10," + bad + "\n", "types.csv"),
                        ContainsSubstring("types.csv:2:8: gpu_types: an empty or blank type name (got '" +
                                          bad + "'); expected device type names separated by '|'"));
  }
}
