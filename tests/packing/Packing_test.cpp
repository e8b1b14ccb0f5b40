// The FGD packing study (packing/Packing.hpp): FGD's target workload and node fragmentation, the six
// node-scoring policies, drops at arrival with their reason, workload tuning and the curve, on hand-computed
// cases.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "packing/Packing.hpp"
#include "sim/Metrics.hpp"
#include "sim/Outputs.hpp"
#include "workloads/NodeInventory.hpp"

#include <chrono>
#include <cmath>
#include <memory>
#include <set>
#include <sstream>

using namespace colocsim;
using namespace colocsim::packing;
using Catch::Approx;

namespace {

Node node(const std::string& model, int gpus, long long cpu = 64000, long long mem = 262144)
{
  Node n;
  n.name = "n";
  n.model = model;
  n.cpu = n.cpu_left = cpu;
  n.mem = n.mem_left = mem;
  n.gpu_left.assign(static_cast<std::size_t>(gpus), MILLI);
  return n;
}

Pod pod(int gpus, int milli, long long cpu = 0, long long mem = 0, const std::string& types = "")
{
  static int next = 0;
  Pod p;
  p.id = "p" + std::to_string(next++);
  p.gpus = gpus;
  p.milli = milli;
  p.cpu = cpu;
  p.mem = mem;
  p.types = types;
  return p;
}

Options per_arrival(const std::string& policy, std::uint64_t seed = 1)
{
  Options o;
  o.policy = policy;
  o.seed = seed;
  o.curve_step = 0; // one row per arrival
  return o;
}

} // namespace

TEST_CASE("the target workload is FGD's: pod shapes by popularity, renormalised", "[packing]")
{
  // Shapes: A (1 CPU, 500 milli) x3, C (4 CPUs, no GPU) x2, B (2 CPUs, 1 whole GPU) x1.
  const std::vector<Pod> pods{pod(1, 500, 1000),  pod(0, 0, 4000),   pod(1, 500, 1000),
                              pod(1, 1000, 2000), pod(1, 500, 1000), pod(0, 0, 4000)};
  // As the authors ran it (CPU pods in, 95 %, one shape at a time): A (3 < 5.7), C (5 < 5.7), B (6): all
  // three, p = 3/6, 2/6, 1/6.
  const auto t = typical_pods(pods);
  REQUIRE(t.size() == 3);
  CHECK(t[0].milli == 500);
  CHECK(t[0].freq == Approx(0.5));
  CHECK(t[1].gpus == 0);
  CHECK(t[1].freq == Approx(2.0 / 6));
  CHECK(t[2].freq == Approx(1.0 / 6));
  // The simulator's own defaults (no CPU pods, 60 %, 10 shapes a step): A and B in the first step
  // (4 >= 2.4), p = 3/4 and 1/4.
  const auto d = typical_pods(pods, TypicalOptions{false, 60, 10});
  REQUIRE(d.size() == 2);
  CHECK(d[0].freq == Approx(0.75));
  CHECK(d[1].milli == 1000);
  CHECK(d[1].freq == Approx(0.25));
  // 95 % one at a time stops as soon as it is covered: with shapes 10 x A and 1 x B, A alone is 10/11 =
  // 91 % < 95 %, so B is taken too; at 90 % A alone suffices (p = 1).
  std::vector<Pod> many(10, pod(1, 500));
  many.push_back(pod(1, 1000));
  CHECK(typical_pods(many).size() == 2);
  CHECK(typical_pods(many, TypicalOptions{true, 90, 1}).size() == 1);
}

TEST_CASE("node fragmentation counts the idle GPU share each typical shape cannot use", "[packing]")
{
  const std::vector<TypicalPod> t{{1000, 500, 1, "", 0.75}, {2000, 1000, 1, "", 0.25}};
  // GPUs {600, 1000} free, 4 CPUs left: A fits both GPUs (0); B fits GPU 1 only, GPU 0's 600 is
  // fragment: 0.25 x 600 = 150.
  CHECK(fragmentation_of("T4", 4000, {600, 1000}, t) == Approx(150));
  // 1.5 CPUs left: A still fits (0); B lacks CPU, so all 1600 idle milli is fragment: 0.25 x 1600 = 400.
  CHECK(fragmentation_of("T4", 1500, {600, 1000}, t) == Approx(400));
  // A shape restricted to another GPU model counts all idle share: 1.0 x 1600.
  const std::vector<TypicalPod> v{{0, 500, 1, "V100M32", 1.0}};
  CHECK(fragmentation_of("T4", 4000, {600, 1000}, v) == Approx(1600));
  CHECK(fragmentation_of("V100M32", 4000, {600, 1000}, v) == Approx(0));
  // A CPU-only shape cannot use any GPU: all idle share is fragment to it.
  const std::vector<TypicalPod> c{{1000, 0, 0, "", 1.0}};
  CHECK(fragmentation_of("T4", 4000, {600, 1000}, c) == Approx(1600));
  // No idle GPU: nothing to fragment.
  CHECK(fragmentation_of("T4", 4000, {0, 0}, t) == 0);
}

TEST_CASE("fgd takes the GPU whose fragmentation grows least, best-fit the tightest, a pod that fits "
          "nowhere is dropped with its reason",
          "[packing]")
{
  // One T4 node with 2 GPUs; shares 400, 200, 500, 500, 500 arrive (no CPU). Target workload: 500 (p 0.6),
  // 400 (0.2), 200 (0.2). F(state) = Σ_t p_t · Σ_{GPU free < m_t} free.
  //   p0 400: both GPUs give the same score: GPU 0                                 → {600, 1000}
  //   p1 200: GPU 0 → {400, 1000}: F = 0.6·400 = 240, score int(100·σ(−0.24)) = 44;
  //           GPU 1 → {600, 800}: F = 0, score 50                                  → GPU 1
  //   p2 500: GPU 0 → {100, 800}: F = 100, score int(100·σ(−0.1)) = 47;
  //           GPU 1 → {600, 300}: F = 0.6·300 + 0.2·300 = 240, score 44            → GPU 0
  //   p3 500: only GPU 1 fits                                                      → {100, 300}
  //   p4 500: fits nowhere: dropped.
  // End: allocated 1600 of 2000; idle 400; F = 0.6·400 + 0.2·400 + 0.2·100 = 340 → 340 / 400 = 0.85.
  const std::vector<Pod> pods{pod(1, 400), pod(1, 200), pod(1, 500), pod(1, 500), pod(1, 500)};
  const Result r = run({node("T4", 2)}, pods, per_arrival("fgd"));
  REQUIRE(r.placements.size() == 5);
  CHECK(r.placements[0].gpus == std::vector<int>{0});
  CHECK(r.placements[1].gpus == std::vector<int>{1});
  CHECK(r.placements[2].gpus == std::vector<int>{0});
  CHECK(r.placements[3].gpus == std::vector<int>{1});
  CHECK(r.placements[4].node == -1);
  CHECK(r.dropped == 1);
  CHECK(r.drops.at("no node has the GPU share free") == 1);
  REQUIRE(r.curve.size() == 5);
  CHECK(r.curve.back().arrived == Approx(2100.0 / 2000));
  CHECK(r.curve.back().allocated == Approx(0.8));
  CHECK(r.curve.back().fragmentation == Approx(0.85));
  CHECK(r.unallocated_gpus() == Approx(0.4));

  // best-fit: p1 goes to the tightest GPU (600 free) and leaves 400, which no 500 pod can use:
  // {400, 1000} → p2, p3 on GPU 1 → {400, 0}; p4 dropped.
  const Result b = run({node("T4", 2)}, pods, per_arrival("best-fit"));
  CHECK(b.placements[1].gpus == std::vector<int>{0});
  CHECK(b.placements[2].gpus == std::vector<int>{1});
  CHECK(b.placements[3].gpus == std::vector<int>{1});
  CHECK(b.placements[4].node == -1);
}

TEST_CASE("every policy enforces host CPU and memory and GPU types, and places CPU-only pods on GPU nodes",
          "[packing]")
{
  for (const auto& policy : policy_names()) {
    INFO(policy);
    // Node 0: 2 CPUs, 1 GiB; node 1: 8 CPUs, 1 GiB. A 4-CPU GPU pod fits node 1 only; a CPU-only pod goes
    // to a GPU node; a pod asking 2 GiB and one asking for a V100M32 fit nowhere.
    std::vector<Node> nodes{node("T4", 1, 2000, 1024), node("T4", 1, 8000, 1024)};
    const std::vector<Pod> pods{pod(1, 500, 4000, 512), pod(0, 0, 1000, 100), pod(1, 100, 0, 2048),
                                pod(1, 100, 0, 0, "V100M32")};
    const Result r = run(nodes, pods, per_arrival(policy));
    CHECK(r.placements[0].node == 1);
    CHECK(r.placements[1].node >= 0);
    CHECK(r.placements[1].gpus.empty());
    CHECK(r.placements[2].node == -1);
    CHECK(r.placements[3].node == -1);
    CHECK(r.drops.at("no node has the CPU and memory free") == 1);
    CHECK(r.drops.at("no node has 1 GPU(s) of type V100M32") == 1);
    CHECK(r.allocated_milli == 500);
  }
}

TEST_CASE("dot-product and best-fit score CPU and GPU vectors normalised by 128 CPUs and 8 GPUs", "[packing]")
{
  // Pod: 4 CPUs, 1 GPU. Node 0: 64 CPUs, 2 idle GPUs; node 1: 8 CPUs, 1 idle GPU.
  // dot-product (1 − dot/2), dot = cpu_left/128000 · 4000/128000 + gpu_left/8000 · 1000/8000:
  //   node 0: 0.5·0.03125 + 0.25·0.125 = 0.046875 → int(100·0.97656) = 97
  //   node 1: 0.0625·0.03125 + 0.125·0.125 = 0.017578 → int(100·0.99121) = 99 → node 1
  // best-fit 1 − (0.5·(cpu_left − 4000)/128000 + 0.5·(gpu_left − 1000)/8000):
  //   node 0: 1 − (0.234375 + 0.0625) = 0.703 → 70; node 1: 1 − 0.015625 → 98 → node 1
  // A 1-CPU pod next: node 1 has 4 CPUs and no GPU left, so only node 0 fits, for both.
  for (const std::string policy : {"dot-product", "best-fit"}) {
    INFO(policy);
    const Result r = run({node("T4", 2, 64000), node("T4", 1, 8000)},
                         {pod(1, 1000, 4000), pod(1, 1000, 1000)}, per_arrival(policy));
    CHECK(r.placements[0].node == 1);
    CHECK(r.placements[1].node == 0);
  }
  // Where they differ: a 0-CPU 100-milli pod on node 0 (64 CPUs, GPUs {1000, 1000}) or node 1 (8 CPUs,
  // 8 idle GPUs). dot-product: node 0: 0 + 0.25·0.0125 = 0.003125 → int(99.84) = 99; node 1: 1·0.0125 →
  // int(99.375) = 99: a tie, broken by the seed's node order. best-fit: node 0: 1 − (0.25 + 0.11875) =
  // 0.631 → 63; node 1: 1 − (0.03125 + 0.49375) = 0.475 → 47; normalised: 100 and 0 → node 0 always.
  const Result b = run({node("T4", 2, 64000), node("G2", 8, 8000)}, {pod(1, 100)}, per_arrival("best-fit"));
  CHECK(b.placements[0].node == 0);
}

TEST_CASE("a multi-GPU pod takes all its GPUs on one node", "[packing]")
{
  // Two nodes of 2 GPUs. gpu-packing puts p1 (1 GPU) next to p0 (score 49 > 31 for an idle node), so the
  // 2-GPU p2 still fits the other node; p3 (2 GPUs) then fits nowhere: two GPUs are free, one per node...
  // no: none are free. random may split p0 and p1, and then p2 is dropped although 2 GPUs are free.
  const std::vector<Pod> pods{pod(1, 1000), pod(1, 1000), pod(2, 1000), pod(2, 1000)};
  const Result r = run({node("T4", 2), node("T4", 2)}, pods, per_arrival("gpu-packing"));
  CHECK(r.placements[1].node == r.placements[0].node);
  CHECK(r.placements[2].node != r.placements[0].node);
  CHECK(r.placements[2].gpus == std::vector<int>{0, 1});
  CHECK(r.placements[3].node == -1);
  bool split_seen = false;
  for (std::uint64_t seed = 1; seed <= 20 && !split_seen; ++seed) {
    const Result s = run({node("T4", 2), node("T4", 2)}, pods, per_arrival("random", seed));
    if (s.placements[0].node != s.placements[1].node) {
      split_seen = true;
      CHECK(s.placements[2].node == -1); // one GPU free on each node: no node holds both
    }
  }
  CHECK(split_seen);
}

TEST_CASE("random picks a node uniformly among those that fit, even a rare GPU type", "[packing]")
{
  // 4 identical 8-GPU nodes, 4000 tiny pods (1 milli, 1 milli-CPU): every node always fits, so each
  // should get about 1000 (binomial sd 27; the seeded draw is fixed, the bound is 5 sd).
  std::vector<Node> nodes(4, node("G2", 8, 128000, 1 << 20));
  std::vector<Pod> pods;
  for (int i = 0; i < 4000; ++i)
    pods.push_back(pod(1, 1, 1));
  const Result r = run(nodes, pods, per_arrival("random", 7));
  std::vector<int> per_node(4);
  for (const auto& pl : r.placements)
    ++per_node[static_cast<std::size_t>(pl.node)];
  for (const int c : per_node)
    CHECK(std::abs(c - 1000) < 135);
  // 30 T4 nodes and one V100M32: a V100M32 pod always lands on the V100M32 node.
  std::vector<Node> mixed(30, node("T4", 2));
  mixed.push_back(node("V100M32", 8));
  const Result v =
      run(mixed, {pod(1, 1000, 0, 0, "V100M32"), pod(1, 300, 0, 0, "V100M32")}, per_arrival("random"));
  CHECK(v.placements[0].node == 30);
  CHECK(v.placements[1].node == 30);
}

TEST_CASE("tuning appends draws of the originals until the target, or removes pods above it", "[packing]")
{
  std::vector<Pod> pods{pod(1, 1000), pod(1, 300), pod(2, 1000), pod(0, 0, 1000)};
  // Originals: 3300 milli. Capacity 10 GPUs, tune 1.3: target 13000.
  const auto up = tune_pods(pods, 1.3, 10000, 5);
  REQUIRE(up.size() > pods.size());
  long long total = 0;
  for (std::size_t i = 0; i < up.size(); ++i) {
    total += up[i].total_milli();
    if (i < pods.size())
      CHECK(up[i].id == pods[i].id); // the originals first, in order
    else
      CHECK(up[i].id.find("-tuned-") != std::string::npos);
  }
  // The simulator's stop test adds the drawn pod's per-GPU milli, not its total: the last 2-GPU clone may
  // pass the target by up to 1000. It stops at the first draw whose per-GPU milli (<= 1000) would pass it.
  CHECK(total <= 13000 + 1000);
  CHECK(total > 13000 - 1000);
  // Tune 0.2 of 10 GPUs (2000) from 3300: pods removed until at most 2000, the rest keep their order.
  const auto down = tune_pods(pods, 0.2, 10000, 5);
  long long left = 0;
  for (const auto& p : down)
    left += p.total_milli();
  CHECK(left <= 2000);
  CHECK(down.size() < pods.size());
}

TEST_CASE("the curve has one row per percent of arrived capacity, plus the last arrival", "[packing]")
{
  // 10 GPUs; 25 pods of 100 milli: each arrival is 1 % of the capacity → 25 rows; with a 5 % step: 5 rows.
  std::vector<Pod> pods(25, pod(1, 100));
  Options o;
  o.policy = "best-fit";
  const Result r = run({node("G2", 8), node("T4", 2)}, pods, o);
  CHECK(r.curve.size() == 25);
  o.curve_step = 0.05;
  const Result f = run({node("G2", 8), node("T4", 2)}, pods, o);
  REQUIRE(f.curve.size() == 5);
  CHECK(f.curve[0].arrivals == 5);
  CHECK(f.curve[0].arrived == Approx(0.05));
  CHECK(f.curve[4].allocated == Approx(0.25));
}

TEST_CASE("on an openb slice no two of the six policies place every pod alike", "[packing]")
{
  // 40 G2/T4/P100 nodes of the openb node list and the first 100 pods of `default`, inflated to 1.3 x.
  const auto inventory =
      load_openb_nodes(std::string(COLOCSIM_TEST_DATA) + "/workloads/openb/openb_node_list_all_node.csv");
  std::vector<Node> all = nodes_from(inventory), nodes;
  for (const auto& n : all)
    if (!n.gpu_left.empty() && nodes.size() < 40) nodes.push_back(n);
  const auto pods = load_openb_pods(std::string(COLOCSIM_TEST_DATA) + "/workloads/openb/default-head100.csv");
  REQUIRE(pods.size() == 100);
  std::vector<std::vector<std::pair<long long, std::vector<int>>>> runs;
  for (const auto& policy : policy_names()) {
    Options o;
    o.policy = policy;
    o.seed = 3;
    o.tune = 1.3;
    o.shuffle = true;
    const Result r = run(nodes, pods, o);
    std::vector<std::pair<long long, std::vector<int>>> where;
    for (const auto& pl : r.placements)
      where.emplace_back(pl.node, pl.gpus);
    runs.push_back(where);
  }
  for (std::size_t a = 0; a < runs.size(); ++a)
    for (std::size_t b = a + 1; b < runs.size(); ++b) {
      INFO(policy_names()[a] << " vs " << policy_names()[b]);
      CHECK(runs[a] != runs[b]);
    }
}

TEST_CASE("a gzip-compressed pod list gives exactly the pods of the plain file", "[packing][gzip]")
{
  // default-head100.csv.gz is `gzip -9 -n default-head100.csv` (tests/data/workloads/openb/NOTICE.md).
  const std::string slice = std::string(COLOCSIM_TEST_DATA) + "/workloads/openb/default-head100.csv";
  const auto plain = load_openb_pods(slice);
  const auto gz = load_openb_pods(slice + ".gz");
  REQUIRE(plain.size() == 100);
  REQUIRE(gz.size() == plain.size());
  auto same = [](const Pod& a, const Pod& b) {
    return a.id == b.id && a.cpu == b.cpu && a.mem == b.mem && a.gpus == b.gpus && a.milli == b.milli &&
           a.types == b.types;
  };
  for (std::size_t i = 0; i < plain.size(); ++i) {
    INFO("pod " << i);
    CHECK(same(gz[i], plain[i]));
  }

  // The FGD experiment's bundled list, gzip-compressed: its first 100 pods are the slice's (both are cut from
  // openb_pod_list_default.csv), and its totals are those of the uncompressed original, summed with Python's
  // csv module over its rows (not with this reader): 8,152 pods, 1,088 CPU-only, 3,078 sharing a GPU
  // (0 < gpu_milli < 1000), Σ num_gpu × gpu_milli = 6,086,800, Σ cpu_milli = 85,436,012,
  // Σ memory_mib = 303,546,211; the last row is openb-pod-8151,3152,5600,1,590.
  const auto list = load_openb_pods(std::string(COLOCSIM_SOURCE_DIR) +
                                    "/experiments/repro-fgd-atc23/data/openb_pod_list_default.csv.gz");
  REQUIRE(list.size() == 8152);
  for (std::size_t i = 0; i < plain.size(); ++i) {
    INFO("pod " << i);
    CHECK(same(list[i], plain[i]));
  }
  long long cpu_only = 0, sharing = 0, milli = 0, cpu = 0, mem = 0;
  for (const auto& p : list) {
    cpu_only += p.gpus == 0;
    sharing += p.gpus > 0 && p.milli < MILLI;
    milli += p.total_milli();
    cpu += p.cpu;
    mem += p.mem;
  }
  CHECK(cpu_only == 1088);
  CHECK(sharing == 3078);
  CHECK(milli == 6086800);
  CHECK(cpu == 85436012);
  CHECK(mem == 303546211);
  CHECK(list.back().id == "openb-pod-8151");
  CHECK((list.back().cpu == 3152 && list.back().mem == 5600 && list.back().gpus == 1 &&
         list.back().milli == 590));
}

TEST_CASE("an unknown packing policy is an input error naming the valid ones", "[packing]")
{
  Options o;
  o.policy = "best-fit-frac";
  CHECK_THROWS_WITH(run({node("T4", 1)}, {pod(1, 100)}, o),
                    Catch::Matchers::ContainsSubstring("random, dot-product, gpu-clustering"));
}

TEST_CASE("jobs.csv carries each job's gpu_milli and gpu_types", "[packing][outputs]")
{
  auto stream = std::make_unique<std::ostringstream>();
  std::ostringstream* captured = stream.get();
  MetricsCollector metrics;
  OutputWriter writer(std::move(stream), "jobs.csv", nullptr, "", metrics);
  Job job;
  job.id = "pod-1";
  job.profile = "busy";
  job.gpu_milli = 460;
  job.gpu_types = "V100M16|V100M32";
  JobRecord r;
  r.job = &job;
  r.status = JobStatus::REJECTED;
  r.reason = "fits nowhere";
  writer.on_job_end(r);
  const std::string out = captured->str();
  const auto ends_with = [](const std::string& text, const std::string& tail) {
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
  };
  CHECK(ends_with(out.substr(0, out.find('\n')), ",reason,gpu_milli,gpu_types"));
  CHECK(ends_with(out, ",fits nowhere,460,V100M16|V100M32\n"));
}

TEST_CASE("the curve takes at most a row per arrival, in time bounded by the arrivals whatever the step",
          "[packing]")
{
  // One GPU and 20 pods of 1000 GPUs: each arrival adds 1000 capacities. Stepping a row mark of 1e-6 across
  // them one step at a time was 2e10 additions (tens of seconds), and with 1e-300 it never ended.
  std::vector<Pod> pods(20, pod(1000, MILLI));
  for (const double step : {1e-6, 0.5, 1000.0, 1e-300}) {
    INFO("curve_step " << step);
    Options o;
    o.policy = "best-fit";
    o.curve_step = step;
    const auto t0 = std::chrono::steady_clock::now();
    const Result r = run({node("T4", 1)}, pods, o);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(seconds < 2);
    REQUIRE(r.curve.size() == 20); // every arrival passes a mark (1000 > each step, = the last)
    for (std::size_t i = 0; i < r.curve.size(); ++i) {
      CHECK(r.curve[i].arrivals == i + 1);
      CHECK(r.curve[i].arrived == Approx(1000.0 * static_cast<double>(i + 1)));
    }
  }
  // A step of 1500 capacities: a row at the first arrival at or past 1500, 3000, 4500...: arrivals 2, 3, 5,
  // 6, 8, ... (1000 × k >= 1500 × m), each mark taken once, plus the last.
  Options o;
  o.policy = "best-fit";
  o.curve_step = 1500;
  const Result r = run({node("T4", 1)}, pods, o);
  std::vector<std::size_t> at;
  for (const auto& row : r.curve)
    at.push_back(row.arrivals);
  CHECK(at == std::vector<std::size_t>{2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20});
}

TEST_CASE("pack refuses a curve step below 1e-6, and requests too large for a whole number, at file:line",
          "[packing][cli]")
{
  const auto dir = colocsim::test::fresh_dir("pack-test", "bounds");
  const auto nodes = dir / "nodes.csv", pods = dir / "pods.csv";
  colocsim::test::write_file(nodes, "sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,2,T4\n");
  colocsim::test::write_file(pods, "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np1,1000,1024,1,500\n");
  auto r = colocsim::test::cli({"pack", "--nodes", nodes.string(), "--pods", pods.string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Matchers::ContainsSubstring("placed=1\n"));
  // The option is refused as it is read (before the files: a missing file does not hide it).
  for (const std::string step : {"1e-300", "9e-7"}) {
    r = colocsim::test::cli({"pack", "--nodes", "none.csv", "--pods", "none.csv", "--curve-step", step});
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Matchers::ContainsSubstring("--curve-step: '" + step + "' is below 1e-06"));
  }
  const auto curve = dir / "curve.csv";
  for (const std::string step : {"1e-6", "0"}) { // the smallest step, and 0: a row per pod
    r = colocsim::test::cli({"pack", "--nodes", nodes.string(), "--pods", pods.string(), "--curve-step", step,
                             "-o", curve.string()});
    CHECK(r.status == 0);
    // one pod of half a GPU on 2 GPUs: arrived and allocated 0.25, the idle 1.5 GPUs all usable by it
    CHECK(colocsim::test::slurp(curve.string()) ==
          "arrivals,arrived,allocated,fragmentation,dropped\n1,0.250000,0.250000,0.000000,0\n");
  }
  // 9.3e18 milli-CPU and 1e20 MiB overflowed the whole-number conversion: the pod then fitted every node.
  struct Bad {
    std::filesystem::path file;
    std::string text, where, field;
  };
  const std::vector<Bad> bad{
      {pods, "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1,1,0,0\np1,9300000000000000000,1024,1,500\n",
       pods.string() + ":3",
       "cpu_milli: out of range (got 9.3e+18); expected thousandths of a CPU core, 0..1e+15"},
      {pods, "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np1,1000,1e20,1,500\n", pods.string() + ":2",
       "memory_mib: out of range (got 1e+20); expected MiB of host memory, 0..1e+15"},
      {nodes, "sn,cpu_milli,memory_mib,gpu,model\nn1,1e19,262144,2,T4\n", nodes.string() + ":2",
       "cpu_milli: out of range (got 1e+19); expected milli-cores, 0..1e+15"},
      {nodes, "sn,cpu_milli,memory_mib,gpu,model\nn1,64000,2e15,2,T4\n", nodes.string() + ":2",
       "memory_mib: out of range (got 2e+15); expected MiB of memory, 0..1e+15"},
  };
  for (const auto& b : bad) {
    colocsim::test::write_file(nodes, "sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,2,T4\n");
    colocsim::test::write_file(pods, "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np1,1000,1024,1,500\n");
    colocsim::test::write_file(b.file, b.text);
    r = colocsim::test::cli({"pack", "--nodes", nodes.string(), "--pods", pods.string()});
    INFO(b.text << r.out << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err,
               Catch::Matchers::ContainsSubstring(b.where) && Catch::Matchers::ContainsSubstring(b.field));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("gpu-clustering prefers a node whose pods all share the new pod's affinity over a mixed one",
          "[packing]")
{
  // Node 0 holds one GPU share (tag 0) only: 25 × 500 / 8000 = 1 of fill + 75. Node 1 holds a share (tag 0)
  // and a whole GPU (tag 1): 25 × 1500 / 8000 = 4 of fill + 50. A new share (tag 0) goes to node 0 (76 > 54).
  Node a = node("T4", 8), b = node("T4", 8);
  a.gpu_left[0] = 500;
  a.affinity = {{0, 1}};
  b.gpu_left[0] = 500;
  b.gpu_left[1] = 0;
  b.affinity = {{0, 1}, {1, 1}};
  for (const std::uint64_t seed : {1, 2, 3, 4}) { // whatever the tie order
    const Result r = run({a, b}, {pod(1, 200)}, per_arrival("gpu-clustering", seed));
    REQUIRE(r.placements.size() == 1);
    CHECK(r.placements[0].node == 0);
  }
}
