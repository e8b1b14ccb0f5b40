// Every trace reader on hostile input: nesting that would overflow the stack, lines without end, paths that
// are not regular files, and the three line-end conventions. Each case ends in an InputError that says where,
// never a crash, a hang or a silently wrong workload.
#include "tests/workloads/WorkloadsTestSupport.hpp"

#include "workloads/BatsimReader.hpp"
#include "workloads/CsvLines.hpp"
#include "workloads/ItpCsvReader.hpp"
#include "workloads/JsonStream.hpp"
#include "workloads/KubernetesReader.hpp"
#include "workloads/NativeCsv.hpp"
#include "workloads/NodeInventory.hpp"
#include "workloads/OpenbReader.hpp"
#include "workloads/PaiReader.hpp"
#include "workloads/SacctReader.hpp"
#include "workloads/SwfReader.hpp"
#include "workloads/TraceFormats.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace colocsim;
using Catch::Matchers::ContainsSubstring;
using namespace colocsim::test;
namespace fs = std::filesystem;

namespace {
/// The documented bound on a line and on a JSON string or number (docs/formats/limits.md): 1 MiB.
constexpr std::size_t MIB = std::size_t{1} << 20;

/// `text` with every "\n" replaced by `eol`.
std::string with_line_ends(const std::string& text, const std::string& eol)
{
  std::string out;
  for (char c : text)
    if (c == '\n')
      out += eol;
    else
      out += c;
  return out;
}

fs::path temp_dir(const std::string& name)
{
  auto d = fs::temp_directory_path() / ("colocsim-hardening-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
} // namespace

TEST_CASE("Batsim: 100000 nested arrays are an error at the byte offset and not a stack overflow",
          "[workloads][batsim][errors]")
{
  // `{"nb_res":4,"jobs":` is 19 bytes (offsets 0..18); the k-th '[' is at offset 18 + k. The workload
  // object is level 1, so the k-th '[' opens level k + 1, and the first one past 64 is k = 64: offset 82,
  // column 83 of line 1.
  const std::string deep =
      "{\"nb_res\":4,\"jobs\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  std::istringstream in(deep);
  const auto error = input_error_of([&] { BatsimReader r(in, "deep.json"); });
  CHECK_THAT(error, ContainsSubstring("deep.json:1:83: json: objects and arrays nested more than 64 deep"));
  CHECK_THAT(error, ContainsSubstring("at byte offset 82"));

  // 64 levels are accepted: the workload object and 63 arrays (the jobs array holds 62 more, empty).
  const std::string ok =
      "{\"nb_res\":4,\"profiles\":{},\"jobs\":[" + std::string(62, '[') + std::string(62, ']') + "]}";
  std::istringstream in_ok(ok);
  JsonStream j(in_ok, "ok.json");
  CHECK_NOTHROW(j.skip_value());
}

TEST_CASE("JSON stream: a string or number longer than 1 MiB is an error", "[workloads][json][errors]")
{
  std::istringstream s("{\"k\": \"" + std::string(MIB + 1, 'a') + "\"}");
  JsonStream j(s, "long.json");
  // 7 bytes before the string's first character ({"k": "), then 1 MiB of 'a': the first byte past the
  // bound is at offset 7 + 2^20 = 1048583, column 1048584.
  const auto error = input_error_of([&] { j.skip_value(); });
  CHECK_THAT(error, ContainsSubstring("long.json:1:1048584: json: string longer than 1048576 bytes"));
  CHECK_THAT(error, ContainsSubstring("at byte offset 1048583"));
  std::istringstream n("[" + std::string(MIB + 1, '1') + "]");
  JsonStream k(n, "num.json");
  CHECK_THAT(input_error_of([&] { k.skip_value(); }), ContainsSubstring("number longer than 1048576 bytes"));
}

TEST_CASE("every line reader stops at a line longer than 1 MiB and names its line", "[workloads][errors]")
{
  const std::string huge(MIB + 1, 'x');
  {
    std::istringstream in("id,submit_s,duration_s\n" + huge + "\n");
    NativeCsvReader r(in, "n.csv");
    CHECK_THAT(input_error_of([&] { drain(r); }),
               ContainsSubstring("n.csv:2: line longer than 1048576 bytes"));
  }
  {
    std::istringstream in("; comment\n" + huge);
    SwfReader r(in, "s.swf");
    CHECK_THAT(input_error_of([&] { drain(r); }),
               ContainsSubstring("s.swf:2: line longer than 1048576 bytes"));
  }
  {
    std::istringstream in("job_id,submission_time,duration,num_gpu\n" + huge);
    ItpCsvReader r(in, "i.csv");
    CHECK_THAT(input_error_of([&] { drain(r); }),
               ContainsSubstring("i.csv:2: line longer than 1048576 bytes"));
  }
  {
    std::istringstream in(huge);
    CHECK_THAT(input_error_of([&] { ItpCsvReader r(in, "h.csv"); }),
               ContainsSubstring("h.csv:1: line longer than 1048576 bytes"));
  }
  {
    std::istringstream in(huge);
    CHECK_THAT(input_error_of([&] { OpenbPodReader r(in, "o.csv"); }),
               ContainsSubstring("o.csv:1: line longer than 1048576 bytes"));
  }
  {
    std::istringstream in("\n\n" + huge);
    PaiReader r(in, "p.csv");
    CHECK_THAT(input_error_of([&] { drain(r); }),
               ContainsSubstring("p.csv:3: line longer than 1048576 bytes"));
  }
  {
    std::istringstream in("JobID|Submit|Start|End|State|AllocTRES\n" + huge);
    SacctReader r(in, "a.txt");
    CHECK_THAT(input_error_of([&] { drain(r); }),
               ContainsSubstring("a.txt:2: line longer than 1048576 bytes"));
  }
  {
    std::istringstream in(huge);
    CHECK_THAT(input_error_of([&] { read_openb_nodes(in, "nodes.csv"); }),
               ContainsSubstring("nodes.csv:1: line longer than 1048576 bytes"));
  }
  // Exactly 1 MiB is still a line (it fails later, as a row with the wrong number of fields).
  std::istringstream in("id,submit_s,duration_s\n" + std::string(MIB, 'x') + "\n");
  NativeCsvReader r(in, "n.csv");
  const auto error = input_error_of([&] { drain(r); });
  CHECK_THAT(error, ContainsSubstring("n.csv:2: wrong number of fields (got 1)"));
}

TEST_CASE("a trace path that is not a regular file is refused by name", "[workloads][errors]")
{
  const auto dir = temp_dir("not-regular");
  const std::string d = dir.string();
  CHECK_THAT(
      input_error_of([&] { drain(*open_native_csv(d)); }),
      ContainsSubstring(d + ": cannot read trace file: the path is a directory; expected a regular file"));
  CHECK_THAT(input_error_of([&] { drain(*open_swf(d)); }), ContainsSubstring("the path is a directory"));
  CHECK_THAT(input_error_of([&] { drain(*open_itp_csv(d)); }), ContainsSubstring("the path is a directory"));
  CHECK_THAT(input_error_of([&] { drain(*open_openb(d)); }), ContainsSubstring("the path is a directory"));
  CHECK_THAT(input_error_of([&] { drain(*open_pai(d)); }), ContainsSubstring("the path is a directory"));
  CHECK_THAT(input_error_of([&] { drain(*open_batsim(d)); }), ContainsSubstring("the path is a directory"));
  CHECK_THAT(input_error_of([&] { drain(*open_kubernetes(d)); }),
             ContainsSubstring("the path is a directory"));
  CHECK_THAT(input_error_of([&] { load_openb_nodes(d); }),
             ContainsSubstring("cannot read node table: the path is a directory"));
  CHECK_THAT(input_error_of([&] { drain(*open_native_csv("/dev/zero")); }),
             ContainsSubstring("/dev/zero: cannot read trace file: the path is a character device"));
  const std::string fifo = (dir / "fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(input_error_of([&] { drain(*open_swf(fifo)); }),
             ContainsSubstring("the path is a FIFO (named pipe); expected a regular file"));
  fs::remove_all(dir);
}

TEST_CASE("every reader accepts LF and CRLF and CR line ends alike", "[workloads]")
{
  struct Case {
    const char* file;
    std::size_t jobs; // as asserted by the format's own tests on the "\n" file
    std::function<std::unique_ptr<JobReader>(std::istream&)> open;
  };
  const std::vector<Case> cases{
      {"native-example.csv", 5, [](std::istream& in) { return std::make_unique<NativeCsvReader>(in, "f"); }},
      {"swf/theta2022-head30.swf", 30, [](std::istream& in) { return std::make_unique<SwfReader>(in, "f"); }},
      {"itp/cluster10-head30.csv", 30,
       [](std::istream& in) { return std::make_unique<ItpCsvReader>(in, "f"); }},
      {"openb/default-head100.csv", 89,
       [](std::istream& in) { return std::make_unique<OpenbPodReader>(in, "f"); }},
      {"pai/pai_task_table.synthetic.csv", 5,
       [](std::istream& in) { return std::make_unique<PaiReader>(in, "f"); }},
      {"sacct/example.txt", 7, [](std::istream& in) { return std::make_unique<SacctReader>(in, "f"); }},
      {"batsim/test_delays.json", 10,
       [](std::istream& in) { return std::make_unique<BatsimReader>(in, "f"); }},
      {"kubernetes/pods.json", 7,
       [](std::istream& in) { return std::make_unique<KubernetesReader>(in, "f"); }},
  };
  for (const auto& c : cases) {
    const std::string text = test::slurp(WORKLOADS_DATA + c.file);
    std::istringstream lf_in(text);
    const auto lf = drain(*c.open(lf_in));
    REQUIRE(lf.size() == c.jobs);
    for (const std::string eol : {"\r\n", "\r"}) {
      INFO(c.file << " with " << (eol == "\r" ? "CR" : "CRLF") << " line ends");
      std::istringstream in(with_line_ends(text, eol));
      const auto jobs = drain(*c.open(in));
      REQUIRE(jobs.size() == lf.size());
      for (std::size_t i = 0; i < jobs.size(); ++i) {
        CHECK(jobs[i].id == lf[i].id);
        CHECK(jobs[i].submit_s == lf[i].submit_s);
        CHECK(jobs[i].duration_s == lf[i].duration_s);
        CHECK(jobs[i].devices == lf[i].devices);
        CHECK(jobs[i].origin.line == lf[i].origin.line);
      }
    }
  }
  // A "\r\n" split across the line reader's 64 KiB blocks is one line end: the row is on line 2.
  const std::string pad = "; " + std::string(65535 - 2, 'x');
  std::istringstream split(pad + "\r\n1 0 -1 100 8 -1 -1 8 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\r\n");
  SwfReader sr(split, "split.swf");
  const auto split_jobs = drain(sr);
  REQUIRE(split_jobs.size() == 1);
  CHECK(split_jobs[0].origin.line == 2);

  // A bad value on line 3 of a CR-only file is reported on line 3.
  std::istringstream swf(
      with_line_ends("; a\n; b\n1 0 -1 abc 4 -1 -1 4 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n", "\r"));
  SwfReader r(swf, "cr.swf");
  CHECK_THAT(input_error_of([&] { drain(r); }), ContainsSubstring("cr.swf:3: run_time: not a number"));
  std::istringstream json(with_line_ends("{\n\"nb_res\": 1,\n\"jobs\": 5}", "\r"));
  CHECK_THAT(input_error_of([&] { BatsimReader b(json, "cr.json"); }),
             ContainsSubstring("cr.json:3:9: jobs: expected an array"));
}

TEST_CASE("a workload that yields no job is an error naming what removed the rows", "[workloads][errors]")
{
  const auto dir = temp_dir("empty");
  auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = (dir / name).string();
    std::ofstream(path) << text;
    return path;
  };
  auto run = [](WorkloadSpec spec) { return input_error_of([&] { drain(*open_workload(spec)); }); };

  // Only the header row.
  WorkloadSpec header_only{.format = "native", .path = write("header.csv", "id,submit_s,duration_s\n")};
  CHECK_THAT(run(header_only),
             ContainsSubstring("header.csv: workload: no job to replay (the trace has no job "
                               "rows); read as native "));

  // Both rows cancelled (SWF status 5), replayed with status=not-cancelled: the reader's count says so.
  WorkloadSpec cancelled{.format = "swf",
                         .path =
                             write("cancelled.swf", "1 0 -1 100 8 -1 -1 8 -1 -1 5 -1 -1 -1 -1 -1 -1 -1\n"
                                                    "2 10 -1 50 8 -1 -1 8 -1 -1 5 -1 -1 -1 -1 -1 -1 -1\n")};
  cancelled.options["status"] = GivenValue{"not-cancelled", SourceLocation{"s.yaml", 3, 5}};
  CHECK_THAT(run(cancelled), ContainsSubstring("no job to replay (" + cancelled.path +
                                               ": skipped 2 row(s) by their status (status=not-cancelled))"));

  // A window after the trace: the 5 jobs of the example were submitted at 0..30 s, all before 1 day.
  WorkloadSpec late{
      .format = "native", .path = WORKLOADS_DATA + "native-example.csv", .transforms = "window=1d.."};
  late.where = SourceLocation{"scenario.yaml", 7, 3};
  CHECK_THAT(run(late), ContainsSubstring("scenario.yaml:7:3: workload: no job to replay"));
  CHECK_THAT(run(late), ContainsSubstring("window 86400.. s (kept 0, 5 before)"));

  // One job is enough.
  WorkloadSpec one{.format = "native", .path = write("one.csv", "id,submit_s,duration_s\na,0,1\n")};
  auto reader = open_workload(one);
  CHECK(drain(*reader).size() == 1);
  fs::remove_all(dir);
}

TEST_CASE("device counts beyond 2^20 are refused before they overflow an int", "[workloads][errors]")
{
  std::istringstream itp("job_id,submission_time,duration,num_gpu\nx,0,10,2000000\n");
  ItpCsvReader i(itp, "i.csv");
  CHECK_THAT(input_error_of([&] { drain(i); }),
             ContainsSubstring("i.csv:2: num_gpu: got '2000000'; expected at most 1048576 GPUs"));
  std::istringstream batsim(R"({"nb_res": 4, "profiles": {"d": {"type": "delay", "delay": 10}},
    "jobs": [{"id": 1, "subtime": 0, "res": 1e10, "profile": "d"}]})");
  BatsimReader b(batsim, "b.json");
  CHECK_THAT(
      input_error_of([&] { drain(b); }),
      ContainsSubstring("b.json:2:45: jobs[0].res: too many resources (got 10000000000.000000): more than "
                        "1048576 devices"));
  // 600000 instances x 2 GPUs each (plan_gpu 200 %) = 1.2e6 devices.
  std::istringstream pai("j,t,600000,Terminated,0,10,600,29,200,V100\n");
  PaiReader p(pai, "p.csv");
  CHECK_THAT(
      input_error_of([&] { drain(p); }),
      ContainsSubstring("p.csv:1:35: plan_gpu: inst_num x GPUs per instance is more than 1048576 devices "
                        "(got 600000 x 200 %)"));
  // 2^20 itself is allowed.
  std::istringstream ok("job_id,submission_time,duration,num_gpu\nx,0,10,1048576\n");
  ItpCsvReader k(ok, "k.csv");
  CHECK(drain(k).at(0).devices == 1048576);
}

TEST_CASE("every trace format words its open errors the same way", "[workloads][errors]")
{
  // One file-owning reader (workloads/OwningReader.hpp) opens every format's file, so a missing file and a
  // directory give the same message whatever the format, naming the path (open_input_file's wording).
  const auto dir = temp_dir("open-errors");
  const std::string missing = (dir / "no-such-trace").string();
  const std::string d = dir.string();
  REQUIRE(trace_formats().size() >= 6);
  for (const auto& format : trace_formats()) {
    INFO("format " << format.name);
    WorkloadSpec spec;
    spec.format = format.name;
    spec.path = missing;
    CHECK(input_error_of([&] { drain(*open_workload(spec)); }) ==
          missing + ": cannot open trace file (No such file or directory); expected a readable file");
    spec.path = d;
    CHECK(
        input_error_of([&] { drain(*open_workload(spec)); }) ==
        d + ": cannot read trace file: the path is a directory; expected a regular file (save a stream to a "
            "file first)");
  }
  fs::remove_all(dir);
}
