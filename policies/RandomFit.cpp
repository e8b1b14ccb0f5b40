#include "policies/RandomFit.hpp"

#include <algorithm>
#include <set>

namespace colocsim {

std::vector<ParamSpec> RandomFit::params()
{
  auto specs = fractional_params();
  specs.push_back(ParamSpec{.name = "seed",
                            .type = ParamType::INT,
                            .default_text = "1",
                            .help = "seed of the generator that draws the devices",
                            .min = 0,
                            .max = 9007199254740992.0}); // 2^53: every integer exact
  return specs;
}

RandomFit::RandomFit(const ParamSet& p)
    : FractionalPolicy(p, false), rng_(static_cast<std::uint64_t>(p.integer("seed")))
{
}

std::vector<DeviceIndex> RandomFit::choose(const ClusterView& view, JobIndex j, double mem)
{
  const Request r = request(view, j, mem);
  const auto need = static_cast<std::size_t>(r.devices);
  std::vector<const Bucket*> pool;
  std::vector<std::size_t> ends; // cumulative member counts
  std::size_t total = 0;
  for (auto it = buckets().lower_bound(BucketKey{r.milli, false, 0}); it != buckets().end(); ++it) {
    pool.push_back(&it->second);
    total += it->second.members.size();
    ends.push_back(total);
  }
  // The draws, then the first usable devices, are the order of preference the placement rule chooses in
  // (policies/GangPlacement.hpp): under `pack` the node whose devices are drawn first.
  GangPicker gang = gang_picker(view, j);
  std::set<DeviceIndex> offered;
  bool done = false;
  // Usable: not offered yet, available (not repartitioning, node on) and of a type the job accepts.
  auto usable = [&](DeviceIndex d) {
    return !offered.contains(d) && view.device(d).available && view.allows(j, d);
  };
  auto offer = [&](DeviceIndex d) {
    offered.insert(d);
    done = gang.offer(d, node_of(d));
  };
  for (std::size_t tries = 0; total > 0 && !done && tries < 64 * need; ++tries) {
    const std::size_t k = static_cast<std::size_t>(rng_() % total); // mt19937_64 is specified: portable
    const auto b = static_cast<std::size_t>(std::upper_bound(ends.begin(), ends.end(), k) - ends.begin());
    const DeviceIndex d = pool[b]->members[k - (b == 0 ? 0 : ends[b - 1])];
    if (mem_free(d) >= mem && usable(d)) offer(d);
  }
  for (const Bucket* b : pool)
    for (auto it = b->by_memory.lower_bound({mem, DeviceIndex{0}}); it != b->by_memory.end() && !done; ++it)
      if (usable(it->second)) offer(it->second); // the draws missed: the first usable ones
  return gang.take();
}

} // namespace colocsim
