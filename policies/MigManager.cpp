#include "policies/MigManager.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace colocsim {

std::vector<ParamSpec> MigManager::params()
{
  return {ParamSpec{.name = "growth",
                    .type = ParamType::REAL,
                    .default_text = "2",
                    .help = "after an out-of-memory failure the estimate grows at least by this factor",
                    .min = 1.0,
                    .max = 100.0},
          ParamSpec{.name = "early_restart",
                    .type = ParamType::BOOL,
                    .default_text = "true",
                    .help = "a job that ran out of memory is restarted ahead of the queue",
                    .choices = {}},
          ParamSpec{.name = "memory",
                    .type = ParamType::CHOICE,
                    .default_text = "declared",
                    .help = "initial estimate: the trace's declared memory, or the profile's real footprint "
                            "(an oracle, for comparison)",
                    .choices = {"declared", "profile"}},
          ParamSpec{.name = "reconfigure",
                    .type = ParamType::BOOL,
                    .default_text = "true",
                    .help = "change the instance layout (fission, fusion); false: a static layout, the "
                            "scenario's platform.mig_layout, each job on the smallest empty instance that "
                            "holds its estimate",
                    .choices = {}},
          ParamSpec{.name = "sizing",
                    .type = ParamType::CHOICE,
                    .default_text = "compute",
                    .help = "instance size: compute = the smallest that holds the memory estimate and runs "
                            "the job at most max_slowdown times slower than the whole GPU (predicted); "
                            "memory = the smallest that holds the memory estimate",
                    .choices = {"compute", "memory"}},
          ParamSpec{.name = "max_slowdown",
                    .type = ParamType::REAL,
                    .default_text = "1.25",
                    .help = "sizing=compute: the largest predicted slowdown alone on the instance",
                    .min = 1.0,
                    .max = 100.0},
          ParamSpec{.name = "backfill",
                    .type = ParamType::BOOL,
                    .default_text = "true",
                    .help = "jobs behind a waiting head start where an instance serves them, never "
                            "delaying the head (EASY: the head reserves the device that drains first)",
                    .choices = {}}};
}

MigManager::MigManager(const ParamSet& p, Lookup lookup)
    : growth_(p.real("growth")), early_restart_(p.flag("early_restart")),
      use_declared_(p.text("memory") == "declared"), reconfigure_(p.flag("reconfigure")),
      size_by_compute_(p.text("sizing") == "compute"), max_slowdown_(p.real("max_slowdown")),
      backfill_(p.flag("backfill")), lookup_(lookup)
{
}
std::size_t MigManager::size_for(const ClusterView& view, JobIndex j, DeviceIndex d, const MigGeometry& geo,
                                 std::size_t memory_profile) const
{
  if (!size_by_compute_) return memory_profile;
  // Every profile that holds the estimate, smallest first (fewest compute slices, then least memory).
  const auto& profiles = geo.profiles();
  const double need = estimate_.at(j);
  std::vector<std::size_t> holding;
  for (std::size_t i = 0; i < profiles.size(); ++i)
    if (profiles[i].memory_bytes >= need) holding.push_back(i);
  std::stable_sort(holding.begin(), holding.end(), [&](std::size_t a, std::size_t b) {
    return profiles[a].compute_slices < profiles[b].compute_slices ||
           (profiles[a].compute_slices == profiles[b].compute_slices &&
            profiles[a].memory_bytes < profiles[b].memory_bytes);
  });
  std::size_t best = memory_profile;
  double best_slowdown = std::numeric_limits<double>::infinity();
  for (const std::size_t i : holding) {
    const double slowdown = view.mig_slowdown_alone(j, d, i);
    if (slowdown <= max_slowdown_ * (1 + 1e-12)) return i;
    if (slowdown < best_slowdown * (1 - 1e-12)) {
      best = i;
      best_slowdown = slowdown;
    }
  }
  return best; // none within the bound: the least predicted slowdown
}

std::optional<std::size_t> MigManager::profile_for(const MigGeometry& geo, double bytes)
{
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < geo.profiles().size(); ++i) {
    const auto& p = geo.profiles()[i];
    if (p.memory_bytes < bytes) continue;
    if (!best) {
      best = i;
      continue;
    }
    const auto& b = geo.profiles()[*best];
    if (p.compute_slices < b.compute_slices ||
        (p.compute_slices == b.compute_slices && p.memory_bytes < b.memory_bytes))
      best = i;
  }
  return best;
}

bool MigManager::place_head(const ClusterView& view, JobIndex j, std::vector<Decision>& out)
{
  // The devices in mig mode that accept the job, of the first such device's MIG table (a platform of
  // several MIG-capable types places a job on one type's GPUs).
  const MigGeometry* geo = job_geometry(view, j);
  if (!geo) {
    out.push_back(Reject{j, "mig-manager needs devices in mig mode (platform.sharing: mig)"});
    return true;
  }
  const auto memory_profile = profile_for(*geo, estimate_[j]);
  if (!memory_profile) {
    out.push_back(Reject{j, "its memory estimate exceeds the largest MIG instance"});
    return true;
  }
  if (view.job(j).devices != 1) {
    out.push_back(Reject{j, "mig-manager places single-GPU jobs (one instance each)"});
    return true;
  }
  // Backfill passes over the device reserved for the head, and every lookup over devices whose layout
  // changes in this call.
  const auto first = first_device(view, j, *geo);
  if (!first) return false;
  if (!reconfigure_) return place_static(view, *geo, j, out);
  const std::size_t profile = size_for(view, j, *first, *geo, *memory_profile);
  // (1) An empty, ready instance of the profile.
  if (const auto slot = find_empty(view, j, *geo, profile)) {
    place(view, j, *slot, out);
    if (lookup_ == Lookup::INDEX) refresh(view, slot->first);
    return true;
  }
  // A job waits for the layout change under way for it (one pending change per job), unless that instance
  // can no longer serve it (its GPU went off, or its estimate outgrew the profile after a failure).
  if (waits_for_change(view, j, *geo, profile)) return false;
  // (2)-(4): change the layout of one device (not one already reconfiguring).
  if (auto change = find_change(view, j, *geo, profile)) {
    const DeviceIndex d = change->first;
    out.push_back(ReconfigureMig{d, std::move(change->second)});
    reconfiguring_.insert(d);
    changed_now_.insert(d);
    changed_for_[d] = j;
    changed_profile_[d] = profile;
    if (lookup_ == Lookup::INDEX) changes_for_job_[j].insert(d);
    touched_.push_back(d);
    if (lookup_ == Lookup::INDEX) refresh(view, d);
    return false; // the job waits for the new instance (DeviceRepartitioned)
  }
  return false;
}

bool MigManager::waits_for_change(const ClusterView& view, JobIndex j, const MigGeometry& geo,
                                  std::size_t profile) const
{
  auto serves = [&](DeviceIndex d) {
    const auto p = changed_profile_.find(d);
    return view.device(d).available && view.mig_geometry(d) == &geo && view.allows(j, d) &&
           p != changed_profile_.end() && p->second == profile;
  };
  if (lookup_ == Lookup::SCAN) {
    for (const DeviceIndex d : reconfiguring_)
      if (const auto it = changed_for_.find(d); it != changed_for_.end() && it->second == j && serves(d))
        return true;
    return false;
  }
  const auto it = changes_for_job_.find(j);
  if (it == changes_for_job_.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(), serves);
}

bool MigManager::place_static(const ClusterView& view, const MigGeometry& geo, JobIndex j,
                              std::vector<Decision>& out)
{
  bool any_holds = false;
  const auto best = find_static(view, j, geo, estimate_[j], any_holds);
  if (!any_holds) {
    if (excluded_) return false; // backfill: the reserved device may hold it
    out.push_back(Reject{j, "no instance of the static MIG layout holds its memory estimate"});
    return true;
  }
  if (!best) return false; // wait for one to empty
  place(view, j, *best, out);
  if (lookup_ == Lookup::INDEX) refresh(view, best->first);
  return true;
}

void MigManager::place(const ClusterView& view, JobIndex j, Slot slot, std::vector<Decision>& out)
{
  Place p{j, {slot.first}};
  p.instances = {slot.second};
  out.push_back(std::move(p));
  running_on_[j] = slot;
  taken_now_.insert(slot);
  touched_.push_back(slot.first);
  const DeviceIndex d = slot.first;
  const double slowdown = view.mig_slowdown_alone(j, d, view.mig_instances(d).at(slot.second).gi.profile);
  const double end = view.now() + view.estimate(j) * slowdown / view.device(d).speed;
  expected_end_[j] = end;
  if (lookup_ == Lookup::INDEX) {
    ends_on_.at(d).emplace_back(j, end);
    update_drain(d);
  }
}

void MigManager::left(JobIndex j)
{
  const auto it = running_on_.find(j);
  if (it == running_on_.end()) return;
  const DeviceIndex d = it->second.first;
  running_on_.erase(it);
  expected_end_.erase(j);
  if (lookup_ == Lookup::INDEX && d < ends_on_.size()) {
    std::erase_if(ends_on_[d], [j](const auto& e) { return e.first == j; });
    update_drain(d);
  }
}

double MigManager::drain_value(DeviceIndex d) const
{
  // Minus the latest predicted end (FitIndex finds values >= a threshold); the largest double if empty.
  if (ends_on_[d].empty()) return std::numeric_limits<double>::max();
  double last = -std::numeric_limits<double>::infinity();
  for (const auto& e : ends_on_[d])
    last = std::max(last, e.second);
  return -last;
}

void MigManager::update_drain(DeviceIndex d)
{
  if (!std::isnan(drain_of_[d])) by_drain_.erase({drain_of_[d], d});
  drain_of_[d] = std::numeric_limits<double>::quiet_NaN();
  const double v = drain_value(d);
  if (!ends_on_[d].empty()) {
    drain_of_[d] = -v;
    by_drain_.insert({-v, d});
  }
  if (masks_[d].cls >= 0) classes_[static_cast<std::size_t>(masks_[d].cls)].drain.set(d, v);
}

std::optional<MigChange> MigManager::change_for(const MigGeometry& geo, DeviceIndex d,
                                                const std::vector<MigSlot>& slots, std::size_t profile) const
{
  MigLayout layout;
  std::vector<bool> busy;
  for (std::uint32_t i = 0; i < slots.size(); ++i) {
    layout.push_back(slots[i].gi);
    busy.push_back(slots[i].job.has_value() || !slots[i].ready || taken_now_.count({d, i}) > 0);
  }
  std::optional<MigChange> change;
  if (geo.lowest_start(layout, profile)) { // (2) free memory slices
    change = geo.make_room(layout, busy, profile);
  } else { // (3) fission: the smallest empty instance larger than needed
    std::optional<std::size_t> bigger;
    for (std::size_t i = 0; i < layout.size(); ++i) {
      const auto& p = geo.profiles()[layout[i].profile];
      if (busy[i] || p.compute_slices <= geo.profiles()[profile].compute_slices) continue;
      if (!bigger || p.compute_slices < geo.profiles()[layout[*bigger].profile].compute_slices) bigger = i;
    }
    if (bigger) change = geo.split(layout, *bigger, profile);
    if (!change) change = geo.make_room(layout, busy, profile); // (4) fusion
  }
  if (change && geo.check_change(layout, busy, *change).ok()) return change;
  return std::nullopt;
}

std::optional<std::uint32_t> MigManager::empty_instance_on(const std::vector<MigSlot>& slots, DeviceIndex d,
                                                           std::size_t profile) const
{
  for (std::uint32_t i = 0; i < slots.size(); ++i)
    if (!slots[i].job && slots[i].ready && slots[i].gi.profile == profile && !taken_now_.count({d, i}))
      return i;
  return std::nullopt;
}

// ---- the lookups ----

const MigGeometry* MigManager::job_geometry(const ClusterView& view, JobIndex j) const
{
  if (lookup_ == Lookup::SCAN) {
    for (DeviceIndex d = 0; d < view.device_count(); ++d)
      if (const auto* g = view.mig_geometry(d); g && view.device(d).available && view.allows(j, d)) return g;
    return nullptr;
  }
  const MigGeometry* geo = nullptr;
  std::size_t lowest = FitIndex::NONE;
  for (const auto& c : classes_) {
    if (!view.allows(j, c.first)) continue;
    if (const auto d = first_available(view, c.devices, false); d < lowest) {
      lowest = d;
      geo = c.geo;
    }
  }
  return geo;
}

std::optional<DeviceIndex> MigManager::first_device(const ClusterView& view, JobIndex j,
                                                    const MigGeometry& geo) const
{
  if (lookup_ == Lookup::SCAN) {
    for (DeviceIndex d = 0; d < view.device_count(); ++d)
      if (view.mig_geometry(d) == &geo && view.device(d).available && view.allows(j, d) && !passed_over(d))
        return d;
    return std::nullopt;
  }
  std::size_t best = FitIndex::NONE;
  for (const auto* c : classes_for(view, j, geo))
    best = std::min(best, first_available(view, c->open));
  if (best == FitIndex::NONE) return std::nullopt;
  return static_cast<DeviceIndex>(best);
}

std::optional<MigManager::Slot> MigManager::find_empty(const ClusterView& view, JobIndex j,
                                                       const MigGeometry& geo, std::size_t profile) const
{
  if (lookup_ == Lookup::SCAN) {
    for (DeviceIndex d = 0; d < view.device_count(); ++d) {
      if (view.mig_geometry(d) != &geo || !view.device(d).available || !view.allows(j, d)) continue;
      if (passed_over(d)) continue;
      if (const auto i = empty_instance_on(view.mig_instances(d), d, profile)) return Slot{d, *i};
    }
    return std::nullopt;
  }
  std::size_t best = FitIndex::NONE;
  for (const auto* c : classes_for(view, j, geo))
    best = std::min(best, first_available(view, c->empty[profile]));
  if (best == FitIndex::NONE) return std::nullopt;
  const auto d = static_cast<DeviceIndex>(best);
  const auto i = empty_instance_on(view.mig_instances(d), d, profile);
  if (!i) throw std::logic_error("mig-manager: the index of empty instances is out of date");
  return Slot{d, *i};
}

std::optional<std::pair<DeviceIndex, MigChange>> MigManager::find_change(const ClusterView& view, JobIndex j,
                                                                         const MigGeometry& geo,
                                                                         std::size_t profile) const
{
  if (lookup_ == Lookup::SCAN) {
    for (DeviceIndex d = 0; d < view.device_count(); ++d) {
      if (view.mig_geometry(d) != &geo || !view.device(d).available || !view.allows(j, d)) continue;
      if (reconfiguring_.count(d) || passed_over(d)) continue;
      if (auto change = change_for(geo, d, view.mig_instances(d), profile))
        return std::pair{d, std::move(*change)};
    }
    return std::nullopt;
  }
  std::size_t best = FitIndex::NONE;
  for (const auto* c : classes_for(view, j, geo))
    best = std::min(best, first_available(view, c->changeable[profile]));
  if (best == FitIndex::NONE) return std::nullopt;
  const auto d = static_cast<DeviceIndex>(best);
  auto change = change_for(geo, d, view.mig_instances(d), profile);
  if (!change) throw std::logic_error("mig-manager: the index of layout changes is out of date");
  return std::pair{d, std::move(*change)};
}

std::optional<MigManager::Slot> MigManager::find_static(const ClusterView& view, JobIndex j,
                                                        const MigGeometry& geo, double bytes,
                                                        bool& any_holds) const
{
  auto smaller = [](const MigProfile& a, const MigProfile& b) {
    return a.compute_slices < b.compute_slices ||
           (a.compute_slices == b.compute_slices && a.memory_bytes < b.memory_bytes);
  };
  const auto& profiles = geo.profiles();
  any_holds = false;
  if (lookup_ == Lookup::SCAN) {
    std::optional<Slot> best;
    std::size_t best_profile = 0;
    for (DeviceIndex d = 0; d < view.device_count(); ++d) {
      if (view.mig_geometry(d) != &geo || !view.device(d).available || !view.allows(j, d)) continue;
      if (passed_over(d)) continue;
      const auto slots = view.mig_instances(d);
      for (std::uint32_t i = 0; i < slots.size(); ++i) {
        const auto& p = profiles[slots[i].gi.profile];
        if (p.memory_bytes < bytes) continue;
        any_holds = true;
        if (slots[i].job || !slots[i].ready || taken_now_.count({d, i})) continue;
        if (!best || smaller(p, profiles[best_profile])) {
          best = Slot{d, i};
          best_profile = slots[i].gi.profile;
        }
      }
    }
    return best;
  }
  // Profiles that hold the estimate, smallest first; profiles of equal size form one group, whose lowest
  // (device, instance) wins, as in the scan.
  std::vector<std::size_t> order;
  for (std::size_t p = 0; p < profiles.size(); ++p)
    if (profiles[p].memory_bytes >= bytes) order.push_back(p);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return smaller(profiles[a], profiles[b]); });
  const auto classes = classes_for(view, j, geo);
  for (const auto* c : classes)
    for (const auto p : order)
      any_holds = any_holds || first_available(view, c->holding[p]) != FitIndex::NONE;
  for (std::size_t g = 0; g < order.size();) {
    std::size_t end = g + 1;
    while (end < order.size() && !smaller(profiles[order[g]], profiles[order[end]]))
      ++end;
    std::size_t best = FitIndex::NONE;
    for (const auto* c : classes)
      for (std::size_t k = g; k < end; ++k)
        best = std::min(best, first_available(view, c->empty[order[k]]));
    if (best != FitIndex::NONE) {
      const auto d = static_cast<DeviceIndex>(best);
      const auto slots = view.mig_instances(d);
      for (std::uint32_t i = 0; i < slots.size(); ++i)
        for (std::size_t k = g; k < end; ++k)
          if (slots[i].gi.profile == order[k] && !slots[i].job && slots[i].ready && !taken_now_.count({d, i}))
            return Slot{d, i};
      throw std::logic_error("mig-manager: the index of empty instances is out of date");
    }
    g = end;
  }
  return std::nullopt;
}

// ---- the indexes ----

void MigManager::build_index(const ClusterView& view)
{
  const std::size_t n = view.device_count();
  masks_.assign(n, DeviceMasks{});
  ends_on_.assign(n, {});
  drain_of_.assign(n, std::numeric_limits<double>::quiet_NaN());
  for (DeviceIndex d = 0; d < n; ++d)
    refresh(view, d);
  indexed_ = true;
}

void MigManager::refresh(const ClusterView& view, DeviceIndex d)
{
  auto& m = masks_.at(d);
  DeviceMasks now;
  const MigGeometry* geo = view.mig_geometry(d);
  std::vector<MigSlot> slots;
  if (geo) {
    const auto type = view.device(d).type;
    auto it = std::find_if(classes_.begin(), classes_.end(),
                           [&](const MigClass& c) { return c.geo == geo && c.type == type; });
    if (it == classes_.end()) {
      const std::size_t n = view.device_count(), np = geo->profiles().size();
      if (np > 32) throw std::invalid_argument("mig-manager: a MIG table of more than 32 profiles");
      classes_.push_back(MigClass{.geo = geo,
                                  .type = type,
                                  .first = d,
                                  .devices = FitIndex(n),
                                  .open = FitIndex(n),
                                  .drain = FitIndex(n),
                                  .empty = std::vector<FitIndex>(np, FitIndex(n)),
                                  .changeable = std::vector<FitIndex>(np, FitIndex(n)),
                                  .holding = std::vector<FitIndex>(np, FitIndex(n))});
      it = classes_.end() - 1;
    }
    now.cls = static_cast<int>(it - classes_.begin());
    const bool changing = changed_now_.count(d) > 0; // its instances are not what the view shows
    now.open = !changing;
    slots = view.mig_instances(d);
    for (std::uint32_t i = 0; i < slots.size(); ++i) {
      const auto bit = std::uint32_t{1} << slots[i].gi.profile;
      now.holding |= bit;
      if (!slots[i].job && slots[i].ready && !taken_now_.count({d, i}) && !changing) now.empty |= bit;
    }
    if (reconfigure_ && !reconfiguring_.count(d))
      for (std::size_t p = 0; p < geo->profiles().size(); ++p)
        if (change_for(*geo, d, slots, p)) now.changeable |= std::uint32_t{1} << p;
  }
  auto update = [d](std::vector<FitIndex>& index, std::uint32_t before, std::uint32_t after) {
    for (std::uint32_t changed = before ^ after; changed != 0; changed &= changed - 1) {
      const auto p = static_cast<std::size_t>(__builtin_ctz(changed));
      index[p].set(d, (after >> p) & 1U ? 1.0 : FitIndex::UNAVAILABLE);
    }
  };
  if (m.cls != now.cls && m.cls >= 0) { // left its class (its mode or type changed)
    auto& c = classes_[static_cast<std::size_t>(m.cls)];
    c.devices.set(d, FitIndex::UNAVAILABLE);
    c.open.set(d, FitIndex::UNAVAILABLE);
    c.drain.set(d, FitIndex::UNAVAILABLE);
    update(c.empty, m.empty, 0);
    update(c.changeable, m.changeable, 0);
    update(c.holding, m.holding, 0);
    m = DeviceMasks{};
  }
  if (now.cls >= 0) {
    auto& c = classes_[static_cast<std::size_t>(now.cls)];
    if (m.cls != now.cls) {
      c.devices.set(d, 1.0);
      c.drain.set(d, drain_value(d));
    }
    if (m.cls != now.cls || m.open != now.open) c.open.set(d, now.open ? 1.0 : FitIndex::UNAVAILABLE);
    update(c.empty, m.empty, now.empty);
    update(c.changeable, m.changeable, now.changeable);
    update(c.holding, m.holding, now.holding);
  }
  m = now;
}

void MigManager::update_index(const ClusterView& view, std::span<const Event> events)
{
  if (!indexed_) {
    build_index(view); // once, O(devices)
  } else {
    // What changed since the last call: the devices it decided on (now applied by the engine) and those the
    // events name. Nodes powered off or on change no instance; availability is checked at each lookup.
    for (const DeviceIndex d : touched_)
      refresh(view, d);
    for (const auto& e : events) {
      if (const auto* c = std::get_if<JobCompleted>(&e))
        for (const DeviceIndex d : c->devices)
          refresh(view, d);
      else if (const auto* f = std::get_if<JobFailed>(&e))
        for (const DeviceIndex d : f->devices)
          refresh(view, d);
      else if (const auto* r = std::get_if<DeviceRepartitioned>(&e))
        refresh(view, r->device);
    }
  }
  touched_.clear();
}

std::vector<const MigManager::MigClass*> MigManager::classes_for(const ClusterView& view, JobIndex j,
                                                                 const MigGeometry& geo) const
{
  std::vector<const MigClass*> out;
  for (const auto& c : classes_)
    if (c.geo == &geo && view.allows(j, c.first)) out.push_back(&c);
  return out;
}

std::size_t MigManager::first_available(const ClusterView& view, const FitIndex& index, bool skip_reserved,
                                        double threshold) const
{
  for (std::size_t from = 0;;) {
    const std::size_t d = index.find_first(threshold, from);
    if (d == FitIndex::NONE) return d;
    const auto dev = static_cast<DeviceIndex>(d);
    if (view.device(dev).available && !(skip_reserved && excluded_ && dev == *excluded_)) return d;
    from = d + 1; // its node is off or booting, or it is reserved for the head
  }
}

std::vector<Decision> MigManager::decide(const ClusterView& view, std::span<const Event> events)
{
  for (const auto& e : events) {
    if (const auto* s = std::get_if<JobSubmitted>(&e)) {
      queue_.push_back(s->job);
      estimate_[s->job] =
          use_declared_ ? view.job(s->job).mem_request_bytes : view.signature(s->job).mem_bytes;
    } else if (const auto* f = std::get_if<JobFailed>(&e)) {
      double instance_bytes = 0;
      if (const auto it = running_on_.find(f->job); it != running_on_.end()) {
        const auto slots = view.mig_instances(it->second.first);
        if (const auto* g = view.mig_geometry(it->second.first); g && it->second.second < slots.size())
          instance_bytes = g->profiles()[slots[it->second.second].gi.profile].memory_bytes;
        left(f->job);
      }
      if (f->requeued) {
        // Learn: more than the instance it outgrew, and at least `growth` times the old estimate.
        estimate_[f->job] = std::max(estimate_[f->job] * growth_, instance_bytes * 1.0001);
        if (early_restart_)
          queue_.push_front(f->job);
        else
          queue_.push_back(f->job);
      }
    } else if (const auto* c = std::get_if<JobCompleted>(&e)) {
      left(c->job);
    } else if (const auto* r = std::get_if<DeviceRepartitioned>(&e)) {
      if (reconfiguring_.erase(r->device) && lookup_ == Lookup::INDEX)
        if (const auto it = changed_for_.find(r->device); it != changed_for_.end())
          if (const auto jt = changes_for_job_.find(it->second); jt != changes_for_job_.end()) {
            jt->second.erase(r->device);
            if (jt->second.empty()) changes_for_job_.erase(jt);
          }
    }
  }
  taken_now_.clear();
  changed_now_.clear();
  if (lookup_ == Lookup::INDEX)
    update_index(view, events);
  else
    touched_.clear();
  std::vector<Decision> out;
  while (!queue_.empty()) {
    const JobIndex j = queue_.front();
    if (!place_head(view, j, out)) break; // the head waits (with backfill, jobs behind it may start)
    queue_.pop_front();
  }
  if (backfill_ && queue_.size() > 1) backfill(view, out);
  return out;
}

std::optional<std::pair<DeviceIndex, double>> MigManager::reservation(const ClusterView& view, JobIndex head,
                                                                      const MigGeometry& geo) const
{
  const double now = view.now();
  if (lookup_ == Lookup::SCAN) {
    std::map<DeviceIndex, double> drain; // devices with jobs: their last predicted end
    for (const auto& [job, where] : running_on_) {
      const auto e = expected_end_.find(job);
      double& t = drain.try_emplace(where.first, now).first->second;
      t = std::max(t, e != expected_end_.end() ? e->second : now);
    }
    std::optional<std::pair<DeviceIndex, double>> best;
    for (DeviceIndex d = 0; d < view.device_count(); ++d) {
      if (view.mig_geometry(d) != &geo || !view.device(d).available || !view.allows(head, d)) continue;
      const auto it = drain.find(d);
      const double t = it == drain.end() ? now : std::max(now, it->second);
      if (t < (best ? best->second : std::numeric_limits<double>::infinity())) best = std::pair{d, t};
    }
    return best;
  }
  // The lowest device drained by now (no jobs, or every predicted end past): O(classes · log D).
  const auto classes = classes_for(view, head, geo);
  std::size_t lowest = FitIndex::NONE;
  for (const auto* c : classes)
    lowest = std::min(lowest, first_available(view, c->drain, false, -now));
  if (lowest != FitIndex::NONE) return std::pair{static_cast<DeviceIndex>(lowest), now};
  // Else the first device of the head's classes by latest predicted end (then index): by_drain_ is ordered
  // so; it passes over only devices of other classes or switched-off nodes.
  for (const auto& [t, d] : by_drain_) {
    if (!(t < std::numeric_limits<double>::infinity())) break; // never ends: no reservation
    const int cls = masks_[d].cls;
    if (cls < 0 || !view.device(d).available) continue;
    const MigClass* c = &classes_[static_cast<std::size_t>(cls)];
    if (std::find(classes.begin(), classes.end(), c) != classes.end()) return std::pair{d, t};
  }
  return std::nullopt;
}

void MigManager::backfill(const ClusterView& view, std::vector<Decision>& out)
{
  const JobIndex head = queue_.front();
  const double now = view.now();
  // The head's reservation (none while a reconfiguration for it is under way: it is tried first when done).
  bool head_has_change = false;
  if (lookup_ == Lookup::SCAN) {
    for (const DeviceIndex d : reconfiguring_)
      if (const auto it = changed_for_.find(d); it != changed_for_.end() && it->second == head)
        head_has_change = true;
  } else {
    head_has_change = changes_for_job_.count(head) > 0;
  }
  const MigGeometry* geo = head_has_change ? nullptr : job_geometry(view, head);
  std::optional<DeviceIndex> reserved;
  double shadow = std::numeric_limits<double>::infinity();
  if (geo)
    if (const auto r = reservation(view, head, *geo)) {
      reserved = r->first;
      shadow = r->second;
    }
  for (auto it = std::next(queue_.begin()); it != queue_.end();) {
    const JobIndex j = *it;
    excluded_ = reserved;
    if (reserved && view.allows(j, *reserved)) {
      // It may use the reserved device if it ends there before the head could start (after one
      // reconfiguration, on the instance it would get).
      if (const auto p = profile_for(*geo, estimate_[j])) {
        const std::size_t profile = reconfigure_ ? size_for(view, j, *reserved, *geo, *p) : *p;
        const double end =
            now + geo->reconfiguration_latency_s() +
            view.estimate(j) * view.mig_slowdown_alone(j, *reserved, profile) / view.device(*reserved).speed;
        if (end <= shadow) excluded_.reset();
      }
    }
    const bool done = place_head(view, j, out);
    excluded_.reset();
    if (done)
      it = queue_.erase(it);
    else
      ++it;
  }
}

} // namespace colocsim
