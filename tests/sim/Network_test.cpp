// Communication that costs time (docs/architecture.md, Network): the platform file's `network:`, the
// profile's `communication:`, and the real engine running gang jobs that communicate, on hand-worked numbers.
//
// Fixture (tests/data/sim/net/): 3 nodes × 2 test tiles (devices 0-1 on node 0, 2-3 on node 1, 4-5 on
// node 2); fabric α_f = 1 ms, β_f = 1e-10 s/B (10 GB/s); one NIC per node, α_x = 5 ms, β_x = 1e-9 s/B
// (1 GB/s). Profile `talk`: per step 2 s of compute, then a ring all-reduce of S = 1 GB. Exclusive devices,
// durations with perfect scaling and s = 0 (e(n) = 1): a job alone on its devices progresses at
// c / (c + T), T the ring's time at its placement (models/Communication.hpp):
//   T = (2(n−1) − 2(k−1))·α_f + 2(k−1)·α_x + 2(n−1)/n · S · β_b.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"
#include "tests/sim/EngineTestSupport.hpp"

#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"
#include "workloads/ProfileCatalog.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace colocsim;
using namespace colocsim::test;
namespace fs = std::filesystem;

namespace {

const std::string NET = std::string(COLOCSIM_TEST_DATA) + "/sim/net/";
const ScratchDirs scratch{"network-test"};

RunOutcome run_net(const std::string& trace, std::vector<std::string> sets = {})
{
  sets.push_back("workload.trace=" + trace);
  return run_scenario(NET + "base-net.yaml", sets);
}

/// build_run of the net scenario on platform file `text` (written to DIR/p.yaml; {DEV} stands for the test
/// device's path).
void build_with_platform(const fs::path& dir, std::string text)
{
  const std::string dev = std::string(COLOCSIM_TEST_DATA) + "/sim/device-test.yaml";
  for (auto at = text.find("{DEV}"); at != std::string::npos; at = text.find("{DEV}"))
    text.replace(at, 5, dev);
  write_file(dir / "p.yaml", text);
  build_run(load_scenario(NET + "base-net.yaml", {"platform.preset=" + (dir / "p.yaml").string()}));
}

const std::string PLATFORM_HEAD = "format: colocsim-platform/1\n" // line 1
                                  "name: t\n"                     // 2
                                  "device: {DEV}\n"               // 3
                                  "nodes: 2\n"                    // 4
                                  "cards_per_node: 1\n"           // 5
                                  "network:\n";                   // 6
const std::string FABRIC = "  fabric:\n"                          // 7
                           "    latency: 1ms\n"                   // 8
                           "    bandwidth: 10GB\n";               // 9
const std::string NIC = "  nic:\n"                                // 10
                        "    per_node: 1\n"                       // 11
                        "    bandwidth: 1GB\n"                    // 12
                        "    latency: 5ms\n";                     // 13

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("network: the platform file's tiers, and the bundled DGX presets'", "[network]")
{
  const auto in = build_run(load_scenario(NET + "base-net.yaml"));
  REQUIRE(in.platform.network);
  const auto& t = in.platform.network->tiers;
  CHECK(t.fabric.alpha.value == 1e-3);
  CHECK_THAT(t.fabric.beta.value, WithinRel(1e-10, 1e-15));
  CHECK(t.nic.alpha.value == 5e-3);
  CHECK_THAT(t.nic.beta.value, WithinRel(1e-9, 1e-15));
  CHECK_FALSE(t.spine);
  // dgx-a100: NVLink busbw 232 GB/s, 8 HDR NICs × 24 GB/s = 192 GB/s; α 3.4 µs and 27.95 µs.
  const auto a100 =
      build_run(load_scenario(NET + "base-net.yaml", {"platform.preset=dgx-a100", "calibration=auto"}));
  REQUIRE(a100.platform.network);
  const auto& a = a100.platform.network->tiers;
  CHECK_THAT(a.fabric.alpha.value, WithinRel(3.4e-6, 1e-12));
  CHECK_THAT(a.fabric.beta.value, WithinRel(1 / 232e9, 1e-12));
  CHECK_THAT(a.nic.alpha.value, WithinRel(27.95e-6, 1e-12));
  CHECK_THAT(a.nic.beta.value, WithinRel(1 / 192e9, 1e-12));
  CHECK(a.nic.beta.source.find("nccl-tests#119") != std::string::npos);
  // dgx-h100: 370 GB/s NVLink; 8 × 48 GB/s = 384 GB/s of NICs.
  const auto h100 =
      build_run(load_scenario(NET + "base-net.yaml", {"platform.preset=dgx-h100", "calibration=auto"}));
  REQUIRE(h100.platform.network);
  CHECK_THAT(h100.platform.network->tiers.fabric.beta.value, WithinRel(1 / 370e9, 1e-12));
  CHECK_THAT(h100.platform.network->tiers.nic.beta.value, WithinRel(1 / 384e9, 1e-12));
  // The fixture without a network declares none.
  CHECK_FALSE(build_run(load_scenario(NET + "base-net.yaml", {"platform.preset=platform-nonet.yaml"}))
                  .platform.network);
}

TEST_CASE("network: a spine's uplinks and the leaf switches of a placement", "[network]")
{
  const auto dir = scratch("spine");
  build_with_platform(dir, PLATFORM_HEAD + FABRIC + NIC +
                               "  spine:\n    nodes_per_leaf: 2\n    uplink_bandwidth: 4GB\n"
                               "    latency: 2ms\n");
  const auto in =
      build_run(load_scenario(NET + "base-net.yaml", {"platform.preset=" + (dir / "p.yaml").string()}));
  REQUIRE(in.platform.network);
  const Network& net = *in.platform.network;
  REQUIRE(net.tiers.spine);
  // A leaf's 4 GB/s of uplinks together (a ring crossing them alone gets all of it): β = 2.5e-10 s/B.
  CHECK_THAT(net.tiers.spine->beta.value, WithinRel(2.5e-10, 1e-12));
  CHECK(net.tiers.spine->alpha.value == 2e-3);
  CHECK(net.nodes_per_leaf == 2);
  // Nodes 1 and 2 hang off leaves 0 and 1; nodes 0 and 1 off leaf 0. Devices on nodes {0, 0, 1}: k = 2 and
  // g = 2 (the most on one node).
  const auto at = net.placement_of(std::vector<std::uint32_t>{1, 2});
  CHECK((at.nodes == 2 && at.per_node == 1 && at.switches == 2 && at.per_leaf == 1));
  const auto packed = net.placement_of(std::vector<std::uint32_t>{0, 1, 0});
  CHECK((packed.nodes == 2 && packed.per_node == 2 && packed.switches == 1 && packed.per_leaf == 2));
  // Nodes 0, 1 (leaf 0) and 2 (leaf 1): 2 switches, 2 nodes under the fullest.
  const auto three = net.placement_of(std::vector<std::uint32_t>{2, 0, 1});
  CHECK((three.nodes == 3 && three.switches == 2 && three.per_leaf == 2));
  // Packed from node 0: 3 nodes hang off 2 leaves, 2 under the first; 2 nodes off one.
  const auto p3 = net.packed(CommPlacement{3, 4});
  CHECK((p3.nodes == 3 && p3.per_node == 4 && p3.switches == 2 && p3.per_leaf == 2));
  const auto p2 = net.packed(CommPlacement{2, 1});
  CHECK((p2.switches == 1 && p2.per_leaf == 2));
  fs::remove_all(dir);
}

TEST_CASE("network: a wrong network section names the file, line, field and what was expected",
          "[network][errors]")
{
  const auto dir = scratch("errors");
  const std::string p = (dir / "p.yaml").string();
  auto fails = [&](const std::string& text, const std::string& message) {
    INFO(text);
    CHECK_THROWS_WITH(build_with_platform(dir, text), ContainsSubstring(message));
  };
  const std::string good = PLATFORM_HEAD + FABRIC + NIC;
  REQUIRE_NOTHROW(build_with_platform(dir, good));
  fails(replaced(good, "    bandwidth: 1GB\n", "    bandwith: 1GB\n"),
        p + ":12:5: network.nic.bandwith: unknown key; valid: per_node, bandwidth, latency");
  fails(replaced(good, "    bandwidth: 1GB\n", "    bandwith: 1GB\n"),
        p + ":11:5: network.nic.bandwidth: missing required key");
  fails(replaced(good, "latency: 1ms", "latency: -1ms"),
        p + ":8:14: network.fabric.latency: out of range (got '-1ms'); expected a value in [0, 1]");
  fails(replaced(good, "bandwidth: 10GB", "bandwidth: 0"),
        p + ":9:16: network.fabric.bandwidth: out of range");
  fails(replaced(good, "    per_node: 1", "    per_node: 2.5"),
        p + ":11:15: network.nic.per_node: not a whole number (got 2.5); expected a count");
  fails(PLATFORM_HEAD + FABRIC,
        p + ":7:3: network.nic: missing required section; expected a map of per_node");
  fails(good + "  switch: {}\n", p + ":14:3: network.switch: unknown key; valid: fabric, nic, spine");
  fails(PLATFORM_HEAD + FABRIC + NIC +
            "  spine:\n    nodes_per_leaf: 0\n    uplink_bandwidth: 4GB\n    latency: 0\n",
        p + ":15:21: network.spine.nodes_per_leaf: out of range");
  fs::remove_all(dir);
}

namespace {
const std::string PROFILE_HEAD = "format: colocsim-profiles/1\n" // 1
                                 "profiles:\n"                   // 2
                                 "  t:\n"                        // 3
                                 "    class: C\n"                // 4
                                 "    duty_cycle: 1\n"           // 5
                                 "    vec_util: 0.5\n"           // 6
                                 "    xmx_util: 0\n"             // 7
                                 "    bw_util: 0\n"              // 8
                                 "    mem: 1GB\n"                // 9
                                 "    freq_sensitive: 1\n"       // 10
                                 "    communication:\n";         // 11
const std::string COMM = "      collective: ring-all-reduce\n"   // 12
                         "      bytes_per_step: 1GB\n"           // 13
                         "      compute_s_per_step: 2s\n";       // 14
} // namespace

TEST_CASE("network: a profile's communication is read with its sources, and checked", "[network][errors]")
{
  const auto catalog = ProfileCatalog::load(PROFILE_HEAD + COMM, "p.yaml");
  const auto& c = catalog.profiles().at(0).communication;
  REQUIRE(c);
  CHECK(c->collective == Collective::RING_ALL_REDUCE);
  CHECK(c->bytes.value == 1e9);
  REQUIRE(c->compute_s);
  CHECK(c->compute_s->value == 2);
  CHECK_FALSE(c->fraction);
  const auto& user = catalog.profiles().at(0).user_supplied;
  CHECK(std::find(user.begin(), user.end(), "communication.bytes_per_step = 1GB") != user.end());
  // The fraction form: compute_s = T(at) · (1 − f) / f on the tiers it runs on (the fixture's: T(2 × 1) =
  // 2·α_x + S·β_x = 1.01 s, so f = 0.25 gives 3.03 s).
  const auto frac = ProfileCatalog::load(
      replaced(
          PROFILE_HEAD + COMM, "      compute_s_per_step: 2s\n",
          "      fraction: {value: 0.25, tag: estimate, source: test}\n      at: {nodes: 2, per_node: 1}\n"),
      "p.yaml");
  const auto& f = *frac.profiles().at(0).communication;
  CHECK(f.at.nodes == 2);
  CommTiers tiers;
  tiers.fabric = CommTier{Sourced{1e-3}, Sourced{1e-10}};
  tiers.nic = CommTier{Sourced{5e-3}, Sourced{1e-9}};
  CHECK_THAT(f.resolve(tiers, CommPlacement{2, 1}).compute_s, WithinRel(3.03, 1e-12));

  auto fails = [&](const std::string& text, const std::string& message) {
    INFO(text);
    CHECK_THROWS_WITH(ProfileCatalog::load(text, "p.yaml"), ContainsSubstring(message));
  };
  const std::string good = PROFILE_HEAD + COMM;
  fails(replaced(good, "ring-all-reduce", "ring"),
        "p.yaml:12:19: profiles.t.communication.collective: unknown collective (got 'ring'); expected one of "
        "ring-all-reduce, tree-all-reduce, all-to-all");
  fails(replaced(good, "2s\n", "-2s\n"), "p.yaml:14:27: profiles.t.communication.compute_s_per_step: out of "
                                         "range (got '-2s'); expected a time > 0");
  fails(replaced(good, "bytes_per_step", "bytes"),
        "p.yaml:13:7: profiles.t.communication.bytes: unknown key");
  fails(replaced(good, "bytes_per_step", "bytes"),
        "p.yaml:12:7: profiles.t.communication.bytes_per_step: missing required key");
  fails(good + "      fraction: 0.5\n",
        "p.yaml:12:7: profiles.t.communication: both compute_s_per_step and fraction given");
  fails(replaced(good, "compute_s_per_step: 2s", "fraction: 0.5"),
        "p.yaml:12:7: profiles.t.communication.at: missing required key with fraction");
  fails(
      replaced(good, "compute_s_per_step: 2s", "fraction: 1\n      at: {nodes: 2, per_node: 1}"),
      "p.yaml:14:17: profiles.t.communication.fraction: out of range (got 1); expected a fraction in (0, 1)");
  fails(replaced(good, "compute_s_per_step: 2s", "fraction: 0.5\n      at: {nodes: 1, per_node: 1}"),
        "p.yaml:15:11: profiles.t.communication.at: one device communicates with nobody; expected nodes x "
        "per_node >= 2");
  fails(replaced(good, "compute_s_per_step: 2s", "fraction: 0.5\n      at: {nodes: 2, per_node: 1.5}"),
        "profiles.t.communication.at.per_node: expected a whole number in [1, 1000000] (got '1.5')");
}

TEST_CASE("network: a 2-node gang pays its ring over the NICs, on one node over the fabric",
          "[network][engine]")
{
  // spread: devices 0 and 2 (k = 2, g = 1, n = 2): T = 2·α_x + 1 · S · β_x = 0.01 + 1 = 1.01 s; the job
  // progresses at 2 / 3.01, so its 100 s take 150.5 s.
  const auto spread = run_net("two.csv", {"policy.placement=spread"});
  const auto& g = spread.jobs.at("g");
  CHECK(g.devices == std::vector<DeviceIndex>{0, 2});
  CHECK_THAT(g.end_s, WithinAbs(150.5, 1e-9));
  CHECK(g.nodes == 2);
  CHECK(g.communicated);
  CHECK_THAT(g.comm_slowdown, WithinRel(1.505, 1e-12));
  // pack: devices 0 and 1 (k = 1, g = 2): T = 2·α_f + 1 · S · β_f = 0.002 + 0.1 = 0.102 s: 100 · 2.102 / 2 =
  // 105.1 s, earlier by exactly 100 · (1.01 − 0.102) / 2 = 45.4 s.
  const auto pack = run_net("two.csv", {"policy.placement=pack"});
  const auto& p = pack.jobs.at("g");
  CHECK(p.devices == std::vector<DeviceIndex>{0, 1});
  CHECK_THAT(p.end_s, WithinAbs(105.1, 1e-9));
  CHECK(p.nodes == 1);
  CHECK_THAT(g.end_s - p.end_s, WithinAbs(45.4, 1e-9));
}

TEST_CASE("network: a ring across 3 nodes, and a gang spread unevenly", "[network][engine]")
{
  // spread: one device per node (k = 3, g = 1, n = 3): T = 4·α_x + 2·(2/3)·S·β_x = 0.02 + 4/3 s; 100 s of
  // work take 100 · (2 + 0.02 + 4/3) / 2 = 167.666... s.
  const auto spread = run_net("three.csv", {"policy.placement=spread"});
  CHECK_THAT(spread.jobs.at("g").end_s, WithinAbs(100 * (2 + 0.02 + 4.0 / 3) / 2, 1e-9));
  CHECK(spread.jobs.at("g").nodes == 3);
  // pack: devices 0, 1 (node 0) and 2 (node 1): costed as 2 nodes × 2 (the most on one node), n = 4:
  // T = (6 − 2)·α_f + 2·α_x + 2·(3/4)·S·max(β_f, β_x) = 0.004 + 0.01 + 1.5 = 1.514 s: 100 · 3.514 / 2 =
  // 175.7.
  const auto pack = run_net("three.csv", {"policy.placement=pack"});
  CHECK(pack.jobs.at("g").devices == std::vector<DeviceIndex>{0, 1, 2});
  CHECK_THAT(pack.jobs.at("g").end_s, WithinAbs(175.7, 1e-9));
}

TEST_CASE("network: one device, a profile without communication, no network, or measured durations: no cost",
          "[network][engine]")
{
  // A single-device job of the communicating profile and a 2-device job of `quiet`: each ends at 100.
  const auto o = run_net("alone.csv", {"policy.placement=spread"});
  CHECK_THAT(o.jobs.at("one").end_s, WithinAbs(100.0, 1e-9));
  CHECK_FALSE(o.jobs.at("one").communicated);
  CHECK_THAT(o.jobs.at("q").end_s, WithinAbs(100.0, 1e-9));
  CHECK(o.jobs.at("q").nodes == 2);
  CHECK(o.jobs.at("q").comm_slowdown == 1.0);
  // The same platform without its network: the spread gang runs its 100 s.
  const auto bare = run_net("two.csv", {"policy.placement=spread", "platform.preset=platform-nonet.yaml"});
  CHECK_THAT(bare.jobs.at("g").end_s, WithinAbs(100.0, 1e-9));
  CHECK_FALSE(bare.jobs.at("g").communicated);
  // Durations measured at the job's own scale already contain its communication.
  const auto own = run_net("two.csv", {"policy.placement=spread", "workload.durations_at=own-gpu-count"});
  CHECK_THAT(own.jobs.at("g").end_s, WithinAbs(100.0, 1e-9));
}

TEST_CASE("network: a profile that states its fraction at a placement", "[network][engine]")
{
  // half: f = 0.5 at 2 nodes × 1: compute_s = T(2 × 1) = 1.01 s. Spread (the stated placement): efficiency
  // 1/2, so 200 s. Packed on one node: T = 0.102 s, 100 · (1.01 + 0.102) / 1.01 s.
  CHECK_THAT(run_net("half.csv", {"policy.placement=spread"}).jobs.at("h").end_s, WithinAbs(200.0, 1e-9));
  CHECK_THAT(run_net("half.csv", {"policy.placement=pack"}).jobs.at("h").end_s,
             WithinAbs(100 * 1.112 / 1.01, 1e-9));
}

TEST_CASE("network: jobs.csv and summary.json carry nodes and the communication slowdown",
          "[network][outputs]")
{
  const auto dir = scratch("outputs");
  const auto r = cli({"run", NET + "base-net.yaml", "--set", "workload.trace=" + NET + "three.csv", "--set",
                      "policy.placement=spread", "-o", (dir / "out").string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto rows = read_csv_cells(dir / "out" / "jobs.csv");
  REQUIRE(rows.size() == 2);
  REQUIRE(rows[0].size() >= 2);
  CHECK(rows[0][rows[0].size() - 2] == "nodes");
  CHECK(rows[0].back() == "comm_slowdown");
  CHECK(rows[1][rows[1].size() - 2] == "3");
  // 1 / efficiency = (2 + 0.02 + 4/3) / 2 = 1.67666...
  CHECK_THAT(std::stod(rows[1].back()), WithinRel((2 + 0.02 + 4.0 / 3) / 2, 1e-12));
  std::ifstream in(dir / "out" / "summary.json");
  const std::string summary((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(summary, ContainsSubstring("\"jobs_communicating\": 1,"));
  CHECK_THAT(summary, ContainsSubstring("\"comm_slowdown_mean\": 1.67666"));
  CHECK_THAT(summary, ContainsSubstring("\"jobs_link_contended\": 0\n"));
  // Two chatty jobs on the same two nodes (see the flows test below): each ends at 400 s, its device work at
  // 302 s, so comm_slowdown = 3.02 · 400 / 302 = 4 for both, and both were slowed by link contention.
  const auto c = cli({"run", NET + "base-net.yaml", "--set", "workload.trace=" + NET + "contend.csv", "--set",
                      "policy.placement=spread", "-o", (dir / "contend").string(), "--quiet"});
  INFO(c.err);
  REQUIRE(c.status == 0);
  const auto crows = read_csv_cells(dir / "contend" / "jobs.csv");
  REQUIRE(crows.size() == 3);
  CHECK_THAT(std::stod(crows[1].back()), WithinRel(4.0, 1e-9));
  CHECK_THAT(std::stod(crows[2].back()), WithinRel(4.0, 1e-9));
  std::ifstream cin(dir / "contend" / "summary.json");
  const std::string csum((std::istreambuf_iterator<char>(cin)), std::istreambuf_iterator<char>());
  CHECK_THAT(csum, ContainsSubstring("\"jobs_communicating\": 2,"));
  const auto mean_at = csum.find("\"comm_slowdown_mean\": ");
  REQUIRE(mean_at != std::string::npos);
  CHECK_THAT(std::stod(csum.substr(mean_at + 22)), WithinRel(4.0, 1e-9));
  CHECK_THAT(csum, ContainsSubstring("\"jobs_link_contended\": 2\n"));
  // No network: neither the columns nor the keys (the outputs of every run before communication existed).
  const auto bare =
      cli({"run", NET + "base-net.yaml", "--set", "platform.preset=" + NET + "platform-nonet.yaml", "-o",
           (dir / "bare").string(), "--quiet"});
  REQUIRE(bare.status == 0);
  CHECK(read_csv_cells(dir / "bare" / "jobs.csv")[0].back() == "gpu_types");
  std::ifstream bin(dir / "bare" / "summary.json");
  const std::string bsum((std::istreambuf_iterator<char>(bin)), std::istreambuf_iterator<char>());
  CHECK(bsum.find("comm_slowdown") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("network: two jobs whose rings share the NICs of their nodes get half of each, on disjoint nodes "
          "all of it",
          "[network][engine][flows]")
{
  // chatty: per step 0.5 s of compute, a ring all-reduce of S = 1 GB. Spread on 2 nodes (k = 2, g = 1):
  // T = 2·α_x + S·β_x = 1.01 s, so alone 100 s of work take 100 · 1.51 / 0.5 = 302 s. Its 200 steps each
  // send 2(n−1)/n · S = 1 GB out of each node: two flows (node 0 → 1, 1 → 0) of 2e11 B, bounded by
  // 2e11 / 302 B/s (0.662 GB/s). Two such jobs on the same two nodes ask 1.325 GB/s of each 1 GB/s NIC
  // half: max-min gives each 0.5 GB/s, so their flows take 2e11 / 5e8 = 400 s and both end at 400 s; their
  // device work ended at 302 s. comm_slowdown: 1.51 / 0.5 × 400 / 302 = 4.
  const auto shared = run_net("contend.csv", {"policy.placement=spread"});
  const auto& a = shared.jobs.at("a");
  const auto& b = shared.jobs.at("b");
  INFO("a on " << a.devices.at(0) << "," << a.devices.at(1) << "; b on " << b.devices.at(0) << ","
               << b.devices.at(1));
  CHECK(a.devices == std::vector<DeviceIndex>{0, 2});
  CHECK(b.devices == std::vector<DeviceIndex>{1, 3});
  CHECK_THAT(a.end_s, WithinRel(400.0, 1e-9));
  CHECK_THAT(b.end_s, WithinRel(400.0, 1e-9));
  CHECK_THAT(a.comm_slowdown, WithinRel(4.0, 1e-9));
  CHECK(a.link_contended);
  CHECK(b.link_contended);
  // On 4 nodes, with a quiet job on the second devices of a's nodes, b spreads over nodes 2 and 3: no link
  // in common, each ends as if alone, at 302 s.
  const auto apart = run_net("apart.csv", {"policy.placement=spread", "platform.preset=platform-net4.yaml"});
  const auto& a4 = apart.jobs.at("a");
  const auto& b4 = apart.jobs.at("b");
  INFO("a on " << a4.devices.at(0) << "," << a4.devices.at(1) << "; b on " << b4.devices.at(0) << ","
               << b4.devices.at(1));
  CHECK(a4.devices == std::vector<DeviceIndex>{0, 2});
  CHECK(b4.devices == std::vector<DeviceIndex>{4, 6});
  CHECK_THAT(a4.end_s, WithinAbs(302.0, 1e-9));
  CHECK_THAT(b4.end_s, WithinAbs(302.0, 1e-9));
  CHECK_THAT(a4.comm_slowdown, WithinRel(3.02, 1e-12));
  CHECK_FALSE(a4.link_contended);
}

TEST_CASE("network: two jobs whose rings cross the same leaf uplinks get half of them, alone all it needs",
          "[network][engine][flows][spine]")
{
  // platform-net4-spine: NICs 10 GB/s (β_x = 1e-10), α_x 5 ms; leaves {0, 1} and {2, 3}, each leaf's
  // uplinks 1 GB/s (β_s = 1e-9), α_s 2 ms. p and q fill node 0, so a and b (chatty: 0.5 s of compute and a
  // 1 GB ring per step) each get one device on node 1 and one on node 2 (k = 2, g = 1, two switches):
  // T = 2·(α_x + α_s) + S·max(β_x, β_s) = 0.014 + 1 = 1.014 s, so alone 100 s of work take
  // 100 · 1.514 / 0.5 = 302.8 s; each node sends 1 GB a step, 200 steps: a flow of 2e11 B per node bounded
  // at 2e11 / 302.8 B/s (0.66 GB/s), within a 1 GB/s uplink alone. The flows 1 → 2 of a and b both go up
  // leaf 0's uplink (and down leaf 1's), those 2 → 1 up leaf 1's: 1.32 GB/s asked of 1 GB/s, so max-min
  // gives each 0.5 GB/s and their 2e11 B take 400 s; the NICs (10 GB/s) carry them easily. comm_slowdown:
  // 1.514 / 0.5 × 400 / 302.8 = 4. (A node's static share of the uplinks, 0.5 GB/s, would have made T
  // 2.014 s and each job end at 502.8 s.)
  const std::vector<std::string> sets = {"policy.placement=spread",
                                         "platform.preset=platform-net4-spine.yaml"};
  const auto o = run_net("uplink.csv", sets);
  const auto& a = o.jobs.at("a");
  const auto& b = o.jobs.at("b");
  INFO("a on " << a.devices.at(0) << "," << a.devices.at(1) << "; b on " << b.devices.at(0) << ","
               << b.devices.at(1));
  CHECK(o.jobs.at("p").devices == std::vector<DeviceIndex>{0});
  CHECK(o.jobs.at("q").devices == std::vector<DeviceIndex>{1});
  CHECK(a.devices == std::vector<DeviceIndex>{2, 4});
  CHECK(b.devices == std::vector<DeviceIndex>{3, 5});
  for (const auto* j : {&a, &b}) {
    CHECK(j->nodes == 2);
    CHECK_THAT(j->end_s, WithinRel(400.0, 1e-9));
    CHECK_THAT(j->comm_slowdown, WithinRel(4.0, 1e-9));
    CHECK(j->link_contended);
  }
  // a alone: its flows fit the uplinks, it ends at 302.8 s.
  const auto dir = scratch("uplink-alone");
  write_file(dir / "t.csv", "id,submit_s,duration_s,devices,profile\np,0,1000,1,quiet\nq,0,1000,1,quiet\n"
                            "a,0,100,2,chatty\n");
  const auto alone = run_net((dir / "t.csv").string(), sets);
  CHECK(alone.jobs.at("a").devices == std::vector<DeviceIndex>{2, 4});
  CHECK_THAT(alone.jobs.at("a").end_s, WithinRel(302.8, 1e-12));
  CHECK_THAT(alone.jobs.at("a").comm_slowdown, WithinRel(3.028, 1e-12));
  CHECK_FALSE(alone.jobs.at("a").link_contended);
  // Under one leaf (nodes_per_leaf 4, the uplinks never crossed), a and b take the same devices and pay only
  // their NICs: T = 2·α_x + S·β_x = 0.11 s, 100 · 0.61 / 0.5 = 122 s; their flows (2e11 / 122 B/s each,
  // 3.28 GB/s for two) fit a 10 GB/s NIC half.
  std::string one_leaf = slurp(NET + "platform-net4-spine.yaml");
  one_leaf = replaced(one_leaf, "nodes_per_leaf: {value: 2,", "nodes_per_leaf: {value: 4,");
  one_leaf = replaced(one_leaf, "device: ../device-test.yaml",
                      "device: " + std::string(COLOCSIM_TEST_DATA) + "/sim/device-test.yaml");
  write_file(dir / "one-leaf.yaml", one_leaf);
  const auto inside = run_net(
      "uplink.csv", {"policy.placement=spread", "platform.preset=" + (dir / "one-leaf.yaml").string()});
  for (const char* id : {"a", "b"}) {
    INFO(id);
    CHECK_THAT(inside.jobs.at(id).end_s, WithinRel(122.0, 1e-12));
    CHECK_FALSE(inside.jobs.at(id).link_contended);
  }
  fs::remove_all(dir);
}

TEST_CASE("network: a job whose flows ran alone at their bound shares its links from the moment another "
          "job overloads them",
          "[network][engine][flows]")
{
  // a (chatty) alone on nodes 0 and 1 from 0 s: its flows run at their bound β = 2e11 / 302 B/s (0.662
  // GB/s), within its 1 GB/s NIC halves, so they need not be in SimGrid. At 100 s b (chatty) takes the
  // other devices of the same nodes: 2β asked of each NIC half, so both jobs' flows share it, 0.5 GB/s each.
  // a has sent 100β and has 202β left: 202β / 5e8 s = 267.55 s, ending at 367.55 s (its device work ended
  // at 302 s: held). b has then sent 202β too and goes on alone at β: 100β more take 100 s, so it ends at
  // 467.55 s (its device work ended at 402 s). Left outside SimGrid after 100 s, a would end at 302 s and b
  // at 402 s.
  const double beta = 2e11 / 302;
  const double a_end = 100 + 202 * beta / 5e8;
  const auto o = run_net("late.csv", {"policy.placement=spread"});
  const auto& a = o.jobs.at("a");
  const auto& b = o.jobs.at("b");
  CHECK(a.devices == std::vector<DeviceIndex>{0, 2});
  CHECK(b.devices == std::vector<DeviceIndex>{1, 3});
  CHECK_THAT(a.end_s, WithinRel(a_end, 1e-9));
  CHECK_THAT(b.end_s, WithinRel(a_end + 100, 1e-9));
  CHECK(a.link_contended);
  CHECK(b.link_contended);
  // comm_slowdown: 1.51 / 0.5 × (end − start) / (device work's end − start).
  CHECK_THAT(a.comm_slowdown, WithinRel(3.02 * a_end / 302, 1e-9));
  CHECK_THAT(b.comm_slowdown, WithinRel(3.02 * (a_end + 100 - 100) / 302, 1e-9));
}

TEST_CASE("network: flows that fit in a link together do not slow each other (each at most at its own rate)",
          "[network][engine][flows]")
{
  // a (chatty, 100 s) and c (talk, 1000 s) spread on nodes 0 and 1. c alone: T = 1.01 s, c/(c+T) = 2/3.01,
  // so 1000 · 3.01 / 2 = 1505 s, and its flows carry 500 steps × 1 GB = 5e11 B at 5e11 / 1505 B/s
  // (0.332 GB/s). a's flows ask 2e11 / 302 B/s (0.662 GB/s): 0.994 GB/s in all, within each 1 GB/s NIC
  // half, so both end as if alone: a at 302 s, c at 1505 s. (Flows without their bound would share each
  // NIC half evenly, 0.5 GB/s each, and a's 2e11 B would take 400 s.)
  const auto o = run_net("mixed.csv", {"policy.placement=spread"});
  const auto& a = o.jobs.at("a");
  const auto& c = o.jobs.at("c");
  CHECK(a.devices == std::vector<DeviceIndex>{0, 2});
  CHECK(c.devices == std::vector<DeviceIndex>{1, 3});
  CHECK_THAT(a.end_s, WithinAbs(302.0, 1e-9));
  CHECK_THAT(c.end_s, WithinAbs(1505.0, 1e-9));
  CHECK_FALSE(a.link_contended);
  CHECK_FALSE(c.link_contended);
}

TEST_CASE("network: a job whose device rate changes restarts its flows at the new rate",
          "[network][engine][flows]")
{
  // Time-slice devices, first-fit: q (quiet, 1 device) and a (chatty, spread over nodes 0 and 1) share one
  // device; C|C co-runners slow each other 2.5× (calibration-test: Σd = 2, table 1.25), so until q ends a
  // runs at 0.4 · 0.5 / 1.51 and q at 0.4: q's 100 s take 250 s. By then a has done 250 · 0.4 / 3.02 of its
  // 100 s; the rest takes 302 − 250 · 0.4 = 202 s alone: it ends at 452 s. Its flows follow: bounded at
  // 0.4 · 2e11 / 302 B/s until 250 s, then restarted with what is left at 2e11 / 302 B/s, they end with it.
  // (Flows left at the first bound would need 2e11 / (0.4 · 2e11 / 302) = 755 s.)
  const auto o = run_net("slowed.csv",
                         {"policy.placement=spread", "platform.sharing=time-slice", "policy.name=first-fit"});
  const auto& q = o.jobs.at("q");
  const auto& a = o.jobs.at("a");
  INFO("q on " << q.devices.at(0) << "; a on " << a.devices.at(0) << "," << a.devices.at(1));
  CHECK_THAT(q.end_s, WithinAbs(250.0, 1e-9));
  CHECK_THAT(a.end_s, WithinAbs(452.0, 1e-9));
  CHECK_FALSE(a.link_contended);
}

namespace {

/// timeseries.csv of `colocsim run` on the net scenario with `trace`, spread placement and the extra
/// settings.
std::vector<std::vector<std::string>> series_of(const fs::path& dir, const std::string& trace,
                                                std::vector<std::string> sets = {})
{
  std::vector<std::string> args = {"run",     NET + "base-net.yaml",
                                   "--set",   "workload.trace=" + NET + trace,
                                   "--set",   "policy.placement=spread",
                                   "-o",      (dir / "out").string(),
                                   "--quiet", "--force"};
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  const auto r = cli(args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return read_csv_cells(dir / "out" / "timeseries.csv");
}

/// The (t_s, busiest_link_util) pairs of a timeseries.csv, its last column checked by name.
std::vector<std::pair<double, double>> link_column(const std::vector<std::vector<std::string>>& rows)
{
  REQUIRE(!rows.empty());
  REQUIRE(rows[0].front() == "t_s");
  REQUIRE(rows[0].back() == "busiest_link_util");
  std::vector<std::pair<double, double>> out;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    REQUIRE(rows[i].size() == rows[0].size());
    out.emplace_back(std::stod(rows[i].front()), std::stod(rows[i].back()));
  }
  return out;
}

} // namespace

TEST_CASE("network: timeseries.csv gives the busiest link's utilisation, alone and shared",
          "[network][outputs][flows]")
{
  const auto dir = scratch("link-util");
  // g (talk) spread on nodes 0 and 1 (see the 2-node test): 50 steps of 2 s of compute, each sending 1 GB out
  // of each node, so each flow carries 5e10 B over its 150.5 s: 5e10 / 150.5 B/s on each 1 GB/s NIC half,
  // utilisation 50 / 150.5 = 100/301 from 0 to its end; nothing after.
  {
    const auto rows = link_column(series_of(dir, "two.csv"));
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].first == 0.0);
    CHECK_THAT(rows[0].second, WithinRel(100.0 / 301, 1e-9));
    CHECK_THAT(rows[1].first, WithinAbs(150.5, 1e-9));
    CHECK(rows[1].second == 0.0);
  }
  // a and b (chatty) on the same two nodes (the contention test): each NIC half carries one flow of each at
  // 0.5 GB/s, utilisation 1 from 0 until both end at 400 s (their device work ends at 302 s, with no row:
  // nothing changes on the links there).
  {
    const auto rows = link_column(series_of(dir, "contend.csv"));
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].first == 0.0);
    CHECK_THAT(rows[0].second, WithinRel(1.0, 1e-9));
    CHECK_THAT(rows[1].first, WithinRel(400.0, 1e-9));
    CHECK(rows[1].second == 0.0);
  }
  // a (chatty, 2e11 / 302 B/s) and c (talk, 5e11 / 1505 B/s) on nodes 0 and 1, within the 1 GB/s together:
  // 200/302 + 500/1505 until a ends at 302 s, then c's 500/1505 until 1505 s.
  const double a_rate = 200.0 / 302, c_rate = 500.0 / 1505;
  {
    const auto rows = link_column(series_of(dir, "mixed.csv"));
    REQUIRE(rows.size() == 3);
    CHECK_THAT(rows[0].second, WithinRel(a_rate + c_rate, 1e-9));
    CHECK_THAT(rows[1].first, WithinAbs(302.0, 1e-9));
    CHECK_THAT(rows[1].second, WithinRel(c_rate, 1e-9));
    CHECK_THAT(rows[2].first, WithinAbs(1505.0, 1e-9));
    CHECK(rows[2].second == 0.0);
  }
  // Interval rows of 1000 s: the mean over [0, 1000) is (302·(a_rate + c_rate) + 698·c_rate) / 1000 =
  // 0.2 + c_rate, integrated across the change at 302 s; [1000, 1505) holds c_rate; the last row, at the end,
  // 0.
  {
    const auto rows = link_column(series_of(dir, "mixed.csv", {"outputs.timeseries=1000s"}));
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].first == 0.0);
    CHECK_THAT(rows[0].second, WithinRel(0.2 + c_rate, 1e-9));
    CHECK(rows[1].first == 1000.0);
    CHECK_THAT(rows[1].second, WithinRel(c_rate, 1e-9));
    CHECK_THAT(rows[2].first, WithinAbs(1505.0, 1e-9));
    CHECK(rows[2].second == 0.0);
  }
  // Between leaves (platform-net4-spine, the uplink test): a's and b's flows 1 → 2 share leaf 0's 1 GB/s
  // uplink at 0.5 GB/s each, utilisation 1 until both end at 400 s, while the 10 GB/s NIC halves they cross
  // are at 0.1; the quiet jobs end at 1000 s with nothing on the links.
  {
    const auto rows =
        link_column(series_of(dir, "uplink.csv", {"platform.preset=" + NET + "platform-net4-spine.yaml"}));
    REQUIRE(rows.size() >= 2);
    CHECK(rows[0].first == 0.0);
    CHECK_THAT(rows[0].second, WithinRel(1.0, 1e-9));
    CHECK_THAT(rows[1].first, WithinRel(400.0, 1e-9));
    for (std::size_t i = 1; i < rows.size(); ++i)
      CHECK(rows[i].second == 0.0);
  }
  // Without a network the file keeps its columns.
  const auto bare = series_of(dir, "two.csv", {"platform.preset=" + NET + "platform-nonet.yaml"});
  REQUIRE(!bare.empty());
  CHECK(bare[0].back() == "waiting_jobs");
  fs::remove_all(dir);
}

TEST_CASE("network: bench --network makes a share of the jobs multi-node and communicating", "[network][cli]")
{
  const auto value = [](const std::string& out, const std::string& key) {
    const auto at = out.find("\n" + key + "=");
    REQUIRE(at != std::string::npos);
    return std::stod(out.substr(at + key.size() + 2));
  };
  const std::vector<std::string> base = {"bench", "--jobs", "400", "--tiles", "20"};
  auto with = [&](std::vector<std::string> extra) {
    auto args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = cli(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return r.out;
  };
  // 5 % of 400 jobs: 20 expected; a binomial draw stays within 6 and 40 but for a 1e-4 chance (the seed fixes
  // it). Each is a 4-tile job on nodes of 2 tiles, so it spans 2 nodes or more and communicates: its
  // slowdown is at least 1 / (1 − 0.2) = 1.25, the profile's fraction at 2 nodes × 2.
  const std::string net = with({"--network"});
  const double multi = value(net, "multi_node_jobs");
  CHECK(multi >= 6);
  CHECK(multi <= 40);
  CHECK(value(net, "jobs_completed") == 400);
  CHECK(value(net, "jobs_communicating") == multi);
  CHECK(value(net, "comm_slowdown_mean") >= 1.25 * (1 - 1e-6));
  // Share 0: the network's platform and no multi-node job, which simulates as the plain bench does (a network
  // costs nothing when no job communicates).
  const std::string none = with({"--network", "--multi-node-share", "0"});
  CHECK(value(none, "multi_node_jobs") == 0);
  CHECK(value(none, "jobs_communicating") == 0);
  const std::string plain = with({});
  CHECK_THAT(plain, !ContainsSubstring("multi_node_jobs"));
  CHECK(value(none, "makespan_s") == value(plain, "makespan_s"));
  CHECK(value(none, "energy_total_j") == value(plain, "energy_total_j"));
  // --free-network: the same jobs (the same draws, so as many multi-node ones) on the same nodes, the network
  // left out: none communicates.
  const std::string free = with({"--network", "--free-network"});
  CHECK(value(free, "multi_node_jobs") == multi);
  CHECK(value(free, "jobs_completed") == 400);
  CHECK(value(free, "jobs_communicating") == 0);
  CHECK_THAT(free, !ContainsSubstring("comm_slowdown_mean"));
  const auto bad = cli({"bench", "--multi-node-share", "1.5"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, ContainsSubstring("--multi-node-share expects a share of jobs, 0..1 (got '1.5')"));
  const auto mig = cli({"bench", "--network", "--platform", "dgx-a100"});
  CHECK(mig.status == 2);
  CHECK_THAT(mig.err, ContainsSubstring("--network runs on Max 1550 tiles"));
}

namespace {

// Aurora's Slingshot-11 as the presets aurora and aurora-node declare it (docs/formats/platform.md, Network):
// Xe Link fabric α 3.4 µs, busbw 28 GB/s; 8 NICs of 24 GB/s busbw each, α 27.95 µs; a dragonfly group of 64
// nodes as a leaf, its global links 8.31 TB/s (1.38 PB/s / 166 groups), no latency of their own.
constexpr double AURORA_FABRIC_ALPHA = 3.4e-6;
constexpr double AURORA_FABRIC_BW = 28e9;
constexpr double AURORA_NICS = 8;
constexpr double AURORA_NIC_BW = 24e9;
constexpr double AURORA_NIC_ALPHA = 27.95e-6;
constexpr double AURORA_GROUP_NODES = 64;
constexpr double AURORA_GROUP_UPLINK = 8.31e12;
constexpr double AURORA_GLOBAL_ALPHA = 0;

/// The net scenario on aurora-node with `nodes` nodes, the trace written to DIR/trace.csv.
RunOutcome run_aurora(const fs::path& dir, int nodes, const std::string& trace)
{
  write_file(dir / "trace.csv", "id,submit_s,duration_s,devices,profile\n" + trace);
  return run_net((dir / "trace.csv").string(),
                 {"platform.preset=aurora-node", "calibration=auto",
                  "platform.nodes=" + std::to_string(nodes), "policy.placement=spread"});
}

} // namespace

TEST_CASE("network: the Aurora presets declare Slingshot-11 as NICs and dragonfly groups",
          "[network][aurora]")
{
  for (const char* preset : {"aurora-node", "aurora"}) {
    INFO(preset);
    const auto in = build_run(
        load_scenario(NET + "base-net.yaml", {std::string("platform.preset=") + preset, "calibration=auto"}));
    REQUIRE(in.platform.network);
    const Network& net = *in.platform.network;
    CHECK_THAT(net.tiers.fabric.alpha.value, WithinRel(AURORA_FABRIC_ALPHA, 1e-12));
    CHECK_THAT(net.tiers.fabric.beta.value, WithinRel(1 / AURORA_FABRIC_BW, 1e-12));
    CHECK_THAT(net.tiers.nic.alpha.value, WithinRel(AURORA_NIC_ALPHA, 1e-12));
    CHECK_THAT(net.tiers.nic.beta.value, WithinRel(1 / (AURORA_NICS * AURORA_NIC_BW), 1e-12));
    REQUIRE(net.tiers.spine);
    // A group's 8.31 TB/s of global links one way, as one link its 64 nodes' flows share.
    CHECK_THAT(net.tiers.spine->beta.value, WithinRel(1 / AURORA_GROUP_UPLINK, 1e-12));
    CHECK(net.tiers.spine->alpha.value == AURORA_GLOBAL_ALPHA);
    CHECK(net.nodes_per_leaf == AURORA_GROUP_NODES);
    // Every number is sourced, and the estimates say so.
    CHECK(net.tiers.nic.beta.evidence == Evidence::ESTIMATE);
    CHECK(net.tiers.nic.alpha.evidence == Evidence::ESTIMATE);
    CHECK(net.tiers.spine->beta.source.find("1.38 PB/s") != std::string::npos);
  }
  // Nodes 63 and 64 are in different groups; 0 and 63 in the same.
  const auto in =
      build_run(load_scenario(NET + "base-net.yaml", {"platform.preset=aurora", "calibration=auto"}));
  CHECK(in.platform.network->placement_of(std::vector<std::uint32_t>{0, 63}).switches == 1);
  CHECK(in.platform.network->placement_of(std::vector<std::uint32_t>{63, 64}).switches == 2);
  CHECK(in.platform.network->packed(CommPlacement{10624, 12}).switches == 166);
}

TEST_CASE("network: on Aurora, a 2-node ring all-reduce crosses 8 Slingshot NICs, a 2-tile one Xe Link",
          "[network][aurora][engine]")
{
  const auto dir = scratch("aurora-two");
  // talk: per step 2 s of compute and a ring all-reduce of S = 1 GB; 100 s of work.
  const double s = 1e9;
  // spread over 2 nodes of one group, one tile each (k = 2, g = 1, n = 2): T = 2·α_nic + (2·1/2)·S·β_nic with
  // β_nic = 1 / (8 × 24 GB/s).
  const double t_nic = 2 * AURORA_NIC_ALPHA + s / (AURORA_NICS * AURORA_NIC_BW);
  const auto spread = run_aurora(dir, 2, "g,0,100,2,talk\n");
  const auto& g = spread.jobs.at("g");
  CHECK(g.devices == std::vector<DeviceIndex>{0, 12});
  CHECK(g.nodes == 2);
  CHECK_THAT(g.end_s, WithinRel(100 * (2 + t_nic) / 2, 1e-12));
  CHECK_THAT(g.comm_slowdown, WithinRel((2 + t_nic) / 2, 1e-12));
  // On one node, two tiles (k = 1, g = 2): T = 2·α_fabric + S·β_fabric, β_fabric = 1 / 28 GB/s.
  const double t_fabric = 2 * AURORA_FABRIC_ALPHA + s / AURORA_FABRIC_BW;
  const auto one = run_aurora(dir, 1, "g,0,100,2,talk\n");
  CHECK(one.jobs.at("g").devices == std::vector<DeviceIndex>{0, 1});
  CHECK_THAT(one.jobs.at("g").end_s, WithinRel(100 * (2 + t_fabric) / 2, 1e-12));
  fs::remove_all(dir);
}

TEST_CASE(
    "network: on Aurora, gangs that leave their dragonfly group cross its global links at their NICs' pace",
    "[network][aurora][engine]")
{
  const auto dir = scratch("aurora-groups");
  const double s = 1e9;
  // A ring over k nodes, one tile each (n = k, g = 1): 2(k−1) inter-node steps, 2(k−1)/k · S bytes.
  auto ring = [&](int k, double alpha, double beta) {
    return 2 * (k - 1) * alpha + 2.0 * (k - 1) / k * s * beta;
  };
  const double beta_nic = 1 / (AURORA_NICS * AURORA_NIC_BW);
  const double beta_group = 1 / AURORA_GROUP_UPLINK;
  // 64 nodes, one group: the NICs set the pace.
  const auto inside = run_aurora(dir, 64, "a,0,100,64,talk\n");
  CHECK(inside.jobs.at("a").nodes == 64);
  CHECK_THAT(inside.jobs.at("a").end_s,
             WithinRel(100 * (2 + ring(64, AURORA_NIC_ALPHA, beta_nic)) / 2, 1e-12));
  // Two gangs of 65 tiles on 66 nodes, one tile per node: each spans both groups, so its inter-node hop takes
  // α_nic + α_global, and its ring crosses each group's global links once each way: max(β_nic, β_group) =
  // β_nic, 192 GB/s against 8.31 TB/s. Their four flows across the groups (about 1 GB/s each) are far
  // within the links' 8.31 TB/s, and their flows fit their NICs together: neither slows the other. (A
  // node's static share of the group's links, 8.31 TB/s / 64 = 129.8 GB/s, was charged before they were
  // SimGrid links.)
  const double t_cross = ring(65, AURORA_NIC_ALPHA + AURORA_GLOBAL_ALPHA, std::max(beta_nic, beta_group));
  const auto both = run_aurora(dir, 66, "a,0,100,65,talk\nb,0,100,65,talk\n");
  for (const char* id : {"a", "b"}) {
    INFO(id);
    const auto& j = both.jobs.at(id);
    CHECK(j.nodes == 65);
    const auto [lo, hi] = std::minmax_element(j.devices.begin(), j.devices.end());
    CHECK(*lo / 12 < 64); // aurora-node: 12 tiles per node
    CHECK(*hi / 12 >= 64);
    CHECK_THAT(j.end_s, WithinRel(100 * (2 + t_cross) / 2, 1e-12));
    CHECK_FALSE(j.link_contended);
  }
  fs::remove_all(dir);
}
