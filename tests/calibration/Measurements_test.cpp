// The measurements CSV: write → read round trip (NaN stays empty, strings with commas are quoted), the
// documented example (docs/formats/measurements.md, a real pocl run) is the fixture byte for byte and
// parses to the numbers it shows, its column table is the declared one, and bad files are rejected at
// file:line with the column named.
#include "base/Errors.hpp"
#include "calibration/microbenchmark/MeasurementSet.hpp"
#include "calibration/microbenchmark/Measurements.hpp"
#include "tests/CatchCompat.hpp"
#include "tests/support/StrictFormats.hpp"

#include <cmath>
#include <sstream>

using namespace colocsim;
using namespace colocsim::test;

namespace {

std::string problems(const std::string& text)
{
  std::istringstream in(text);
  try {
    read_measurements(in, "m.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

std::string header()
{
  std::ostringstream os;
  write_measurement_header(os);
  return os.str();
}

/// The text between "<!-- example: PATH -->\n```csv\n" and "```" in a doc page.
std::string csv_doc_example(const std::string& doc, const std::string& path)
{
  const std::string marker = "<!-- example: " + path + " -->\n```csv\n";
  const auto at = doc.find(marker);
  REQUIRE(at != std::string::npos);
  const auto start = at + marker.size();
  return doc.substr(start, doc.find("```", start) - start);
}

} // namespace

TEST_CASE("measurement rows round-trip through the CSV", "[calibration][measurements]")
{
  MeasurementRow r;
  r.run_id = 7;
  r.kind = "corun";
  r.set = "check";
  r.host = "node,with,commas";
  r.device = "GPU \"quoted\"";
  r.mode = "ccs2";
  r.n_procs = 2;
  r.rank = 1;
  r.kernel = "triad";
  r.n = 1 << 20;
  r.duty = 0.5;
  r.t_iter_s = 0.0012345678901234;
  r.t_global_s = 1e-3;
  r.energy_j = MeasurementRow::UNAVAILABLE;
  r.co_runners = "fma_fp32@1";
  std::stringstream io;
  write_measurement_header(io);
  write_measurement_row(io, r);
  MeasurementRow idle;
  idle.run_id = 8;
  idle.kind = "idle";
  write_measurement_row(io, idle);
  // What the writer wrote is strict RFC 4180 CSV: quoted commas and quotes, the header's column count,
  // the unavailable energy as an empty cell rather than 'nan' (tests/support/StrictFormats.hpp).
  CHECK(colocsim::test::check_csv_output(io.str(), "rt.csv", "measurements.csv") ==
        std::vector<std::string>{});
  const auto rows = read_measurements(io, "rt.csv");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].host == r.host);
  CHECK(rows[0].device == r.device);
  CHECK(rows[0].t_iter_s == r.t_iter_s); // shortest round-trip text
  CHECK(std::isnan(rows[0].energy_j));
  CHECK(rows[0].rank == 1);
  CHECK(rows[1].rank == -1); // empty rank for idle rows
  CHECK(rows[1].kernel.empty());
}

TEST_CASE("the documented example is the fixture and parses", "[calibration][measurements]")
{
  const auto doc = read_source_file("docs/formats/measurements.md");
  const auto fixture = read_source_file("tests/data/calibration/measurements-example.csv");
  CHECK(csv_doc_example(doc, "tests/data/calibration/measurements-example.csv") == fixture);
  // The column table is the declaration's.
  for (const auto& c : measurement_columns())
    CHECK_THAT(doc, ContainsSubstring("| `" + c.name + "` | " + c.type + " | " + c.help + " |"));
  std::istringstream in(fixture);
  const auto rows = read_measurements(in, "measurements-example.csv");
  REQUIRE(rows.size() == 5);
  CHECK(rows[0].kind == "solo");
  CHECK(rows[0].kernel == "fma_fp32");
  CHECK(rows[0].backend == "opencl");
  CHECK(std::isnan(rows[0].t_context_s)); // OpenCL: no context time
  CHECK(std::isnan(rows[0].energy_j));    // no readable energy counter on that host
  CHECK(rows[0].reps > 0);
  CHECK_THAT(rows[0].duty_measured, WithinRel(rows[0].t_global_s / rows[0].t_iter_s, 1e-6));
  // The co-run: two rows sharing a run id, each naming the other.
  CHECK(rows[3].run_id == rows[4].run_id);
  CHECK(rows[3].kind == "corun");
  CHECK(rows[3].co_runners == "triad@1");
  CHECK(rows[4].co_runners == "fma_fp32@1");
  // Observed slowdowns against the solo rows of the same file, as fit and check compute them.
  const MeasurementSet set(rows);
  const auto runs = set.coruns("");
  REQUIRE(runs.size() == 1);
  CHECK_THAT(runs[0].jobs[0].slowdown, WithinRel(rows[3].t_iter_s / rows[0].t_iter_s, 1e-12));
  CHECK_THAT(runs[0].jobs[1].slowdown, WithinRel(rows[4].t_iter_s / rows[1].t_iter_s, 1e-12));
  CHECK(runs[0].jobs[1].job_class == JobClass::MS);
}

TEST_CASE("bad measurement files are rejected with line and column", "[calibration][measurements]")
{
  CHECK_THAT(problems(""), ContainsSubstring("no header line"));
  CHECK_THAT(problems("run_id,bogus\n"), ContainsSubstring("m.csv:1: bogus: unknown column; valid: run_id"));
  CHECK_THAT(problems("run_id\n"), ContainsSubstring("m.csv:1: kind: missing column"));
  std::ostringstream row;
  MeasurementRow r;
  r.run_id = 1;
  r.kind = "solo";
  r.n_procs = 1;
  r.rank = 0;
  r.kernel = "triad";
  r.n = 100;
  r.duty = 1;
  write_measurement_row(row, r);
  const std::string good = row.str();
  CHECK(problems(header() + good).empty());
  auto replace = [](std::string s, const std::string& a, const std::string& b) {
    s.replace(s.find(a), a.size(), b);
    return s;
  };
  CHECK_THAT(
      problems(header() + replace(good, "solo", "alone")),
      ContainsSubstring("m.csv:2: kind: unknown kind 'alone'; valid: idle, idle-context, solo, corun"));
  CHECK_THAT(problems(header() + replace(good, "triad", "trad")),
             ContainsSubstring("m.csv:2: kernel: unknown kernel 'trad'"));
  CHECK_THAT(problems(header() + "# comment\n" + replace(good, "1,0,fit", "x,0,fit")),
             ContainsSubstring("m.csv:3: run_id: not an integer (got 'x')"));
  CHECK_THAT(problems(header() + "1,2,3\n"), ContainsSubstring("m.csv:2: wrong number of fields (got 3)"));
}
