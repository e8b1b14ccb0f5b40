// MIG measurement sweep import (workloads/MigSweep.hpp; `colocsim profiles import-mig`): speeds are the
// slice's throughput over the whole GPU's at the same batch, the YAML it writes loads as a profile key, and
// bad sweeps are reported at file:line with the column.
#include "workloads/MigSweep.hpp"

#include "WorkloadsTestSupport.hpp"

#include <sstream>

using namespace colocsim;
using Catch::Matchers::ContainsSubstring;
using colocsim::test::WithinAbs;

namespace {

MigSweep read(const std::string& text, const std::string& file = "sweep.csv")
{
  std::istringstream in(text);
  return read_mig_sweep(in, file);
}

// By hand: batch 1: 1g 50/200 = 0.25, 3g 150/200 = 0.75; batch 8: 1g 40/400 = 0.1, 3g 200/400 = 0.5.
const std::string SWEEP = "# a sweep\n"
                          "slice,batch,throughput\n"
                          "whole,1,200\n"
                          "1g.10gb,1,50\n"
                          "3g.40gb,1,150\n"
                          "3g.40gb,8,200\n"
                          "whole,8,400\n"
                          "1g.10gb,8,40\n";

} // namespace

TEST_CASE("MIG sweep import: speeds relative to the whole GPU per batch, loadable as a profile key",
          "[workloads][profiles][mig]")
{
  const auto sweep = read(SWEEP);
  REQUIRE(sweep.rows.size() == 2);
  CHECK(sweep.rows[0].first == 1);
  CHECK_THAT(sweep.rows[0].second[1], WithinAbs(0.25, 1e-12));
  CHECK_THAT(sweep.rows[0].second[3], WithinAbs(0.75, 1e-12));
  CHECK(sweep.rows[0].second[2] == 0);
  CHECK(sweep.rows[1].first == 8);
  CHECK_THAT(sweep.rows[1].second[1], WithinAbs(0.1, 1e-12));
  CHECK_THAT(sweep.rows[1].second[3], WithinAbs(0.5, 1e-12));

  // The written key, pasted under a profile, loads and gives the same speeds; batch 2 interpolates in ln:
  // ln 2 / ln 8 = 1/3 → 1g 0.25 − 0.15/3 = 0.2.
  const std::string yaml = mig_sweep_yaml(sweep, "my \"lab\" sweep");
  INFO(yaml);
  std::string indented;
  std::istringstream lines(yaml);
  for (std::string l; std::getline(lines, l);)
    indented += "    " + l + "\n";
  const auto catalog = ProfileCatalog::load("format: colocsim-profiles/1\nprofiles:\n  p:\n    class: C\n"
                                            "    duty_cycle: {value: 1, tag: estimate, source: s}\n"
                                            "    vec_util: {value: 0.5, tag: estimate, source: s}\n"
                                            "    xmx_util: {value: 0, tag: estimate, source: s}\n"
                                            "    bw_util: {value: 0.2, tag: estimate, source: s}\n"
                                            "    mem: {value: 1GB, tag: estimate, source: s}\n"
                                            "    freq_sensitive: {value: 1, tag: estimate, source: s}\n" +
                                                indented,
                                            "pasted.yaml");
  const Profile& p = catalog.at("p", {});
  CHECK_THAT(p.signature_for_batch(1).mig_speed[1], WithinAbs(0.25, 1e-12));
  CHECK_THAT(p.signature_for_batch(8).mig_speed[3], WithinAbs(0.5, 1e-12));
  CHECK_THAT(p.signature_for_batch(2).mig_speed[1], WithinAbs(0.2, 1e-12));
  CHECK_THAT(yaml, ContainsSubstring("source: \"my \\\"lab\\\" sweep\""));

  // One batch: a plain mig_speed key.
  const auto one = mig_sweep_yaml(read("batch,slice,throughput\n4,whole,10\n4,2g.20gb,6\n"), "x");
  CHECK_THAT(one,
             ContainsSubstring("mig_speed: {value: {2g: 0.6}, tag: measurement, source: \"x (batch 4)\"}"));
}

TEST_CASE("MIG sweep import: bad sweeps are reported at file:line with the column",
          "[workloads][profiles][mig]")
{
  CHECK_THROWS_WITH(read("batch,slice,rate\n"),
                    ContainsSubstring("sweep.csv:1: header: unknown column 'rate'"));
  CHECK_THROWS_WITH(read("batch,slice\n"),
                    ContainsSubstring("sweep.csv:1: header: missing column 'throughput'"));
  CHECK_THROWS_WITH(read("batch,slice,throughput\n1,9g.80gb,3\n"),
                    ContainsSubstring("sweep.csv:2: slice: unknown slice (got '9g.80gb')"));
  CHECK_THROWS_WITH(read("batch,slice,throughput\n0,whole,3\n"),
                    ContainsSubstring("sweep.csv:2: batch: bad batch size (got '0')"));
  CHECK_THROWS_WITH(read("batch,slice,throughput\n1,whole,-3\n"),
                    ContainsSubstring("sweep.csv:2: throughput: not a positive number (got '-3')"));
  CHECK_THROWS_WITH(read("batch,slice,throughput\n1,whole,3\n1,1g.5gb,1\n1,1g.10gb,2\n"),
                    ContainsSubstring("sweep.csv:4: slice: batch 1 already has a 1g row at line 3"));
  CHECK_THROWS_WITH(read("batch,slice,throughput\n1,1g.5gb,1\n"),
                    ContainsSubstring("sweep.csv:2: slice: batch 1 has no 'whole' row"));
  CHECK_THROWS_WITH(read("batch,slice,throughput\n1,whole,3\n1,1g.5gb,1\n2,whole,3\n2,2g.10gb,1\n"),
                    ContainsSubstring("batch 2 names different slice sizes than batch 1"));
  CHECK_THROWS_WITH(read("batch,slice,throughput\n1,whole\n"),
                    ContainsSubstring("sweep.csv:2: wrong number of fields (got 2); expected 3"));
  CHECK_THROWS_WITH(read("batch,slice,throughput\n1,whole," + std::string(2 << 20, '1') + "\n"),
                    ContainsSubstring("sweep.csv:2: line longer than 1048576 bytes"));
  CHECK(read("batch,slice,throughput\r\n1,whole,2\r\n1,1g.5gb,1\r\n").rows.at(0).second[1] == 0.5); // CRLF
  // A slice measured faster than the whole GPU is written as 1, and said so.
  const auto fast = read("batch,slice,throughput\n1,whole,100\n1,3g.40gb,102\n");
  CHECK(fast.rows[0].second[3] == 1.0);
  CHECK_THAT(mig_sweep_yaml(fast, "s"),
             ContainsSubstring("# faster than the whole GPU, written as 1 (batch 1, 3g: 1.02)"));
}
