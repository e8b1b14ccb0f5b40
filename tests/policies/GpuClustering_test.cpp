// gpu-clustering (the FGD study's GPU Clustering): next to tasks of the same GPU-request type (a share of
// one GPU, or k whole GPUs), then mixed nodes, then idle nodes, then nodes of other types only.
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

using namespace colocsim;
using namespace colocsim::test;
using Devices = std::vector<DeviceIndex>;

TEST_CASE("gpu-clustering puts a task next to tasks of its own type", "[policies][gpu-clustering]")
{
  // Node 0: GPU 0 runs a 500-milli share; GPU 1 idle. Node 1: GPU 2 runs a whole-GPU task; GPU 3 idle.
  // Node 2 (GPUs 4, 5) idle.
  //   W (1 whole GPU): node 1 runs only whole-GPU tasks → GPU 3 (not GPU 1, the lowest idle GPU, whose node
  //                    runs shares; not node 2, idle)
  //   S (300 milli):   node 0 runs only shares; the least free GPU there → GPU 0 (500 → 200)
  //   T (300 milli):   GPU 0 is too full; node 0's GPU 1 (1000 free) still beats the idle node → GPU 1
  // gpu-packing sends W to GPU 1 instead (an idle GPU of a busy node, the lowest index).
  FakeClusterView view;
  add_three_nodes_of_two_gpus(view);
  const auto share = view.add_job(make_job(1, 500)), whole = view.add_job(make_job(1, 1000));
  view.run_before(share, {0});
  view.run_before(whole, {2});
  const auto w = view.add_job(make_job(1, 1000)), s = view.add_job(make_job(1, 300)),
             t = view.add_job(make_job(1, 300));
  FakeClusterView packing_view = view;
  auto policy = make_policy("gpu-clustering");
  CHECK(placements(view.submit(*policy, {w, s, t})) ==
        std::map<JobIndex, Devices>{{w, {3}}, {s, {0}}, {t, {1}}});
  auto packing = make_policy("gpu-packing");
  CHECK(placements(packing_view.submit(*packing, {w})) == std::map<JobIndex, Devices>{{w, {1}}});
}
