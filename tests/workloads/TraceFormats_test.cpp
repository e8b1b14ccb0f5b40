// The trace-format registry and the whole reader chain (format → transforms → profile map), and the format
// pages: each documents its format's declared options and quotes its real (or labelled synthetic) example.
#include "tests/workloads/WorkloadsTestSupport.hpp"

#include "workloads/ProfileCatalog.hpp"
#include "workloads/TraceFormats.hpp"

#include <fstream>

using namespace colocsim;
using namespace colocsim::test;
using Catch::Matchers::ContainsSubstring;

namespace {
/// The first `lines` lines of a fixture file, each followed by '\n'.
std::string head(const std::string& file, int lines)
{
  std::ifstream in(WORKLOADS_DATA + file);
  std::string out, line;
  for (int i = 0; i < lines && std::getline(in, line); ++i)
    out += line + "\n";
  return out;
}
} // namespace

TEST_CASE("formats: every format has a page that documents its options", "[workloads][formats][docs]")
{
  CHECK(trace_format_names() ==
        std::vector<std::string>{"native", "swf", "itp", "openb", "pai", "batsim", "sacct", "kubernetes"});
  const std::string listing = describe_trace_formats();
  for (const auto& f : trace_formats()) {
    INFO(f.name);
    const std::string page = read_source_file(f.doc);
    CHECK_THAT(listing, ContainsSubstring(f.name + "  ") || ContainsSubstring(f.name + " "));
    for (const auto& o : f.options) {
      INFO(o.name);
      CHECK(page.find("`" + o.name + "`") != std::string::npos);
      CHECK_THAT(listing, ContainsSubstring(o.name));
    }
    if (!f.default_profile_map.empty()) CHECK(page.find(f.default_profile_map) != std::string::npos);
  }
  for (const auto& t : transform_infos())
    CHECK(read_source_file("docs/formats/transforms.md").find("`" + t.name) != std::string::npos);
  CHECK_THAT(
      input_error_of([] {
        find_trace_format("csv", SourceLocation{"s.yaml", 4, 11});
      }),
      ContainsSubstring("s.yaml:4:11: workload.format: unknown trace format 'csv'; valid: native, swf, itp, "
                        "openb, pai, batsim, sacct, kubernetes"));
}

TEST_CASE("formats: the pages quote their example files", "[workloads][formats][docs]")
{
  const std::pair<const char*, std::pair<const char*, int>> pages[] = {
      {"docs/formats/alibaba-openb.md", {"openb/default-head100.csv", 6}},
      {"docs/formats/alibaba-pai.md", {"pai/pai_task_table.synthetic.csv", 8}},
      {"docs/formats/batsim.md", {"batsim/test_delays.json", 6}},
  };
  for (const auto& [page, example] : pages) {
    INFO(page);
    CHECK(read_source_file(page).find(head(example.first, example.second)) != std::string::npos);
  }
}

TEST_CASE("workload chain: openb through the default QoS map, described for the outputs",
          "[workloads][formats]")
{
  const auto catalog =
      ProfileCatalog::load_file(std::string(COLOCSIM_SOURCE_DIR) + "/workloads/profiles/default.yaml");
  WorkloadSpec spec;
  spec.format = "openb";
  spec.path = WORKLOADS_DATA + "openb/default-head100.csv";
  spec.catalog = &catalog;
  spec.transforms = "window=..10000000";
  auto r = open_workload(spec);
  const auto jobs = drain(*r);
  // 89 GPU pods ran; 53 of them were created before t = 10,000,000 s.
  REQUIRE(jobs.size() == 53);
  for (const auto& j : jobs)
    CHECK(j.profile ==
          (j.qos == "BE" || j.qos == "Burstable" ? "resnet50-train-bs32" : "resnet50-infer-bs1"));
  const std::string d = r->describe();
  CHECK_THAT(d, ContainsSubstring("openb " + spec.path + " (pending=skip,pending_duration=616,"));
  CHECK_THAT(d,
             ContainsSubstring("; window ..10000000 s (kept 53, 0 before, stopped at the first job after)"));
  CHECK_THAT(d, ContainsSubstring("; profiles: qos LS->resnet50-infer-bs1 ("));
  CHECK_THAT(r->warnings().at(0), ContainsSubstring("skipped 6 CPU-only pod(s)"));
  CHECK_THAT(describe_workload(spec), ContainsSubstring("; profile map qos:LS=resnet50-infer-bs1"));
}

TEST_CASE("workload chain: SWF options and an explicit map", "[workloads][formats]")
{
  WorkloadSpec spec;
  spec.format = "swf";
  spec.path = WORKLOADS_DATA + "swf/theta2022-head30.swf";
  spec.options["devices_per_proc"] = GivenValue{"12", SourceLocation{"s.yaml"}};
  spec.profile_map = "draw:stream-triad=1";
  auto r = open_workload(spec);
  const auto jobs = drain(*r);
  REQUIRE(jobs.size() == 30);
  CHECK(jobs[0].devices == 128 * 12); // a Theta node as an Aurora node of 12 tiles
  CHECK(jobs[0].profile == "stream-triad");

  SECTION("SWF status rules")
  {
    WorkloadSpec s;
    s.format = "swf";
    s.path = WORKLOADS_DATA + "swf/statuses.swf";
    auto all = open_workload(s);
    CHECK(drain(*all).size() == 4); // job 4 never ran
    s.options["status"] = GivenValue{"not-cancelled", {}};
    CHECK(drain(*open_workload(s)).size() == 3);
    s.options["status"] = GivenValue{"completed", {}};
    auto completed = open_workload(s);
    const auto done = drain(*completed);
    REQUIRE(done.size() == 2); // status 1 and -1
    CHECK(done[1].id == "5");
    CHECK_THAT(completed->warnings().at(1),
               ContainsSubstring("skipped 2 row(s) by their status (status=completed)"));
  }
}

TEST_CASE("workload chain: all problems of a spec are reported together", "[workloads][formats][errors]")
{
  const auto catalog =
      ProfileCatalog::load_file(std::string(COLOCSIM_SOURCE_DIR) + "/workloads/profiles/default.yaml");
  WorkloadSpec spec;
  spec.format = "itp";
  spec.path = WORKLOADS_DATA + "itp/cluster10-head30.csv";
  spec.where = SourceLocation{"s.yaml", 9, 3};
  spec.options["procs_per_device"] = GivenValue{"2", spec.where};
  spec.transforms = "speed=2";
  spec.profile_map = "class:bert=bert-large";
  spec.catalog = &catalog;
  const std::string e = input_error_of([&] { open_workload(spec); });
  CHECK_THAT(e,
             ContainsSubstring("s.yaml:9:3: workload.options.procs_per_device: unknown key; valid: (none)"));
  CHECK_THAT(e, ContainsSubstring("s.yaml:9:3: workload.transforms: unknown transform 'speed'"));
  CHECK_THAT(e, ContainsSubstring("s.yaml:9:3: workload.profile_map: unknown profile 'bert-large'"));
}
