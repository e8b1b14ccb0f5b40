#include "sim/engine/DevicePhysics.hpp"

#include "models/Interference.hpp"
#include "models/Placement.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace colocsim {

const MigInstances DevicePhysics::NO_INSTANCES;

DevicePhysics::DevicePhysics(const Platform& platform, bool durations_include_scaling,
                             PhysicsListener& listener, ModelError model_error)
    : platform_(platform), durations_include_scaling_(durations_include_scaling), listener_(listener),
      model_error_(model_error)
{
  devices_.resize(platform.devices.size());
  for (DeviceIndex d = 0; d < devices_.size(); ++d) {
    auto& ds = devices_[d];
    ds.freq_set_hz = ds.freq_hz = platform.devices[d].spec->freq_default_hz.value;
    ds.mode = platform.devices[d].mode;
    if (ds.mode == SharingMode::MIG) {
      if (!type(d).mig)
        throw std::invalid_argument("a device in mig mode needs its type's MIG table (DeviceType::mig)");
      ds.mig = static_cast<std::uint32_t>(migs_.size());
      migs_.emplace_back().reset(type(d).mig_layout);
    }
    ds.power_w = device_power(type(d).power, {}, freq_ratio(d)).total_w;
    total_power_w_ += ds.power_w;
    ds.card = platform.devices[d].card;
  }
  // The cards' devices in one array, card by card (card_start_[c] .. card_start_[c + 1]), and each card's cap
  // beside them: the check after every event reads two arrays, not a vector per card and the device's spec.
  std::vector<std::uint32_t> count;
  for (const auto& ds : devices_) {
    if (ds.card >= count.size()) count.resize(ds.card + std::size_t{1}, 0);
    ++count[ds.card];
  }
  card_start_.assign(count.size() + 1, 0);
  for (std::size_t c = 0; c < count.size(); ++c)
    card_start_[c + 1] = card_start_[c] + count[c];
  card_devices_.resize(devices_.size());
  card_cap_w_.assign(count.size(), 0.0);
  auto next = card_start_;
  for (DeviceIndex d = 0; d < devices_.size(); ++d) {
    const auto c = devices_[d].card;
    if (next[c] == card_start_[c]) card_cap_w_[c] = platform.devices[d].spec->card_tdp_w.value; // its first
    card_devices_[next[c]++] = d;
  }
}

std::uint32_t DevicePhysics::begin(JobIndex j, const JobPhysics& job, double thread_share, double share,
                                   std::span<const DeviceIndex> devices,
                                   std::span<const std::uint32_t> instances)
{
  std::uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(jobs_.size());
    jobs_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  auto& rj = jobs_[slot];
  rj.job = j;
  rj.phys = job;
  rj.thread_share = thread_share;
  rj.share = share;
  rj.devices.assign(devices.begin(), devices.end());
  rj.instances.assign(instances.begin(), instances.end());
  rj.device_rate.assign(devices.size(), 1.0);
  rj.comm_eff = comm_efficiency(job, devices);
  rj.rate = 0;
  rj.joined = 0;
  rj.left = false;
  return slot;
}

bool DevicePhysics::join(std::uint32_t slot, std::uint32_t pos)
{
  auto& rj = jobs_[slot];
  const DeviceIndex d = rj.devices[pos];
  listener_.device_changing(d);
  auto& ds = devices_[d];
  ++ds.version;
  ds.residents.push_back(rj.job);
  ds.refs.push_back(ResidentRef{slot, pos});
  ds.share_w.push_back(0);
  ds.mem_used_bytes += rj.phys.sig->mem_bytes;
  ++rj.joined;
  if (ds.mode == SharingMode::MIG) {
    // One job per GPU instance; its memory is the instance's (MIG isolates memory).
    const auto i = rj.instances[pos];
    gi(d).place(i, rj.job);
    return rj.phys.sig->mem_bytes > type(d).mig->profiles()[gi(d)[i].profile].memory_bytes;
  }
  // The job whose arrival overflows the device's memory is the one that fails (docs/architecture.md, Memory
  // and out-of-memory).
  return ds.mem_used_bytes > platform_.devices[d].spec->memory_bytes.value;
}

void DevicePhysics::leave(std::uint32_t slot, std::uint32_t pos)
{
  auto& rj = jobs_[slot];
  const DeviceIndex d = rj.devices[pos];
  listener_.device_changing(d);
  auto& ds = devices_[d];
  const auto it =
      std::find_if(ds.refs.begin(), ds.refs.end(), [slot](const ResidentRef& r) { return r.slot == slot; });
  const auto i = it - ds.refs.begin();
  ++ds.version;
  if (ds.mode == SharingMode::MIG) gi(d).vacate(rj.instances[pos]);
  ds.residents.erase(ds.residents.begin() + i);
  ds.refs.erase(it);
  ds.share_w.erase(ds.share_w.begin() + i);
  ds.mem_used_bytes -= rj.phys.sig->mem_bytes;
  if (ds.residents.empty()) ds.mem_used_bytes = 0; // no drift from repeated add/subtract
  rj.rate = 0;
  rj.left = true;
  --rj.joined;
}

void DevicePhysics::update(std::uint32_t slot)
{
  auto& dirty = dirty_;
  dirty.clear();
  for (const auto d : jobs_[slot].devices)
    recompute(d, dirty);
  settle(dirty);
  auto& rj = jobs_[slot];
  if (rj.left && rj.joined == 0) {
    // Its vectors keep their capacity for the next job of this slot.
    rj.left = false;
    free_slots_.push_back(slot);
  }
}

double DevicePhysics::requested_share(std::uint32_t slot, std::uint32_t pos) const
{
  const auto& rj = jobs_[slot];
  const DeviceIndex d = rj.devices[pos];
  const auto& ds = devices_[d];
  if (ds.mode == SharingMode::MIG) return mig_allocated_share(*type(d).mig, gi(d)[rj.instances[pos]]);
  return rj.share;
}

/// The share of the device a GI occupies for the allocation metrics: its SMs / the largest profile's (7g
/// occupies the whole GPU, though it runs on 98 of its 108 SMs).
double DevicePhysics::mig_allocated_share(const MigGeometry& geo, const MigInstance& gi)
{
  unsigned full = 0;
  for (const auto& p : geo.profiles())
    full = std::max(full, p.sms);
  return static_cast<double>(geo.profiles()[gi.profile].sms) / full;
}

void DevicePhysics::set_frequency(DeviceIndex d, double freq_hz)
{
  auto& ds = devices_[d];
  if (freq_hz == ds.freq_set_hz) return;
  listener_.device_changing(d);
  ++ds.version;
  ds.freq_set_hz = freq_hz;
  auto& dirty = dirty_;
  dirty.clear();
  if (ds.freq_hz != freq_hz) {
    ds.freq_hz = freq_hz; // the card cap, re-checked in settle(), may lower it again
    recompute(d, dirty);
  }
  dirty.push_back(d);
  settle(dirty);
}

void DevicePhysics::set_powered(DeviceIndex d, bool powered)
{
  devices_[d].powered = powered;
  refresh_power(d); // a new power, a new version
}

void DevicePhysics::begin_repartition(DeviceIndex d, SharingMode mode)
{
  auto& ds = devices_[d];
  if (!ds.residents.empty()) throw std::logic_error("a device is repartitioned only when empty");
  // The device is empty, so its mode changes no rate; it only becomes unavailable for the delay.
  if (mode == SharingMode::MIG) {
    if (!type(d).mig) throw std::invalid_argument("a device in mig mode needs its type's MIG table");
    if (ds.mig == NO_MIG) {
      ds.mig = static_cast<std::uint32_t>(migs_.size());
      migs_.emplace_back();
    }
    gi(d).reset(type(d).mig_layout);
  } else if (ds.mig != NO_MIG) {
    gi(d).clear();
  }
  ds.mode = mode;
  ds.repartitioning = true;
  ++ds.version;
}

void DevicePhysics::reconfigure_mig(DeviceIndex d, const MigChange& change, double now)
{
  auto& ds = devices_[d];
  ++ds.version;
  const auto remap = gi(d).reconfigure(*type(d).mig, change, now);
  for (const auto& ref : ds.refs) {
    auto& i = jobs_[ref.slot].instances[ref.pos];
    i = static_cast<std::uint32_t>(remap[i]);
  }
}

void DevicePhysics::add_input(SlowdownInputs& in, DeviceIndex d, const ResourceSignature* sig,
                              double thread_share, const MigInstance* instance) const
{
  in.sigs.push_back(sig);
  if (!instance) {
    in.caps.push_back(thread_share);
    return;
  }
  // mig: the instance's fractions of the GPU's SMs and memory slices (models/Mig.hpp), and its compute slices
  const auto& t = type(d);
  const auto& profile = t.mig->profiles()[instance->profile];
  in.caps.push_back(mig_sm_fraction(profile, t.spec->compute_units.value));
  in.mems.push_back(mig_memory_fraction(*t.mig, profile));
  in.slices.push_back(profile.compute_slices);
}

void DevicePhysics::resident_inputs(DeviceIndex d, SlowdownInputs& in) const
{
  in.clear();
  const auto& ds = devices_[d];
  const bool mig = ds.mode == SharingMode::MIG;
  for (const auto& ref : ds.refs) {
    const auto& rj = jobs_[ref.slot];
    add_input(in, d, rj.phys.sig, rj.thread_share, mig ? &gi(d)[rj.instances[ref.pos]] : nullptr);
  }
}

void DevicePhysics::recompute(DeviceIndex d, std::vector<DeviceIndex>& dirty)
{
  auto& ds = devices_[d];
  dirty.push_back(d);
  const std::size_t n = ds.residents.size();
  if (n == 0) return;
  resident_inputs(d, inputs_);
  inputs_.slow.resize(n);
  const auto& dt = type(d);
  compute_slowdowns(ds.mode, dt.time_slice, *dt.interference, inputs_.sigs, inputs_.slow, inputs_.caps,
                    inputs_.mems, inputs_.slices);
  if (model_error_.active()) apply_model_error(d, n);
  for (std::size_t i = 0; i < n; ++i) {
    auto& rj = jobs_[ds.refs[i].slot];
    rj.device_rate[ds.refs[i].pos] = device_rate(rj.phys, d, inputs_.slow[i]);
    // A gang job progresses at its slowest device's rate times its scaling efficiency e(n) (1 alone; 1 when
    // its duration already includes its scaling losses), times its communication efficiency (1 when it
    // does not communicate; the product is not taken then, so that such runs keep their results bit for bit).
    double rate = *std::min_element(rj.device_rate.begin(), rj.device_rate.end()) *
                  gang_efficiency(*rj.phys.sig, rj.devices.size());
    if (rj.comm_eff != 1.0) rate *= rj.comm_eff;
    if (rate == rj.rate) continue;
    // The job's rate changes on all of its devices: the engine brings its work up to now at the old rate,
    // and its devices' meters up to now at their old power.
    listener_.rate_changing(rj.job, rate);
    rj.rate = rate;
    for (const DeviceIndex other : rj.devices) {
      listener_.device_changing(other);
      if (other != d) dirty.push_back(other);
    }
  }
}

void DevicePhysics::apply_model_error(DeviceIndex d, std::size_t n)
{
  const auto& ds = devices_[d];
  const auto& dt = type(d);
  auto& slow = inputs_.slow;
  if (ds.mode == SharingMode::MIG) {
    if (model_error_.mig == 0) return;
    for (std::size_t i = 0; i < n; ++i) {
      const auto& rj = jobs_[ds.refs[i].slot];
      const auto& profile = dt.mig->profiles()[gi(d)[rj.instances[ds.refs[i].pos]].profile];
      slow[i] = std::max(1.0, slow[i] * model_error_factor(model_error_.mig, model_error_.seed, "mig",
                                                           rj.phys.profile, profile.name));
    }
    return;
  }
  if (model_error_.interference == 0 || n < 2) return; // alone: no co-runner, nothing interferes
  // The floor: what the sharing mode alone does to each job (interference model `none`: the time-sharing,
  // the MPS demand, the CCS partition), or the model's own slowdown where that is lower (a measured pair
  // total may be), so that a factor of 1 leaves the model's slowdown as it is.
  static const NoInterference no_interference;
  auto& floor = mode_only_;
  floor.resize(n);
  compute_slowdowns(ds.mode, dt.time_slice, no_interference, inputs_.sigs, floor, inputs_.caps);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& own = jobs_[ds.refs[i].slot].phys.profile;
    double factor = 0;
    for (std::size_t k = 0; k < n; ++k)
      if (k != i)
        factor += model_error_factor(model_error_.interference, model_error_.seed, "interference", own,
                                     jobs_[ds.refs[k].slot].phys.profile);
    factor /= static_cast<double>(n - 1);
    slow[i] = std::max(std::min(slow[i], floor[i]), slow[i] * factor);
  }
}

void DevicePhysics::load_of(DeviceIndex d, std::vector<PowerLoad>& loads) const
{
  // A job's activity on this device relative to running alone at the device's current frequency: its
  // progress rate with this device's frequency factor taken out (a gang job slowed by another device is
  // less active here too).
  loads.clear();
  for (const auto& ref : devices_[d].refs) {
    const auto& rj = jobs_[ref.slot];
    loads.push_back(
        PowerLoad{rj.phys.sig, rj.rate * time_factor(*rj.phys.sig, d) * rj.phys.base_speed / type(d).speed});
  }
}

void DevicePhysics::refresh_power(DeviceIndex d)
{
  auto& ds = devices_[d];
  load_of(d, loads_);
  const double old = ds.power_w;
  ds.power_w = ds.powered ? device_power(type(d).power, loads_, freq_ratio(d)).total_w : 0.0;
  attribute_power(type(d).power, loads_, freq_ratio(d), ds.share_w);
  total_power_w_ += ds.power_w - old;
  if (ds.power_w != old) ++ds.version; // what predict() subtracts from the power afterwards
}

void DevicePhysics::settle(std::vector<DeviceIndex>& dirty)
{
  std::sort(dirty.begin(), dirty.end());
  dirty.erase(std::unique(dirty.begin(), dirty.end()), dirty.end());
  for (auto d : dirty)
    refresh_power(d);
  // Card power caps: one pass over the cards touched. A cap change that alters a gang job's rate changes
  // the power of its devices on other cards too; their cap is re-checked at their next event.
  auto& cards = cards_touched_;
  cards.clear();
  for (auto d : dirty)
    cards.push_back(devices_[d].card);
  std::sort(cards.begin(), cards.end());
  cards.erase(std::unique(cards.begin(), cards.end()), cards.end());
  auto& more = more_;
  more.clear();
  for (auto c : cards)
    enforce_card_cap(c, more);
  if (!more.empty()) {
    std::sort(more.begin(), more.end());
    more.erase(std::unique(more.begin(), more.end()), more.end());
    for (auto d : more)
      refresh_power(d);
  }
  listener_.rates_settled();
}

void DevicePhysics::enforce_card_cap(std::uint32_t card, std::vector<DeviceIndex>& dirty)
{
  const std::span<const DeviceIndex> devs(card_devices_.data() + card_start_[card],
                                          card_start_[card + 1] - card_start_[card]);
  const double cap_w = card_cap_w_[card];
  // Fast path (almost every event): nothing on the card is throttled and its power is within the cap.
  double card_w = 0;
  bool throttled = false;
  for (auto d : devs) {
    card_w += devices_[d].power_w;
    throttled = throttled || devices_[d].freq_hz != devices_[d].freq_set_hz;
  }
  if (!throttled && card_w <= cap_w) return;
  // Card power if every device ran at min(its setting, f): monotone in f, since frequency enters only
  // through (f/f_max)^γ, in the dynamic part and in the static floor of a busy or pinned tile (activities
  // are relative to running alone at the current frequency).
  std::vector<std::vector<PowerLoad>> loads(devs.size());
  double f_hi = 0;
  for (std::size_t i = 0; i < devs.size(); ++i) {
    load_of(devs[i], loads[i]);
    f_hi = std::max(f_hi, devices_[devs[i]].freq_set_hz);
  }
  auto card_power = [&](double f) {
    double p = 0;
    for (std::size_t i = 0; i < devs.size(); ++i) {
      const auto& pd = platform_.devices[devs[i]];
      p += device_power(type(devs[i]).power, loads[i],
                        std::min(devices_[devs[i]].freq_set_hz, f) / pd.spec->freq_max_hz.value)
               .total_w;
    }
    return p;
  };
  double f_cap = f_hi;
  if (card_power(f_hi) > cap_w) {
    // Throttle (exceeding the card's power limit throttles its frequency): the highest f that fits the cap,
    // never below the device minimum.
    const auto& spec = *platform_.devices[devs.front()].spec;
    double lo = spec.freq_min_hz.value, hi = f_hi;
    if (card_power(lo) > cap_w) hi = lo;
    for (int it = 0; it < 60 && hi - lo > 1e-6 * hi; ++it) {
      const double mid = 0.5 * (lo + hi);
      (card_power(mid) > cap_w ? hi : lo) = mid;
    }
    f_cap = lo;
  }
  for (auto d : devs) {
    auto& ds = devices_[d];
    const double eff = std::min(ds.freq_set_hz, f_cap);
    if (eff == ds.freq_hz) continue;
    listener_.device_changing(d);
    ds.freq_hz = eff;
    ++ds.version;        // a sibling's load moved this device's frequency: its predictions change too
    recompute(d, dirty); // the residents' time factors changed
  }
}

PlacementPrediction DevicePhysics::predict(const JobPhysics& job, std::span<const DeviceIndex> devices,
                                           std::span<const ResourceSignature* const> also,
                                           double ready_by) const
{
  PlacementPrediction p;
  auto& in = predict_inputs_;
  auto& loads = predict_loads_;
  double rate = std::numeric_limits<double>::infinity(); // the slowest device's, as recompute() sets it
  for (const DeviceIndex d : devices) {
    const auto& ds = devices_.at(d);
    const auto& dt = type(d);
    const bool mig = ds.mode == SharingMode::MIG;
    // The device's residents, then the jobs of `also` and the job, each as the engine would place them: in
    // mig mode the jobs of `also` take the largest empty ready instances, in their order, and the job the
    // largest one left (the jobs on other instances enter through the model's cross-instance term only).
    resident_inputs(d, in);
    double mem = ds.mem_used_bytes;
    const MigInstance* own = nullptr;
    if (mig) {
      const auto best = gi(d).largest_free(*dt.mig, ready_by, also.size());
      if (!best) { // no instance left for it
        p.fits_memory = false;
        p.job_slowdown = std::max(p.job_slowdown, 1e9);
        rate = std::min(rate, 1e-9);
        continue;
      }
      for (std::size_t k = 0; k < also.size(); ++k)
        add_input(in, d, also[k], 1.0, &gi(d)[*gi(d).largest_free(*dt.mig, ready_by, k)]);
      own = &gi(d)[*best];
      mem = 0; // the instance's own memory
    } else {
      for (const auto* sig : also) {
        add_input(in, d, sig, 1.0, nullptr);
        mem += sig->mem_bytes;
      }
    }
    add_input(in, d, job.sig, 1.0, own);
    in.slow.resize(in.sigs.size());
    double s = 1;
    if (mig) {
      compute_slowdowns(ds.mode, dt.time_slice, *dt.interference, in.sigs, in.slow, in.caps, in.mems,
                        in.slices);
      s = in.slow.back();
    } else {
      const DevicePrediction dp =
          predict_device(ds.mode, dt.time_slice, *dt.interference, in.sigs, in.caps, in.slow);
      s = dp.job_slowdown;
      p.job_interference = std::max(p.job_interference, dp.job_interference);
      p.max_corunner_slowdown = std::max(p.max_corunner_slowdown, dp.max_corunner_slowdown);
      p.max_corunner_interference = std::max(p.max_corunner_interference, dp.max_corunner_interference);
    }
    p.job_slowdown = std::max(p.job_slowdown, s * time_factor(*job.sig, d));
    rate = std::min(rate, device_rate(job, d, s));
    // Power afterwards: every job at its predicted slowdown on this device (its activity if this device set
    // its pace), against the device's power now.
    loads.clear();
    for (std::size_t i = 0; i < in.sigs.size(); ++i)
      loads.push_back(PowerLoad{in.sigs[i], 1.0 / in.slow[i]});
    p.added_power_w += device_power(dt.power, loads, freq_ratio(d)).total_w - ds.power_w;
    const double capacity =
        mig ? dt.mig->profiles()[own->profile].memory_bytes : platform_.devices[d].spec->memory_bytes.value;
    if (mem + job.sig->mem_bytes > capacity) p.fits_memory = false;
  }
  if (!devices.empty()) {
    p.job_rate = rate * gang_efficiency(*job.sig, devices.size());
    // The rate the job would then get (recompute(): the same factor, the same order of products).
    if (const double c = comm_efficiency(job, devices); c != 1.0) p.job_rate *= c;
  }
  return p;
}

DevicePhysics::CommAt DevicePhysics::comm_at(const JobPhysics& job,
                                             std::span<const DeviceIndex> devices) const
{
  const Network& net = *platform_.network;
  std::vector<std::uint32_t> nodes(devices.size());
  for (std::size_t i = 0; i < devices.size(); ++i)
    nodes[i] = platform_.devices[devices[i]].node;
  return {net.placement_of(nodes), job.comm->resolve(net.tiers, net.packed(job.comm->at))};
}

double DevicePhysics::comm_efficiency(const JobPhysics& job, std::span<const DeviceIndex> devices) const
{
  if (!communicates(job, devices.size())) return 1.0;
  const auto [at, profile] = comm_at(job, devices);
  return colocsim::comm_efficiency(profile, at, platform_.network->tiers);
}

double DevicePhysics::nic_bytes_per_work(const JobPhysics& job, std::span<const DeviceIndex> devices) const
{
  if (!communicates(job, devices.size())) return 0.0;
  const auto [at, profile] = comm_at(job, devices);
  return colocsim::nic_bytes(profile.collective, profile.bytes, at) / profile.compute_s;
}

double DevicePhysics::mig_slowdown_alone(const ResourceSignature& sig, DeviceIndex d,
                                         std::size_t profile) const
{
  const auto& t = type(d);
  if (!t.mig || profile >= t.mig->profiles().size()) return 1.0;
  const auto& p = t.mig->profiles()[profile];
  return mig_slowdown(sig, mig_sm_fraction(p, t.spec->compute_units.value), mig_memory_fraction(*t.mig, p),
                      p.compute_slices);
}

} // namespace colocsim
