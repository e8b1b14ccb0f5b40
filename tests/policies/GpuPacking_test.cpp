// gpu-packing (the FGD study's GPU Packing): shared GPUs first (least free), then idle GPUs of busy nodes,
// then idle nodes.
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

using namespace colocsim;
using namespace colocsim::test;
using Devices = std::vector<DeviceIndex>;

TEST_CASE("gpu-packing fills shared GPUs, then busy nodes, then idle nodes", "[policies][gpu-packing]")
{
  // Three nodes of two GPUs. Node 0: GPU 1 runs a whole-GPU job. Node 1: GPU 3 runs a 500-milli job.
  // Node 2 idle.
  //   A (300): GPU 3 is shared (500 free)                                   → GPU 3 (200 left)
  //   B (300): no shared GPU fits; idle GPUs of busy nodes: 0 and 2          → GPU 0 (lower index)
  //   C (1000): idle GPUs of busy nodes: 2 (node 1); node 2's are last       → GPU 2
  //   D (300): GPU 0 is shared now (700 free)                               → GPU 0
  FakeClusterView view;
  add_three_nodes_of_two_gpus(view);
  const auto w = view.add_job(make_job(1, 1000)), s = view.add_job(make_job(1, 500));
  view.run_before(w, {1});
  view.run_before(s, {3});
  const auto a = view.add_job(make_job(1, 300)), b = view.add_job(make_job(1, 300)),
             c = view.add_job(make_job(1, 1000)), d = view.add_job(make_job(1, 300));
  auto policy = make_policy("gpu-packing");
  CHECK(placements(view.submit(*policy, {a})) == std::map<JobIndex, Devices>{{a, {3}}});
  CHECK(placements(view.submit(*policy, {b})) == std::map<JobIndex, Devices>{{b, {0}}});
  CHECK(placements(view.submit(*policy, {c})) == std::map<JobIndex, Devices>{{c, {2}}});
  CHECK(placements(view.submit(*policy, {d})) == std::map<JobIndex, Devices>{{d, {0}}});
}
