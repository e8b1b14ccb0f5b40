// mig-manager decides exactly as its scanning version did. Before its indexes, each decision looked at
// every MIG device of the platform: the lowest device with an empty, ready instance of the job's profile,
// else the lowest device (not reconfiguring) with a legal fission, fusion or creation, else the smallest
// empty instance of a static layout. MigManager::Lookup::SCAN keeps that scan (the same sizing and queue
// code); the policy (Lookup::INDEX) finds the same device from indexes by device class and profile, kept up
// to date from the events. Both run through the real engine on the same traces, and every decision — which
// job on which device and instance, which instances a reconfiguration destroys and creates, which job is
// rejected, at what time — must be the same, in the same order: on two DGX A100 nodes (16 GPUs) and on
// 1,250 of them (10,000 GPUs), with fission, fusion, out-of-memory restarts, static layouts and nodes
// powered off and on by power-aware (devices the indexes hold but that are unavailable). Backfilling
// (the default) and compute sizing go through the same lookups: the scan finds the head's reservation by
// listing every running job and device, the policy from its drain order (MigManager::reservation); both
// are compared with the defaults and with sizing=memory, backfill=false (strict order), and the recorder
// checks that backfill does overtake waiting heads (and never does with backfill=false).
#include "tests/CatchCompat.hpp"

#include "base/Params.hpp"
#include "policies/MigManager.hpp"
#include "policies/Policy.hpp"
#include "policies/PolicyRegistry.hpp"
#include "sim/Engine.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace colocsim;

namespace {

/// Passes every call to the policy underneath and writes down each decision it returns, with the time.
class Recorder final : public Policy {
public:
  explicit Recorder(std::unique_ptr<Policy> inner) : inner_(std::move(inner)) {}
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    for (const auto& e : events)
      if (const auto* s = std::get_if<JobSubmitted>(&e)) fresh.insert(s->job);
    auto out = inner_->decide(view, events);
    for (const auto& d : out) {
      if (const auto* p = std::get_if<Place>(&d)) {
        // A first start while a job submitted before it (a lower index) has neither started nor been
        // rejected: it overtook that job, which only backfilling does (restarted jobs have started before).
        if (fresh.count(p->job) && *fresh.begin() < p->job) ++overtakes;
        fresh.erase(p->job);
      }
      if (const auto* r = std::get_if<Reject>(&d)) fresh.erase(r->job);
      std::ostringstream line;
      line << describe(d);
      if (const auto* r = std::get_if<ReconfigureMig>(&d))
        for (const auto& gi : r->change.create)
          line << " +" << view.mig_geometry(r->device)->describe(gi);
      if (std::holds_alternative<Place>(d)) ++places;
      if (std::holds_alternative<ReconfigureMig>(d)) ++reconfigurations;
      if (std::holds_alternative<Reject>(d)) ++rejects;
      log.push_back(line.str());
      at.push_back(view.now());
    }
    return out;
  }
  std::vector<std::string> log; ///< each decision
  std::vector<double> at;       ///< and when it was made
  std::size_t places = 0, reconfigurations = 0, rejects = 0;
  std::size_t overtakes = 0; ///< first starts ahead of an earlier-submitted job still waiting
  std::set<JobIndex> fresh;  ///< submitted, not yet started or rejected

private:
  std::unique_ptr<Policy> inner_;
};

struct Quiet final : RunObserver {
  void on_job_end(const JobRecord&) override {}
};

/// A deterministic trace (an LCG, so no library's random numbers enter the test) of `jobs` jobs in bursts:
/// declared memory from none to more than any instance holds (rejected), real footprints from 0.86 GB to
/// 28.6 GB (so under-declared jobs run out of memory and restart larger), one in twenty a 2-GPU job
/// (rejected: one instance each).
/// With `users`, a user column (5 users), for workload.estimates=predicted.
std::string write_trace(const std::string& name, int jobs, double gap_s, std::uint64_t seed, int whole = 0,
                        bool users = false)
{
  const auto path = std::filesystem::temp_directory_path() /
                    ("colocsim-mig-scanning-" + name + "-" + std::to_string(::getpid()) + ".csv");
  std::ofstream f(path);
  f << "id,submit_s,duration_s,devices,mem,profile" << (users ? ",user" : "") << "\n";
  const char* const mem[] = {"", "1GB", "2GB", "4GB", "4GB", "8GB", "12GB", "18GB", "30GB", "45GB"};
  const char* const profile[] = {"resnet50-infer-bs1",   "cifar-resnet18-train", "stable-diffusion-infer",
                                 "resnet50-train-bs32",  "resnet50-train-bs128", "bert-base-train-bs32",
                                 "llama3-8b-decode-bs1", "gpt2-large-train-bs8", "bert-base-infer-bs1"};
  std::uint64_t x = seed;
  auto next = [&] { return (x = x * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  double t = 0;
  for (int i = 0; i < whole;
       ++i) { // whole GPUs (7g.40gb), for hours: the mixed jobs go to devices beyond them
    t += 0.1;
    f << "w" << i << "," << t << "," << 5000 + next() % 15000 << ",1,30GB,gpt2-large-train-bs8\n";
  }
  for (int i = 0; i < jobs; ++i) {
    t += (i % 50 == 49) ? 2000 : gap_s * static_cast<double>(next() % 100) / 100.0;
    const int devices = next() % 20 == 0 ? 2 : 1;
    f << "j" << i << "," << t << "," << 60 + next() % 1500 << "," << devices << "," << mem[next() % 10] << ","
      << profile[next() % 9];
    if (users) f << ",u" << next() % 5;
    f << "\n";
  }
  return path.string();
}

Recorder run(const std::string& trace, int nodes, const std::string& policy, std::vector<std::string> sets,
             std::unique_ptr<Policy> replace = nullptr)
{
  sets.push_back("platform.nodes=" + std::to_string(nodes));
  sets.push_back("platform.cards_per_node=8");
  sets.push_back("workload.trace=" + trace);
  RunInputs in = build_run(load_scenario(std::string(COLOCSIM_TEST_DATA) + "/sim/mig.yaml", sets, policy));
  Recorder rec(replace ? std::move(replace) : std::move(in.policy));
  struct Forward final : Policy {
    Recorder& r;
    explicit Forward(Recorder& rr) : r(rr) {}
    std::vector<Decision> decide(const ClusterView& v, std::span<const Event> e) override
    {
      return r.decide(v, e);
    }
  };
  in.policy = std::make_unique<Forward>(rec);
  Quiet q;
  run_simulation(in.setup(), q);
  return rec;
}

ParamSet params_of(const std::string& text)
{
  DiagnosticSink sink;
  const auto given = split_assignments(text, "--policy", sink);
  auto p = parse_params(find_policy("mig-manager").params, given, "policy.params", sink);
  sink.throw_if_any();
  return p;
}

void check_same(const Recorder& now, const Recorder& before)
{
  const auto n = std::min(now.log.size(), before.log.size());
  for (std::size_t i = 0; i < n; ++i)
    // Times may differ in the last bits: two runs in one process already do (the engine's floating-point
    // state carries over between runs).
    if (now.log[i] != before.log[i] ||
        std::abs(now.at[i] - before.at[i]) > 1e-9 * std::max(1.0, before.at[i])) {
      INFO("decision " << i << " of " << before.log.size() << " at t=" << before.at[i] << " s");
      REQUIRE(now.log[i] == before.log[i]); // the first difference
      REQUIRE_THAT(now.at[i], Catch::Matchers::WithinRel(before.at[i], 1e-9));
    }
  REQUIRE(now.log.size() == before.log.size());
}

/// mig-manager with the scan, as a policy power-aware can wrap (inner=mig-manager-scan).
void register_scanning_policy()
{
  for (const auto& p : policy_registry())
    if (p.name == "mig-manager-scan") return;
  PolicyInfo info = find_policy("mig-manager");
  info.name = "mig-manager-scan";
  info.factory = [](const ParamSet& p) -> std::unique_ptr<Policy> {
    return std::make_unique<MigManager>(p, MigManager::Lookup::SCAN);
  };
  register_policies({info});
}

} // namespace

TEST_CASE("mig-manager places and reconfigures exactly as its scanning version on 16 GPUs",
          "[policies][mig-manager][mig]")
{
  const std::string trace = write_trace("small", 600, 20, 12345);
  // The defaults (sizing=compute, backfill=true) and memory sizing in strict order, as before backfill.
  for (const std::string params : {"", "early_restart=false", "growth=1.5,memory=profile",
                                   "sizing=memory,backfill=false", "sizing=memory", "backfill=false"}) {
    DYNAMIC_SECTION("mig-manager:" << params)
    {
      const auto now = run(trace, 2, "mig-manager:" + params, {});
      const auto before = run(trace, 2, "mig-manager:" + params, {},
                              std::make_unique<MigManager>(params_of(params), MigManager::Lookup::SCAN));
      check_same(now, before);
      // The trace reaches every branch: placements, reconfigurations (fission, fusion, creation) and
      // rejections (2-GPU jobs; 45 GB, more than 7g.40gb holds); backfill overtakes waiting heads.
      CHECK(now.places > 500);
      CHECK(now.reconfigurations > 50);
      CHECK(now.rejects > 20);
      if (params.find("backfill=false") != std::string::npos)
        CHECK(now.overtakes == 0);
      else
        CHECK(now.overtakes > 20);
    }
  }
  SECTION("a static layout (reconfigure=false)")
  {
    const std::vector<std::string> layout{"platform.mig_layout=3g.20gb,2g.10gb,1g.5gb,1g.5gb"};
    for (const std::string params : {"reconfigure=false", "reconfigure=false,backfill=false"}) {
      INFO(params);
      const auto now = run(trace, 2, "mig-manager:" + params, layout);
      const auto before = run(trace, 2, "mig-manager:" + params, layout,
                              std::make_unique<MigManager>(params_of(params), MigManager::Lookup::SCAN));
      check_same(now, before);
      CHECK(now.places > 600);
      CHECK(now.reconfigurations == 0);
      CHECK((now.overtakes > 0) == (params.find("backfill=false") == std::string::npos));
    }
  }
  SECTION("predicted run times (workload.estimates=predicted): devices drain before their predicted end")
  {
    // A user's next run time is predicted as the mean of their last two, so jobs outlive their predicted
    // ends and a waiting head's reservation is often a device that has drained by now (by the index of
    // the devices' drain times) rather than the next to drain.
    const std::string users = write_trace("users", 600, 20, 9876, 0, true);
    const std::vector<std::string> predicted{"workload.estimates=predicted"};
    for (const std::string params : {"", "sizing=memory"}) {
      INFO(params);
      const auto now = run(users, 2, "mig-manager:" + params, predicted);
      const auto before = run(users, 2, "mig-manager:" + params, predicted,
                              std::make_unique<MigManager>(params_of(params), MigManager::Lookup::SCAN));
      check_same(now, before);
      CHECK(now.overtakes > 20);
    }
    std::filesystem::remove(users);
  }
  SECTION("inside power-aware, which powers idle nodes off and on")
  {
    register_scanning_policy();
    const std::vector<std::string> boot{"platform.node_boot=300s"};
    const std::string sparse = write_trace("sparse", 300, 400, 4242); // idle spells between jobs
    const auto now = run(sparse, 2, "power-aware:inner=mig-manager,idle_s=120,min_on=0", boot);
    const auto before = run(sparse, 2, "power-aware:inner=mig-manager-scan,idle_s=120,min_on=0", boot);
    std::filesystem::remove(sparse);
    check_same(now, before);
    // Measured with the defaults (compute sizing: larger instances, fewer layout changes than memory
    // sizing's 20+ / 10+): 14 power decisions, 8 reconfigurations.
    CHECK(std::count_if(now.log.begin(), now.log.end(),
                        [](const std::string& l) { return l.find("power node") != std::string::npos; }) > 10);
    CHECK(now.reconfigurations > 5);
  }
  std::filesystem::remove(trace);
}

TEST_CASE("mig-manager places and reconfigures exactly as its scanning version on 10000 GPUs",
          "[policies][mig-manager][mig]")
{
  // 9,000 jobs on whole GPUs for hours, then 1,500 mixed ones: these fission and fuse instances beyond them
  // and, as the long jobs end, on the GPUs they leave scattered over the platform. About 4 s of CPU per
  // parameter set in a Release build, most of it the scanning run.
  const std::string trace = write_trace("large", 1500, 2, 777, 9000);
  for (const std::string params : {"", "sizing=memory,backfill=false"}) {
    INFO("mig-manager:" << params);
    const auto now = run(trace, 1250, "mig-manager:" + params, {});
    const auto before = run(trace, 1250, "mig-manager:" + params, {},
                            std::make_unique<MigManager>(params_of(params), MigManager::Lookup::SCAN));
    check_same(now, before);
    DeviceIndex highest = 0;
    for (const auto& l : now.log)
      if (const auto at = l.find("devices ["); at != std::string::npos)
        highest = std::max<DeviceIndex>(highest, static_cast<DeviceIndex>(std::stoul(l.substr(at + 9))));
    CHECK(highest > 9000); // beyond the 9,000 whole-GPU jobs
    CHECK(now.places > 10000);
    // Compute sizing gives most mixed jobs a larger instance than their memory needs, so fewer layout
    // changes (measured: 15 with the defaults, 70 with sizing=memory; 39 and over 100 before a waiting job
    // waited for the change under way for it instead of getting another at each decision).
    CHECK(now.reconfigurations > (params.empty() ? 10U : 50U));
  }
  std::filesystem::remove(trace);
}
