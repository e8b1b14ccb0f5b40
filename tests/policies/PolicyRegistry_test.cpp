// The registry: every policy is listed with its source and declared parameters, parameter errors name the
// parameter and the rule, and every registered policy keeps the decision contract on a mixed workload.
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

#include <deque>

using namespace colocsim;
using namespace colocsim::test;

TEST_CASE("every policy is registered with a description, a source and parameters", "[policies][registry]")
{
  std::vector<std::string> names;
  for (const auto& p : policy_registry()) {
    names.push_back(p.name);
    CHECK_FALSE(p.description.empty());
    CHECK_FALSE(p.source.empty());
    for (const auto& spec : p.params)
      CHECK_FALSE(spec.help.empty());
  }
  const std::vector<std::string> expected{
      "exclusive-fcfs", "exclusive-easy",     "first-fit",   "best-fit",
      "complementary",  "interference-aware", "fgd",         "random",
      "dot-product",    "gpu-clustering",     "gpu-packing", "best-fit-frac",
      "heshare",        "mig-manager",        "power-aware"};
  CHECK(names == expected);
}

TEST_CASE("policy parameter errors name the parameter and what is valid", "[policies][params]")
{
  REQUIRE_THROWS_WITH(make_policy("interference-aware:max_slowdown=0.5"),
                      ContainsSubstring("policy.params.max_slowdown: out of range (got '0.5')"));
  REQUIRE_THROWS_WITH(make_policy("best-fit:colour=red"),
                      ContainsSubstring("policy.params.colour: unknown key; valid: max_per_device, memory"));
  REQUIRE_THROWS_WITH(make_policy("fgd:colour=red"),
                      ContainsSubstring("unknown key; valid: max_per_device, memory, mps_share"));
  REQUIRE_THROWS_WITH(make_policy("random:seed=-1"), ContainsSubstring("policy.params.seed: out of range"));
  REQUIRE_THROWS_WITH(make_policy("complementary:window=1"),
                      ContainsSubstring("policy.params.window: out of range (got '1')"));
  REQUIRE_THROWS_WITH(make_policy("first-fit:memory=guess"), ContainsSubstring("policy.params.memory: "));
  REQUIRE_THROWS_WITH(
      make_policy("no-such-policy"),
      ContainsSubstring("unknown policy 'no-such-policy'; valid: exclusive-fcfs, exclusive-easy"));
  CHECK_NOTHROW(make_policy("random:seed=42,max_per_device=4,memory=none,mps_share=false"));
}

TEST_CASE("every policy keeps the decision contract and runs a mixed workload to the end",
          "[policies][contract]")
{
  // 8 GPUs on 2 nodes, 60 jobs of mixed sizes (1 or 2 devices, shares 250..1000 milli, light and busy),
  // submitted in batches; completions in start order. Every decision must be valid (FakeClusterView checks
  // device counts, distinct devices and mode limits like the engine), and every job must run eventually.
  for (const auto& info : policy_registry()) {
    INFO(info.name);
    if (info.name == "mig-manager") continue; // needs mig devices: tests/sim/Mig_test.cpp
    FakeClusterView view;
    const bool fractional = info.name == "fgd" || info.name == "random" || info.name == "dot-product" ||
                            info.name == "gpu-clustering" || info.name == "gpu-packing" ||
                            info.name == "best-fit-frac";
    view.check_milli = fractional;
    for (int i = 0; i < 8; ++i)
      view.add_device(SharingMode::TIME_SLICE, static_cast<std::uint32_t>(i / 4));
    const int shares[] = {250, 500, 1000, 300, 700};
    std::vector<JobIndex> jobs;
    for (int i = 0; i < 60; ++i)
      jobs.push_back(view.add_job(make_job(i % 7 == 0 ? 2 : 1, shares[i % 5], 10.0 + i),
                                  i % 3 == 0 ? busy_signature() : light_signature()));
    auto policy = make_policy(info.name);
    std::deque<JobIndex> running;
    std::size_t done = 0;
    auto record = [&](const std::vector<Decision>& out) {
      for (const auto& [j, devices] : placements(out))
        running.push_back(j);
      for (const auto& d : out) // power-aware also powers nodes and asks to be woken
        CHECK((std::holds_alternative<Place>(d) ||
               (info.name == "heshare" && std::holds_alternative<SetFrequency>(d)) ||
               (info.name == "power-aware" &&
                (std::holds_alternative<SetNodePower>(d) || std::holds_alternative<WakeAt>(d)))));
    };
    for (std::size_t b = 0; b < jobs.size(); b += 10) {
      view.now_s = static_cast<double>(b);
      record(view.submit(*policy, std::vector<JobIndex>(jobs.begin() + static_cast<long>(b),
                                                        jobs.begin() + static_cast<long>(b + 10))));
    }
    while (!running.empty()) {
      const JobIndex j = running.front();
      running.pop_front();
      view.now_s += 1;
      record(view.complete(*policy, j));
      ++done;
    }
    CHECK(done == jobs.size());
  }
}
