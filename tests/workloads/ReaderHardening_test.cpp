// Every trace reader on hostile input: nesting that would overflow the stack, lines without end, paths that
// are not regular files, and the three line-end conventions. Each case ends in an InputError that says where,
// never a crash, a hang or a silently wrong workload.
#include "tests/workloads/WorkloadsTestSupport.hpp"

#include "workloads/BatsimReader.hpp"
#include "workloads/CsvLines.hpp"
#include "workloads/ItpCsvReader.hpp"
#include "workloads/JsonStream.hpp"
#include "workloads/NativeCsv.hpp"
#include "workloads/NodeInventory.hpp"
#include "workloads/OpenbReader.hpp"
#include "workloads/PaiReader.hpp"
#include "workloads/SwfReader.hpp"

#include <filesystem>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace colocsim;
using Catch::Matchers::ContainsSubstring;
using colocsim::test::drain;
using colocsim::test::input_error_of;
using colocsim::test::WORKLOADS_DATA;
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
      {"batsim/test_delays.json", 10,
       [](std::istream& in) { return std::make_unique<BatsimReader>(in, "f"); }},
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
  // A bad value on line 3 of a CR-only file is reported on line 3.
  std::istringstream swf(
      with_line_ends("; a\n; b\n1 0 -1 abc 4 -1 -1 4 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n", "\r"));
  SwfReader r(swf, "cr.swf");
  CHECK_THAT(input_error_of([&] { drain(r); }), ContainsSubstring("cr.swf:3: run_time: not a number"));
  std::istringstream json(with_line_ends("{\n\"nb_res\": 1,\n\"jobs\": 5}", "\r"));
  CHECK_THAT(input_error_of([&] { BatsimReader b(json, "cr.json"); }),
             ContainsSubstring("cr.json:3:9: jobs: expected an array"));
}
