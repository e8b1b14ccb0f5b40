// colocsim-netdesigns: how to carry multi-node jobs' communication as SimGrid network activity
// (BENCHMARKS.md, "Network: design measurements"; docs/architecture.md). Raw SimGrid 3.32 s4u, no colocsim
// code. A star zone of hosts, one per node, each with a split-duplex NIC link (bandwidth B, latency α/2, so a
// route node → node costs α: the α–β model's NIC tier, models/Communication.hpp, one device per node). N jobs
// of k nodes each (k = 2, 3, ..., 8 in turn, or --nodes K) run M ring all-reduce steps of S bytes; one actor
// per job. The designs:
//   flow        one aggregate flow per job and step: node 0 → node 1 carries 2(k−1)/k · S after sleeping the
//               other 2(k−1) − 1 latencies (Comm::sendto_async);
//   node-flows  the same with one flow per node (node i → node i+1, each 2(k−1)/k · S), waited together;
//   ptask       one parallel task per step (host/model:ptask_L07) whose bytes matrix holds the node-flows;
//   ring        the ring itself: 2(k−1) sub-steps of k flows of S/k (node i → i+1), each sub-step waited.
// Alone, every design takes the closed form 2(k−1)·α + 2(k−1)/k · S/B per step; --shared runs two 2-node jobs
// whose rings cross one node's NIC (nodes {0, 1} and {2, 1}), so each gets half its bandwidth:
// 2α + 2 · S/B per step. SimGrid's TCP corrections are neutralised (network/model:CM02,
// network/latency-factor:1, network/bandwidth-factor:1, network/weight-S:0, network/crosstraffic:0,
// network/TCP-gamma:0; ptask_L07 only reads the last). Prints key=value lines.
//
//   colocsim-netdesigns --design flow|node-flows|ptask|ring [--jobs N] [--steps M] [--bytes S] [--nodes K]
//                       [--shared] [--bandwidth B] [--alpha A]
#include "sim/bench/BenchCommon.hpp"

#include <simgrid/s4u.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;
using colocsim::bench::cpu_seconds;
using colocsim::bench::peak_rss_mb;

namespace {

struct Options {
  std::string design = "flow";
  long long jobs = 100, steps = 10, nodes = 0; // nodes 0: 2..8 in turn
  double bytes = 1 << 30, bandwidth = 96e9, alpha = 27.95e-6;
  bool shared = false;
};

[[noreturn]] void usage(const std::string& why)
{
  std::fprintf(stderr,
               "colocsim-netdesigns: %s\nusage: colocsim-netdesigns --design flow|node-flows|ptask|ring "
               "[--jobs N] [--steps M] [--bytes S] [--nodes K] [--shared] [--bandwidth B] [--alpha A]\n",
               why.c_str());
  std::exit(2);
}

double positive(const std::string& opt, const char* text)
{
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(v > 0) || !std::isfinite(v))
    usage(opt + " needs a positive number, got '" + text + "'");
  return v;
}

Options parse(int argc, char** argv)
{
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--shared") {
      o.shared = true;
      continue;
    }
    if (a == "--help" || a == "-h") usage("network design bench (BENCHMARKS.md)");
    if (i + 1 >= argc) usage("option " + a + " needs a value");
    const char* v = argv[++i];
    if (a == "--design") {
      o.design = v;
      if (o.design != "flow" && o.design != "node-flows" && o.design != "ptask" && o.design != "ring")
        usage("--design: expected flow, node-flows, ptask or ring, got '" + o.design + "'");
    } else if (a == "--jobs")
      o.jobs = static_cast<long long>(positive(a, v));
    else if (a == "--steps")
      o.steps = static_cast<long long>(positive(a, v));
    else if (a == "--nodes") {
      o.nodes = static_cast<long long>(positive(a, v));
      if (o.nodes < 2) usage("--nodes: a multi-node job needs at least 2");
    } else if (a == "--bytes")
      o.bytes = positive(a, v);
    else if (a == "--bandwidth")
      o.bandwidth = positive(a, v);
    else if (a == "--alpha")
      o.alpha = positive(a, v);
    else
      usage("unknown option " + a);
  }
  if (o.shared) o.jobs = 2, o.nodes = 2;
  return o;
}

struct Tally {
  long long flows = 0;
  double job0_end = 0;
};

void run_job(const Options& o, const std::vector<sg4::Host*>& nodes, Tally& tally, bool first)
{
  const auto k = static_cast<double>(nodes.size());
  const double big = 2 * (k - 1) / k * o.bytes; // the bytes a ring step moves through each NIC
  for (long long s = 0; s < o.steps; ++s) {
    if (o.design == "ring") {
      for (int sub = 0; sub < 2 * (static_cast<int>(k) - 1); ++sub) {
        std::vector<sg4::CommPtr> comms;
        for (std::size_t i = 0; i < nodes.size(); ++i)
          comms.push_back(sg4::Comm::sendto_async(nodes[i], nodes[(i + 1) % nodes.size()],
                                                  static_cast<uint64_t>(o.bytes / k)));
        sg4::Comm::wait_all(comms);
        tally.flows += static_cast<long long>(comms.size());
      }
      continue;
    }
    sg4::this_actor::sleep_for((2 * (k - 1) - 1) * o.alpha); // the latencies a single transfer does not carry
    if (o.design == "flow") {
      sg4::Comm::sendto(nodes[0], nodes[1], static_cast<uint64_t>(big));
      tally.flows += 1;
    } else if (o.design == "node-flows") {
      std::vector<sg4::CommPtr> comms;
      for (std::size_t i = 0; i < nodes.size(); ++i)
        comms.push_back(
            sg4::Comm::sendto_async(nodes[i], nodes[(i + 1) % nodes.size()], static_cast<uint64_t>(big)));
      sg4::Comm::wait_all(comms);
      tally.flows += static_cast<long long>(comms.size());
    } else { // ptask
      const std::size_t n = nodes.size();
      std::vector<double> flops(n, 0.0), bytes(n * n, 0.0);
      for (std::size_t i = 0; i < n; ++i)
        bytes[i * n + (i + 1) % n] = big;
      sg4::this_actor::parallel_execute(nodes, flops, bytes);
      tally.flows += static_cast<long long>(n);
    }
  }
  if (first) tally.job0_end = sg4::Engine::get_clock();
}

} // namespace

int main(int argc, char** argv)
{
  const Options o = parse(argc, argv);
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  std::vector<std::string> cfg = {"colocsim-netdesigns", "--log=root.thres:warning",
                                  "--log=xbt_cfg.thres:warning", "--cfg=contexts/stack-size:16",
                                  "--cfg=contexts/guard-size:0"};
  if (o.design == "ptask") { // L07 bounds a transfer by TCP-gamma / (2 latency) too (75 GB/s at α = 27.95 µs)
    cfg.emplace_back("--cfg=host/model:ptask_L07");
    cfg.emplace_back("--cfg=network/TCP-gamma:0");
  } else
    for (const char* c :
         {"--cfg=network/model:CM02", "--cfg=network/latency-factor:1", "--cfg=network/bandwidth-factor:1",
          "--cfg=network/weight-S:0", "--cfg=network/crosstraffic:0", "--cfg=network/TCP-gamma:0"})
      cfg.emplace_back(c);
  std::vector<char*> args;
  for (auto& c : cfg)
    args.push_back(c.data());
  args.push_back(nullptr);
  int sg_argc = static_cast<int>(args.size()) - 1;
  sg4::Engine engine(&sg_argc, args.data());

  // Jobs on disjoint nodes (job j: k_j nodes after job j − 1's), or the shared pair {0, 1}, {2, 1}.
  std::vector<long long> sizes;
  long long hosts = 0;
  for (long long j = 0; j < o.jobs; ++j) {
    sizes.push_back(o.nodes > 0 ? o.nodes : 2 + j % 7);
    hosts += sizes.back();
  }
  if (o.shared) hosts = 3;
  auto* zone = sg4::create_star_zone("net");
  std::vector<sg4::Host*> node;
  for (long long h = 0; h < hosts; ++h) {
    // std::string + std::to_string, not "n" + std::to_string(...): GCC 12 warns (-Wrestrict) on the
    // inlined literal-plus-temporary operator+ at -O2 and above, falsely.
    const std::string number = std::to_string(h);
    auto* host = zone->create_host(std::string("n") + number, 1.0);
    auto* nic =
        zone->create_split_duplex_link(std::string("nic") + number, o.bandwidth)->set_latency(o.alpha / 2);
    nic->seal();
    // Outgoing traffic takes the link's UP half, incoming its DOWN half (symmetrical: the star's reverse
    // route).
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {{nic, sg4::LinkInRoute::Direction::UP}},
                    true);
    node.push_back(host->seal());
  }
  zone->seal();

  Tally tally;
  long long first = 0;
  for (long long j = 0; j < o.jobs; ++j) {
    std::vector<sg4::Host*> mine;
    if (o.shared)
      mine = j == 0 ? std::vector<sg4::Host*>{node[0], node[1]} : std::vector<sg4::Host*>{node[2], node[1]};
    else
      mine.assign(node.begin() + first, node.begin() + first + sizes[j]);
    first += sizes[j];
    sg4::Actor::create("job" + std::to_string(j), mine[0],
                       [&o, mine, &tally, j] { run_job(o, mine, tally, j == 0); });
  }
  const auto sim0 = std::chrono::steady_clock::now();
  engine.run();
  const auto sim1 = std::chrono::steady_clock::now();
  const double sim_wall = std::chrono::duration<double>(sim1 - sim0).count();
  const double k = static_cast<double>(sizes[0]);
  const double share = o.shared ? 2.0 : 1.0; // two jobs on one NIC: half the bandwidth each
  const double closed = 2 * (k - 1) * o.alpha + share * 2 * (k - 1) / k * o.bytes / o.bandwidth;
  const double step = tally.job0_end / static_cast<double>(o.steps);
  std::printf(
      "design=%s\njobs=%lld\nhosts=%lld\nsteps=%lld\nflows=%lld\nwall_s=%g\nsimulation_wall_s=%g\ncpu_s=%g\n"
      "peak_rss_mb=%g\nus_per_flow=%g\njob0_nodes=%g\njob0_step_s=%.12g\nclosed_form_s=%.12g\nrel_err=%.3g\n",
      o.design.c_str(), o.jobs, hosts, o.steps, tally.flows,
      std::chrono::duration<double>(sim1 - wall0).count(), sim_wall, cpu_seconds() - cpu0, peak_rss_mb(),
      1e6 * sim_wall / static_cast<double>(tally.flows), k, step, closed, step / closed - 1);
  std::fflush(stdout);
  std::_Exit(0);
}
