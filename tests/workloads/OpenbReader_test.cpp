// Alibaba openb pod lists and node list on real slices (tests/data/workloads/openb/, origin in NOTICE.md),
// and on malformed input: every bad row gives file:line:col, the field and what was expected.
#include "tests/workloads/WorkloadsTestSupport.hpp"

#include "workloads/NodeInventory.hpp"
#include "workloads/OpenbReader.hpp"

#include <filesystem>
#include <fstream>
#include <numeric>

using namespace colocsim;
using namespace colocsim::test;

namespace {
const std::string OPENB = WORKLOADS_DATA + "openb/";
} // namespace

TEST_CASE("openb: the default slice maps pods onto jobs", "[workloads][openb]")
{
  auto r = open_openb(OPENB + "default-head100.csv");
  const auto jobs = drain(*r);
  // 100 pods: 6 CPU-only and 5 pending are left out (counts computed from the slice with Python's csv).
  REQUIRE(jobs.size() == 89);
  // openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0
  CHECK(jobs[0].id == "openb-pod-0000");
  CHECK(jobs[0].submit_s == 0);
  CHECK(jobs[0].duration_s == 12537496);
  CHECK(jobs[0].devices == 1);
  CHECK(jobs[0].gpu_milli == 1000);
  CHECK(jobs[0].qos == "LS");
  CHECK(jobs[0].gpu_types.empty());
  CHECK(jobs[0].origin.line == 2);
  // openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061: a fractional pod
  CHECK(jobs[1].gpu_milli == 460);
  CHECK(jobs[1].duration_s == 12902960 - 427061);
  // openb-pod-0017,88000,327680,8,1000,,Burstable,Succeeded,9437497,10769854,9437497: an 8-GPU gang
  const auto gang =
      std::find_if(jobs.begin(), jobs.end(), [](const Job& j) { return j.id == "openb-pod-0017"; });
  REQUIRE(gang != jobs.end());
  CHECK(gang->devices == 8);
  CHECK(gang->duration_s == 10769854 - 9437497);
  CHECK(jobs.back().id == "openb-pod-0099");
  const double requested = std::accumulate(jobs.begin(), jobs.end(), 0.0, [](double s, const Job& j) {
    return s + j.devices * j.gpu_milli / 1000.0;
  });
  CHECK_THAT(requested, Catch::Matchers::WithinAbs(77.84, 1e-9));
  const auto w = r->warnings();
  REQUIRE(w.size() == 2);
  CHECK_THAT(w[0], ContainsSubstring("skipped 6 CPU-only pod(s)"));
  CHECK_THAT(w[1], ContainsSubstring("skipped 5 pending pod(s) with no scheduled_time (pending=skip)"));
}

TEST_CASE("openb: pending pods can be kept with a stated run time", "[workloads][openb]")
{
  OpenbOptions o;
  o.pending = OpenbPendingRule::KEEP;
  o.pending_duration_s = 100;
  auto r = open_openb(OPENB + "default-head100.csv", o);
  const auto jobs = drain(*r);
  REQUIRE(jobs.size() == 94);
  // openb-pod-0061,11908,47104,1,1000,,BE,Pending,10001278,10001403,
  const auto p =
      std::find_if(jobs.begin(), jobs.end(), [](const Job& j) { return j.id == "openb-pod-0061"; });
  REQUIRE(p != jobs.end());
  CHECK(p->submit_s == 10001278);
  CHECK(p->duration_s == 100);
  CHECK_THAT(r->warnings().at(1),
             ContainsSubstring("5 pending pod(s) with no scheduled_time were given a run time of 100 s"));
}

TEST_CASE("openb: gpu_spec becomes the job's allowed GPU types", "[workloads][openb]")
{
  auto r = open_openb(OPENB + "gpuspec33-head40.csv");
  const auto jobs = drain(*r);
  REQUIRE(jobs.size() == 38);
  auto by_id = [&](const std::string& id) {
    return *std::find_if(jobs.begin(), jobs.end(), [&](const Job& j) { return j.id == id; });
  };
  CHECK(by_id("openb-pod-0009").gpu_types == "V100M16|V100M32");
  CHECK(by_id("openb-pod-0012").gpu_types == "T4");
  CHECK(by_id("openb-pod-0021").gpu_types == "G2|P100|T4|V100M16|V100M32");
  CHECK(by_id("openb-pod-0021").gpu_milli == 440);
  CHECK(by_id("openb-pod-0000").gpu_types.empty());
}

TEST_CASE("openb: a pod's run time starts when it is scheduled, not when it is created", "[workloads][openb]")
{
  // Rows of the gpuspec33 slice whose pod waited between creation_time and scheduled_time:
  //   openb-pod-0012,...,T4|H100,LS,Running,6588193,10959245,6595531: submitted at creation 6588193,
  //     runs deletion − scheduled = 10959245 − 6595531 = 4363714 s (from creation it would be 4371052 s);
  //   openb-pod-0006,...,LS,Running,3019330,11815163,3019331: 11815163 − 3019331 = 8795832 s (not 8795833).
  auto r = open_openb(OPENB + "gpuspec33-head40.csv");
  const auto jobs = drain(*r);
  auto by_id = [&](const std::string& id) {
    return *std::find_if(jobs.begin(), jobs.end(), [&](const Job& j) { return j.id == id; });
  };
  CHECK(by_id("openb-pod-0012").submit_s == 6588193);
  CHECK(by_id("openb-pod-0012").duration_s == 4363714);
  CHECK(by_id("openb-pod-0006").submit_s == 3019330);
  CHECK(by_id("openb-pod-0006").duration_s == 8795832);
}

TEST_CASE("openb: a re-sampled variant is put in creation order within the window", "[workloads][openb]")
{
  auto r = open_openb(OPENB + "gpushare100-lines1090-1129.csv");
  const auto jobs = drain(*r);
  REQUIRE(jobs.size() == 31); // 40 pods, 9 pending
  for (std::size_t i = 1; i < jobs.size(); ++i)
    CHECK(jobs[i].submit_s >= jobs[i - 1].submit_s);
  // openb-pod-1090,4152,10600,1,370,,BE,Failed,9960736,9961900,9960736 is the earliest; file line 4
  CHECK(jobs[0].id == "openb-pod-1090");
  CHECK(jobs[0].origin.line == 4);
  CHECK(jobs[0].gpu_milli == 370);
  CHECK(jobs.back().id == "openb-pod-1119");
  const auto w = r->warnings();
  REQUIRE(w.size() == 2);
  CHECK_THAT(w[1], ContainsSubstring("28 pod(s) were out of creation_time order and were replayed in order"));

  SECTION("beyond the window it is an error naming the line and the fix")
  {
    std::ifstream in(OPENB + "bad-unsorted.csv");
    OpenbOptions o;
    o.reorder_window = 1;
    OpenbPodReader small(in, "bad-unsorted.csv", o);
    CHECK_THAT(
        input_error_of([&] { drain(small); }),
        ContainsSubstring("bad-unsorted.csv:4: creation_time: submit time 427061 is earlier than a job "
                          "already replayed (2690044) and beyond the reorder window of 1 rows; sort the file "
                          "by creation_time (column 9)"));
  }
}

TEST_CASE("openb: the 5-column request-only variant", "[workloads][openb]")
{
  OpenbOptions o;
  o.untimed_duration_s = 300;
  o.untimed_interarrival_s = 10;
  std::ifstream in(OPENB + "multigpu50-head20.csv");
  OpenbPodReader r(in, "multigpu50-head20.csv", o);
  CHECK(!r.timed());
  const auto jobs = drain(r);
  REQUIRE(jobs.size() == 18); // openb-pod-0005 and -0016 are CPU-only
  CHECK(jobs[0].id == "openb-pod-0000");
  CHECK(jobs[0].submit_s == 0);
  CHECK(jobs[0].duration_s == 300);
  CHECK(jobs[1].submit_s == 10);
  CHECK(jobs[1].gpu_milli == 460);
  CHECK(jobs[0].qos.empty());
  CHECK_THAT(r.warnings().back(),
             ContainsSubstring("request-only pod list (no times): every pod lasts 300 s"));
}

TEST_CASE("openb: malformed rows", "[workloads][openb][errors]")
{
  CHECK_THAT(input_error_of([] { drain(*open_openb(OPENB + "bad-columns.csv")); }),
             ContainsSubstring(
                 "bad-columns.csv:3: row: wrong number of fields (got 10); expected 11 as in the header"));
  CHECK_THAT(
      input_error_of([] { drain(*open_openb(OPENB + "bad-number.csv")); }),
      ContainsSubstring("bad-number.csv:3:27: num_gpu: not a number (got 'one'); expected a whole number of "
                        "GPUs >= 0"));
  CHECK_THAT(
      input_error_of([] { drain(*open_openb(OPENB + "bad-gpu-type.csv")); }),
      ContainsSubstring("bad-gpu-type.csv:3:34: gpu_spec: unknown GPU type 'H100' (got 'T4|H100'); expected "
                        "GPU types separated by '|' from: A10, G2, G3, P100, T4, V100M16, V100M32"));
  CHECK_THAT(input_error_of([] { drain(*open_openb(OPENB + "bad-times.csv")); }),
             ContainsSubstring("bad-times.csv:3:55: deletion_time: earlier than scheduled_time 1558381 (got "
                               "'1000000'); expected deletion_time >= scheduled_time"));
  CHECK_THAT(input_error_of([] { open_openb(OPENB + "bad-header.csv"); }),
             ContainsSubstring(
                 "bad-header.csv:1: header: missing column(s) pod_phase, deletion_time, scheduled_time"));
  CHECK_THAT(input_error_of([] { open_openb(OPENB + "missing.csv"); }),
             ContainsSubstring("cannot open trace file"));
}

TEST_CASE("openb node list: the inventory of the FGD cluster", "[workloads][openb][inventory]")
{
  const auto inv = load_openb_nodes(OPENB + "openb_node_list_all_node.csv");
  // Alibaba cluster-trace-gpu-v2023 (docs/sources.md): 1,523 nodes, 1,213 with GPUs, 6,212 GPUs.
  CHECK(inv.nodes.size() == 1523);
  CHECK(inv.gpu_nodes() == 1213);
  CHECK(inv.gpus() == 6212);
  const auto by_model = inv.gpus_by_model();
  CHECK(by_model.at("G2") == 549 * 8);
  CHECK(by_model.at("T4") == 387 * 2 + 17 * 4);
  CHECK(by_model.at("V100M32") == 21 * 8 + 9 * 4);
  CHECK(by_model.at("A10") == 2);
  CHECK(by_model.size() == 7);
  std::size_t g2_nodes = 0;
  for (const auto& g : inv.groups())
    if (g.gpu_model == "G2" && g.gpus_per_node == 8) g2_nodes += g.nodes;
  CHECK(g2_nodes == 549);
  // openb-node-0000,32000,262144,0,  (a CPU-only node)
  CHECK(inv.nodes[0].name == "openb-node-0000");
  CHECK(inv.nodes[0].gpus == 0);
  CHECK(inv.nodes[0].gpu_model.empty());
  // openb-node-0229,96000,786432,8,V100M32
  const auto& v100 = inv.nodes[229];
  CHECK(v100.name == "openb-node-0229");
  CHECK(v100.cpu_cores == 96);
  CHECK(v100.memory_bytes == 786432.0 * 1024 * 1024);
  CHECK(v100.gpus == 8);
  CHECK(v100.gpu_model == "V100M32");
  CHECK(v100.origin.line == 231);
  CHECK_THAT(inv.describe(), ContainsSubstring("total: 1523 nodes, 1213 with GPUs, 6212 GPUs"));

  std::istringstream bad("sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,2,\n");
  CHECK_THAT(
      input_error_of([&] { read_openb_nodes(bad, "nodes.csv"); }),
      ContainsSubstring("nodes.csv:2:19: model: empty (got ''); expected the GPU model of a node with GPUs"));
}

TEST_CASE("PAI machine table: the inventory reader", "[workloads][pai][inventory]")
{
  // pai_machine_spec.csv rows (Alibaba cluster-trace-gpu-v2020: a sample row, the schema; no header).
  std::istringstream in("7399a758eb02bae1a3621236,CPU,96,512,0\nm2,P100,64,512,2\nm3,V100M32,96,384,8\n");
  const auto inv = read_pai_machines(in, "pai_machine_spec.csv");
  CHECK(inv.nodes.size() == 3);
  CHECK(inv.gpus() == 10);
  CHECK(inv.nodes[0].gpu_model.empty());
  CHECK(inv.gpus_by_model().at("V100M32") == 8);
  std::istringstream bad("m1,P100,64,512,two\n");
  CHECK_THAT(input_error_of([&] { read_pai_machines(bad, "spec.csv"); }),
             ContainsSubstring("spec.csv:1:16: cap_gpu: not a number (got 'two')"));
}

TEST_CASE("openb: a gzip-compressed pod list reads as the plain file, a damaged one is an input error",
          "[workloads][openb][gzip]")
{
  // default-head100.csv.gz is `gzip -9 -n default-head100.csv` (NOTICE.md): every job and warning alike.
  auto plain_reader = open_openb(OPENB + "default-head100.csv");
  auto gz_reader = open_openb(OPENB + "default-head100.csv.gz");
  const auto plain = drain(*plain_reader);
  const auto gz = drain(*gz_reader);
  REQUIRE(plain.size() == 89); // as in "the default slice maps pods onto jobs"
  REQUIRE(gz.size() == plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    INFO("job " << i);
    CHECK(gz[i].id == plain[i].id);
    CHECK(gz[i].submit_s == plain[i].submit_s);
    CHECK(gz[i].duration_s == plain[i].duration_s);
    CHECK(gz[i].devices == plain[i].devices);
    CHECK(gz[i].gpu_milli == plain[i].gpu_milli);
    CHECK(gz[i].gpu_types == plain[i].gpu_types);
    CHECK(gz[i].qos == plain[i].qos);
    CHECK(gz[i].cpus == plain[i].cpus);
    CHECK(gz[i].host_mem_bytes == plain[i].host_mem_bytes);
    CHECK(gz[i].origin.line == plain[i].origin.line);
  }
  CHECK(gz_reader->warnings().size() == plain_reader->warnings().size());

  // Cut short (the first half of the bytes) and corrupt (bytes in the middle of the deflate data changed):
  // zlib's error at the end of the readable part becomes an InputError naming the file, never fewer pods.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "colocsim-openb-gzip-test";
  fs::create_directories(dir);
  const std::string whole = colocsim::test::slurp(OPENB + "default-head100.csv.gz");
  const std::string cut = (dir / "cut.csv.gz").string(), bad = (dir / "corrupt.csv.gz").string();
  std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() / 2);
  std::string corrupt = whole;
  for (std::size_t i = corrupt.size() / 2; i < corrupt.size() / 2 + 16; ++i)
    corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  std::ofstream(bad, std::ios::binary) << corrupt;
  for (const auto& path : {cut, bad}) {
    INFO(path);
    CHECK_THAT(input_error_of([&] { drain(*open_openb(path)); }),
               ContainsSubstring(path) && ContainsSubstring("gzip data cut short or corrupt (zlib: "));
  }
  fs::remove_all(dir);
}
