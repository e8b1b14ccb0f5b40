#include "policies/MigManager.hpp"

#include <algorithm>
#include <limits>

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

MigManager::MigManager(const ParamSet& p)
    : growth_(p.real("growth")), early_restart_(p.flag("early_restart")),
      use_declared_(p.text("memory") == "declared"), reconfigure_(p.flag("reconfigure")),
      size_by_compute_(p.text("sizing") == "compute"), max_slowdown_(p.real("max_slowdown")),
      backfill_(p.flag("backfill"))
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
  // The devices in mig mode that accept the job, in index order, of the first such device's MIG table (a
  // platform of several MIG-capable types places a job on one type's GPUs).
  const MigGeometry* geo = nullptr;
  std::vector<DeviceIndex> migs;
  for (DeviceIndex d = 0; d < view.device_count(); ++d)
    if (const auto* g = view.mig_geometry(d);
        g && (!geo || g == geo) && view.device(d).available && view.allows(j, d)) {
      geo = g;
      migs.push_back(d);
    }
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
  // Backfill: not on the device reserved for the head, nor on one whose layout changes in this call (the
  // view does not show the change yet).
  std::erase_if(migs, [&](DeviceIndex d) { return (excluded_ && d == *excluded_) || changed_now_.count(d); });
  if (migs.empty()) return false;
  if (!reconfigure_) return place_static(view, migs, *geo, j, out);
  const std::optional<std::size_t> profile = size_for(view, j, migs.front(), *geo, *memory_profile);
  // (1) An empty, ready instance of the profile.
  for (DeviceIndex d : migs) {
    const auto slots = view.mig_instances(d);
    for (std::uint32_t i = 0; i < slots.size(); ++i)
      if (!slots[i].job && slots[i].ready && slots[i].gi.profile == *profile && !taken_now_.count({d, i})) {
        Place p{j, {d}};
        p.instances = {i};
        out.push_back(std::move(p));
        running_on_[j] = {d, i};
        taken_now_.insert({d, i});
        return true;
      }
  }
  // (2)-(4): change the layout of one device (not one already reconfiguring).
  for (DeviceIndex d : migs) {
    if (reconfiguring_.count(d)) continue;
    const auto slots = view.mig_instances(d);
    MigLayout layout;
    std::vector<bool> busy;
    for (std::uint32_t i = 0; i < slots.size(); ++i) {
      layout.push_back(slots[i].gi);
      busy.push_back(slots[i].job.has_value() || !slots[i].ready || taken_now_.count({d, i}) > 0);
    }
    std::optional<MigChange> change;
    if (geo->lowest_start(layout, *profile)) { // (2) free memory slices
      change = geo->make_room(layout, busy, *profile);
    } else { // (3) fission: the smallest empty instance larger than needed
      std::optional<std::size_t> bigger;
      for (std::size_t i = 0; i < layout.size(); ++i) {
        const auto& p = geo->profiles()[layout[i].profile];
        if (busy[i] || p.compute_slices <= geo->profiles()[*profile].compute_slices) continue;
        if (!bigger || p.compute_slices < geo->profiles()[layout[*bigger].profile].compute_slices) bigger = i;
      }
      if (bigger) change = geo->split(layout, *bigger, *profile);
      if (!change) change = geo->make_room(layout, busy, *profile); // (4) fusion
    }
    if (change && geo->check_change(layout, busy, *change).ok()) {
      out.push_back(ReconfigureMig{d, *change});
      reconfiguring_.insert(d);
      return false; // the job waits for the new instance (DeviceRepartitioned)
    }
  }
  return false;
}

bool MigManager::place_static(const ClusterView& view, const std::vector<DeviceIndex>& migs,
                              const MigGeometry& geo, JobIndex j, std::vector<Decision>& out)
{
  // The smallest (fewest compute slices, then least memory) empty, ready instance holding the estimate.
  const double need = estimate_[j];
  bool any_holds = false;
  std::optional<std::pair<DeviceIndex, std::uint32_t>> best;
  auto smaller = [&](const MigProfile& a, const MigProfile& b) {
    return a.compute_slices < b.compute_slices ||
           (a.compute_slices == b.compute_slices && a.memory_bytes < b.memory_bytes);
  };
  for (DeviceIndex d : migs) {
    const auto slots = view.mig_instances(d);
    for (std::uint32_t i = 0; i < slots.size(); ++i) {
      const auto& p = geo.profiles()[slots[i].gi.profile];
      if (p.memory_bytes < need) continue;
      any_holds = true;
      if (slots[i].job || !slots[i].ready || taken_now_.count({d, i})) continue;
      if (!best || smaller(p, geo.profiles()[view.mig_instances(best->first)[best->second].gi.profile]))
        best = std::pair{d, i};
    }
  }
  if (!any_holds) {
    if (excluded_) return false; // backfill: the reserved device may hold it
    out.push_back(Reject{j, "no instance of the static MIG layout holds its memory estimate"});
    return true;
  }
  if (!best) return false; // wait for one to empty
  Place p{j, {best->first}};
  p.instances = {best->second};
  out.push_back(std::move(p));
  running_on_[j] = *best;
  taken_now_.insert(*best);
  return true;
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
        running_on_.erase(it);
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
      running_on_.erase(c->job);
    } else if (const auto* r = std::get_if<DeviceRepartitioned>(&e)) {
      reconfiguring_.erase(r->device);
    }
  }
  std::vector<Decision> out;
  taken_now_.clear();
  changed_now_.clear();
  while (!queue_.empty()) {
    const JobIndex j = queue_.front();
    const std::size_t before = out.size();
    const bool placed = place_head(view, j, out);
    note_placed(view, j, out, before);
    if (!placed) break; // the head waits (with backfill, jobs behind it may start)
    queue_.pop_front();
  }
  if (backfill_ && queue_.size() > 1) backfill(view, out);
  return out;
}

void MigManager::note_placed(const ClusterView& view, JobIndex j, const std::vector<Decision>& out,
                             std::size_t from)
{
  for (std::size_t k = from; k < out.size(); ++k) {
    if (const auto* r = std::get_if<ReconfigureMig>(&out[k])) {
      changed_for_[r->device] = j;
      changed_now_.insert(r->device);
    }
    if (const auto* p = std::get_if<Place>(&out[k]); p && !p->devices.empty() && !p->instances.empty()) {
      const DeviceIndex d = p->devices[0];
      const auto slots = view.mig_instances(d);
      const double slowdown = view.mig_slowdown_alone(p->job, d, slots.at(p->instances[0]).gi.profile);
      expected_end_[p->job] = view.now() + view.estimate(p->job) * slowdown / view.device(d).speed;
    }
  }
}

void MigManager::backfill(const ClusterView& view, std::vector<Decision>& out)
{
  const JobIndex head = queue_.front();
  const double now = view.now();
  // The head's reservation (none while a reconfiguration for it is under way): of the mig devices that
  // accept it, the one whose jobs end first by their predicted ends (ties: the lowest index).
  std::optional<DeviceIndex> reserved;
  double shadow = std::numeric_limits<double>::infinity();
  const MigGeometry* geo = nullptr;
  bool head_has_change = false; // a reconfiguration under way for the head: it is tried first when done
  for (const DeviceIndex d : reconfiguring_)
    if (const auto it = changed_for_.find(d); it != changed_for_.end() && it->second == head)
      head_has_change = true;
  if (!head_has_change) {
    std::map<DeviceIndex, double> drain; // devices with jobs: their last predicted end
    for (const auto& [job, where] : running_on_) {
      const auto e = expected_end_.find(job);
      double& t = drain.try_emplace(where.first, now).first->second;
      t = std::max(t, e != expected_end_.end() ? e->second : now);
    }
    for (DeviceIndex d = 0; d < view.device_count(); ++d) {
      const auto* g = view.mig_geometry(d);
      if (!g || (geo && g != geo) || !view.device(d).available || !view.allows(head, d)) continue;
      geo = g;
      const auto it = drain.find(d);
      const double t = it == drain.end() ? now : std::max(now, it->second);
      if (t < shadow) {
        shadow = t;
        reserved = d;
      }
    }
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
    const std::size_t before = out.size();
    const bool done = place_head(view, j, out);
    excluded_.reset();
    note_placed(view, j, out, before);
    if (done)
      it = queue_.erase(it);
    else
      ++it;
  }
}

} // namespace colocsim
