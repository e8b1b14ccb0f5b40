// Platforms of several device types (fixtures in tests/data/sim/hetero/): each device runs a job at its
// type's speed relative to the reference type, jobs honour their gpu_types, every built-in policy places only
// on devices of the types a job accepts, and the bundled openb preset is the trace's node list.
#include "tests/CatchCompat.hpp"
#include "tests/sim/EngineTestSupport.hpp"

#include "policies/PolicyRegistry.hpp"
#include "sim/Engine.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"

#include <map>
#include <string>

using namespace colocsim;
using namespace colocsim::test;

namespace {

const std::string DATA = SIM_DATA + "hetero/";
const std::string OPENB = std::string(COLOCSIM_TEST_DATA) + "/workloads/openb/";

/// Places job 0 (on-t4, which accepts only T4s) on device 2, the V100.
class WrongTypePolicy final : public Policy {
public:
  std::vector<Decision> decide(const ClusterView&, std::span<const Event> events) override
  {
    std::vector<Decision> out;
    for (const auto& e : events)
      if (const auto* s = std::get_if<JobSubmitted>(&e); s && s->job == 0) out.push_back(Place{0, {2}});
    return out;
  }
};

} // namespace

TEST_CASE("a platform of two device types runs each job at its type's speed", "[engine][hetero]")
{
  RunInputs in = build_run(load_scenario(DATA + "scenario.yaml"));
  REQUIRE(in.platform.types.size() == 2);
  const auto& v100 = in.platform.types[0];
  const auto& t4 = in.platform.types[1];
  CHECK(v100.spec->name == "v100-sxm2-16gb"); // the reference type comes first
  CHECK(t4.spec->name == "t4");
  CHECK(v100.speed == 1.0);
  CHECK_THAT(t4.speed,
             WithinRel(t4.spec->relative_throughput.value / v100.spec->relative_throughput.value, 1e-12));
  REQUIRE(t4.speed < 1.0);
  // Devices in group order: node 0 holds the two T4s (0, 1), node 1 the V100 (2).
  REQUIRE(in.platform.devices.size() == 3);
  CHECK(in.platform.devices[0].type == 1);
  CHECK(in.platform.devices[1].type == 1);
  CHECK(in.platform.devices[2].type == 0);
  CHECK(in.platform.devices[2].node == 1);
  CHECK(in.calibration.device == "v100-sxm2-16gb");
  CHECK(t4.calibration == "t4-default");
  const auto o = run_collect(in);
  // Exclusive FCFS at t = 0: on-t4 → device 0, on-v100 → device 2, any → device 1; k80 is refused at once.
  // Durations are times on the type a job names first (workload.durations: named-type), else on the V100:
  // on-t4 takes its 100 s on the T4, any takes 100 / speed there. after-k80 (t = 1, T4|V100M16) waits until
  // t = 100, when devices 0 and 2 empty: FCFS takes device 0, a T4, where its duration (a T4 time) is 100 s.
  const double on_t4 = 100.0 / t4.speed;
  CHECK(o.jobs.at("on-t4").devices == std::vector<DeviceIndex>{0});
  CHECK_THAT(o.jobs.at("on-t4").end_s, WithinAbs(100.0, 1e-6));
  CHECK(o.jobs.at("on-v100").devices == std::vector<DeviceIndex>{2});
  CHECK_THAT(o.jobs.at("on-v100").end_s, WithinAbs(100.0, 1e-6));
  CHECK(o.jobs.at("any").devices == std::vector<DeviceIndex>{1});
  CHECK_THAT(o.jobs.at("any").end_s, WithinAbs(on_t4, 1e-6));
  CHECK_THAT(o.jobs.at("any").slowdown, WithinRel(1.0 / t4.speed, 1e-9));
  // on-t4 and any both run alone on a T4 with the same profile at the default clock, so both are fully
  // active there (activity = rate × base speed / T4 speed = 1) and draw the same power, whichever type their
  // duration refers to: the same energy per second of run time.
  CHECK_THAT(o.jobs.at("any").energy_j / on_t4, WithinRel(o.jobs.at("on-t4").energy_j / 100.0, 1e-9));
  CHECK(o.jobs.at("k80").status == JobStatus::REJECTED);
  CHECK(o.jobs.at("after-k80").devices == std::vector<DeviceIndex>{0});
  CHECK_THAT(o.jobs.at("after-k80").end_s, WithinAbs(200.0, 1e-6));
  CHECK(o.totals.rejected == 1);
  CHECK(o.totals.rejected_gpu_types == 1);
  CHECK_THAT(o.totals.first_rejected_gpu_types, ContainsSubstring("job 'k80'") && ContainsSubstring("'K80'"));
  CHECK(o.totals.completed == 4);
  // Each node draws its own type's baseline for the whole run.
  REQUIRE(in.platform.node_baseline_w.size() == 2);
  CHECK(in.platform.node_baseline_w[0] == t4.node_baseline_w);
  CHECK(in.platform.node_baseline_w[1] == v100.node_baseline_w);
  CHECK(t4.node_baseline_w != v100.node_baseline_w);
  CHECK_THAT(o.totals.energy_node_j, WithinRel((t4.node_baseline_w + v100.node_baseline_w) * on_t4, 1e-9));
}

TEST_CASE("workload.durations: reference reads every duration as a time on the reference type",
          "[engine][hetero]")
{
  RunInputs in = build_run(load_scenario(DATA + "scenario.yaml", {"workload.durations=reference"}));
  const double t4_speed = in.platform.types[1].speed;
  const auto o = run_collect(in);
  // on-t4 now takes 100 / speed on its T4; at t = 100 only the V100 is free, so after-k80 takes it.
  CHECK_THAT(o.jobs.at("on-t4").end_s, WithinAbs(100.0 / t4_speed, 1e-6));
  CHECK(o.jobs.at("after-k80").devices == std::vector<DeviceIndex>{2});
  CHECK_THAT(o.jobs.at("after-k80").end_s, WithinAbs(200.0, 1e-6));
}

TEST_CASE("a device type faster than the reference runs jobs faster than their duration", "[engine][hetero]")
{
  // The T4 is the reference: the V100 runs 1 / 0.43 = 2.33 times as fast. SimGrid bounds an exec's rate by
  // its host's speed; before the hosts were given the platform's speed range, the V100 ran at the T4's speed.
  RunInputs in = build_run(load_scenario(
      DATA + "scenario.yaml", {"platform.preset=platform-t4ref.yaml", "workload.durations=reference"}));
  REQUIRE(in.platform.types[0].spec->name == "t4");
  const double v100_speed = in.platform.types[1].speed;
  REQUIRE(v100_speed > 2.0);
  const auto o = run_collect(in);
  // Exclusive FCFS at t = 0: on-t4 → device 0 (100 s), on-v100 → device 2 (100 / 2.33 = 43 s), any → device
  // 1; after-k80 (t = 1, T4|V100M16) takes the V100 when on-v100 ends and needs 43 s more.
  const double fast = 100.0 / v100_speed;
  CHECK_THAT(o.jobs.at("on-t4").end_s, WithinAbs(100.0, 1e-6));
  CHECK(o.jobs.at("on-v100").devices == std::vector<DeviceIndex>{2});
  CHECK_THAT(o.jobs.at("on-v100").end_s, WithinAbs(fast, 1e-6));
  CHECK_THAT(o.jobs.at("on-v100").slowdown, WithinRel(1.0 / v100_speed, 1e-9));
  CHECK_THAT(o.jobs.at("any").end_s, WithinAbs(100.0, 1e-6));
  CHECK(o.jobs.at("after-k80").devices == std::vector<DeviceIndex>{2});
  CHECK_THAT(o.jobs.at("after-k80").start_s, WithinAbs(fast, 1e-6));
  CHECK_THAT(o.jobs.at("after-k80").end_s, WithinAbs(2 * fast, 1e-6));
}

TEST_CASE("workload.gpu_types: ignore lets every job run on any device type", "[engine][hetero]")
{
  RunInputs in = build_run(load_scenario(DATA + "scenario.yaml", {"workload.gpu_types=ignore"}));
  const auto o = run_collect(in);
  CHECK(o.totals.rejected == 0);
  CHECK(o.totals.completed == 5);
  CHECK(o.jobs.at("on-v100").devices == std::vector<DeviceIndex>{1}); // a T4 now: the lowest free device
}

TEST_CASE("a placement on a device type the job does not accept is an infeasible decision",
          "[engine][hetero]")
{
  RunInputs in = build_run(load_scenario(DATA + "scenario.yaml"));
  in.policy = std::make_unique<WrongTypePolicy>();
  in.scenario.policy = "wrong-type";
  RunObserver none;
  REQUIRE_THROWS_WITH(
      run_simulation(in.setup(), none),
      ContainsSubstring("policy 'wrong-type'") && ContainsSubstring("place job 0 on devices [2]") &&
          ContainsSubstring("is of type 'v100-sxm2-16gb', not one the job's gpu_types 'T4' name"));
}

TEST_CASE("the bundled openb preset is the trace's node list", "[hetero][openb]")
{
  const RunInputs bundled = build_run(load_scenario(DATA + "scenario.yaml", {"platform.preset=openb"}));
  const auto& p = bundled.platform;
  CHECK(p.nodes == 1213);
  CHECK(p.devices.size() == 6212);
  REQUIRE(p.types.size() == 7);
  CHECK(p.types[0].spec->name == "openb-g2");
  std::map<std::string, std::size_t> per_type;
  for (std::uint32_t d = 0; d < p.devices.size(); ++d)
    ++per_type[p.type_of(d).spec->name];
  // GPUs per type in openb_node_list_gpu_node.csv of Alibaba cluster-trace-gpu-v2023 (alibaba/clusterdata @
  // 7a6c496e): G2 4,392, T4 842, P100 265, V100M16 195, V100M32 204, G3 312, A10 2.
  CHECK(per_type == std::map<std::string, std::size_t>{{"openb-g2", 4392},
                                                       {"t4", 842},
                                                       {"p100-16gb", 265},
                                                       {"v100-sxm2-16gb", 195},
                                                       {"v100-sxm2-32gb", 204},
                                                       {"openb-g3", 312},
                                                       {"a10", 2}});
  // The same platform, device by device, from the node list itself.
  const RunInputs listed =
      build_run(load_scenario(DATA + "scenario.yaml", {"platform.preset=platform-openb-nodes.yaml"}));
  REQUIRE(listed.platform.devices.size() == p.devices.size());
  CHECK(listed.platform.nodes == p.nodes);
  for (std::uint32_t d = 0; d < p.devices.size(); ++d) {
    INFO("device " << d);
    REQUIRE(listed.platform.type_of(d).spec->name == p.type_of(d).spec->name);
    REQUIRE(listed.platform.devices[d].node == p.devices[d].node);
    REQUIRE(listed.platform.devices[d].card == p.devices[d].card);
  }
}

TEST_CASE("every built-in policy places openb pods only on the GPU types they name",
          "[engine][hetero][openb]")
{
  // The first 40 pods of openb_pod_list_gpuspec33 (some with gpu_spec) on the openb cluster.
  class Check final : public RunObserver {
  public:
    explicit Check(const Platform& p) : p_(p) {}
    void on_job_end(const JobRecord& r) override
    {
      if (r.status == JobStatus::COMPLETED) ++completed;
      if (r.job->gpu_types.empty()) return;
      for (auto d : r.devices) {
        bool ok = false;
        std::string_view rest = r.job->gpu_types;
        while (!ok && !rest.empty()) {
          const auto bar = rest.find('|');
          ok = p_.type_of(d).answers_to(rest.substr(0, bar));
          rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
        }
        if (!ok) wrong.push_back(r.job->id + " on " + p_.type_of(d).spec->name);
        ++constrained;
      }
    }
    const Platform& p_;
    std::vector<std::string> wrong;
    int constrained = 0, completed = 0;
  };
  for (const auto& info : policy_registry()) {
    if (info.name == "mig-manager") continue; // needs mig devices; openb's GPUs have no MIG
    INFO("policy " << info.name);
    RunInputs in =
        build_run(load_scenario(DATA + "scenario.yaml",
                                {"platform.preset=openb", "platform.sharing=time-slice",
                                 "workload.trace=" + OPENB + "gpuspec33-head40.csv", "workload.format=openb",
                                 "workload.profiles=default", "workload.default_profile=resnet50-infer-bs1"},
                                info.name));
    Check check(in.platform);
    run_simulation(in.setup(), check);
    CHECK(check.wrong.empty());
    CHECK(check.constrained > 0);
    CHECK(check.completed > 30);
  }
}

TEST_CASE("platform files of several types: mistakes are located errors", "[hetero]")
{
  const auto err = [](std::vector<std::string> sets) {
    try {
      build_run(load_scenario(DATA + "scenario.yaml", sets));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(
      err({"platform.preset=platform-both.yaml"}),
      ContainsSubstring("platform-both.yaml:4:9: device: given both at the top level and through groups"));
  CHECK_THAT(
      err({"platform.preset=platform-badref.yaml"}),
      ContainsSubstring("platform-badref.yaml:4:19: reference_device: 'a100-40gb' is not a device of the "
                        "platform; valid: t4, v100-sxm2-16gb"));
  CHECK_THAT(err({"platform.preset=platform-nospeed.yaml", "calibration=../calibration-test.yaml"}),
             ContainsSubstring("device 'test-tile' gives no relative_throughput"));
  CHECK_THAT(err({"platform.preset=platform-k80-nodes.yaml"}),
             ContainsSubstring("nodes-k80.csv:3") && ContainsSubstring("K80"));
  CHECK_THAT(
      err({"platform.preset=openb", "platform.sharing=mps"}),
      ContainsSubstring("platform.sharing: device 'p100-16gb' (platform 'openb') does not support sharing "
                        "mode 'mps'; its modes: exclusive, time-slice"));
  CHECK_THAT(
      err({"platform.preset=platform-missing-nodes.yaml"}),
      ContainsSubstring("platform-missing-nodes.yaml:4:12: node_list.file: cannot read the node table"));
  CHECK_THAT(err({"platform.preset=openb", "platform.nodes=4"}),
             ContainsSubstring("platform.nodes: platform 'openb' has 12 node groups"));
}

TEST_CASE("a slot policy refuses a job that no device of its types can hold instead of blocking its queue",
          "[engine][hetero][policy]")
{
  // big-t4 declares 30 GB and accepts only the 16 GB T4; the A100-40GB could hold it but is not its type.
  // Before the check looked at the job's own types, big-t4 passed (the platform's largest device holds
  // 30 GB), headed the strict FCFS queue forever and the two jobs behind it never started.
  for (const std::string policy : {"first-fit", "best-fit"}) {
    INFO(policy);
    RunInputs in = build_run(
        load_scenario(DATA + "scenario.yaml", {"platform.preset=platform-mem.yaml",
                                               "workload.trace=jobs-mem.csv", "policy.name=" + policy}));
    const auto o = run_collect(in);
    CHECK(o.jobs.at("big-t4").status == JobStatus::REJECTED);
    CHECK(o.totals.rejected == 1);
    CHECK(o.totals.completed == 2);
    CHECK(o.jobs.at("small-t4").devices == std::vector<DeviceIndex>{0});
    CHECK_THAT(o.jobs.at("small-t4").start_s, WithinAbs(0.0, 1e-9));
    CHECK(o.jobs.at("big-any").devices == std::vector<DeviceIndex>{1});
    CHECK_THAT(o.jobs.at("big-any").start_s, WithinAbs(0.0, 1e-9));
  }
}

TEST_CASE("EASY backfilling reserves devices of the types the queue head accepts", "[engine][hetero][policy]")
{
  // head (t = 1) needs both V100s; a-v100 holds one until t = 100, the shadow time. The reservation must
  // count V100s only: 1 free + 1 at t = 100 = head's 2, nothing spare. long-v100 ends after the shadow time
  // and would take the free V100, so it must wait; long-any may backfill on a T4 at once. Before the
  // reservation counted every device (4 then, 2 "spare"), long-v100 started at t = 2 and head waited until
  // t = 1002.
  RunInputs in = build_run(
      load_scenario(DATA + "scenario.yaml", {"platform.preset=platform-easy.yaml",
                                             "workload.trace=jobs-easy.csv", "policy.name=exclusive-easy"}));
  const auto o = run_collect(in);
  const double t4 = in.platform.types[1].speed;
  CHECK(o.jobs.at("a-v100").devices == std::vector<DeviceIndex>{2});
  CHECK(o.jobs.at("long-any").devices == std::vector<DeviceIndex>{0});
  CHECK_THAT(o.jobs.at("long-any").start_s, WithinAbs(2.0, 1e-9));
  CHECK_THAT(o.jobs.at("long-any").end_s, WithinAbs(2.0 + 1000.0 / t4, 1e-6));
  CHECK(o.jobs.at("head").devices == std::vector<DeviceIndex>{2, 3});
  CHECK_THAT(o.jobs.at("head").start_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(o.jobs.at("head").end_s, WithinAbs(200.0, 1e-6));
  CHECK(o.jobs.at("long-v100").devices == std::vector<DeviceIndex>{2});
  CHECK_THAT(o.jobs.at("long-v100").start_s, WithinAbs(200.0, 1e-6));
  CHECK(o.totals.completed == 4);
}
