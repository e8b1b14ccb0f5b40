#include "policies/GangPlacement.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace colocsim {

void NodeShape::init(const ClusterView& view)
{
  const auto n = view.device_count();
  node_.resize(n);
  std::uint32_t nodes = 0;
  std::vector<char> left; // per node: 1 once a device of another node followed one of it
  for (DeviceIndex d = 0; d < n; ++d) {
    const DeviceView v = view.device(d);
    node_[d] = v.node;
    nodes = std::max(nodes, v.node + 1);
    if (left.size() <= v.node) left.resize(v.node + 1, 0);
    if (left[v.node]) contiguous_ = false;
    if (d > 0 && node_[d - 1] != v.node) left[node_[d - 1]] = 1;
    if (v.type >= type_nodes_.size()) {
      type_nodes_.resize(v.type + 1);
      type_device_.resize(v.type + 1, d);
    }
    if (type_nodes_[v.type].empty()) type_device_[v.type] = d;
    type_nodes_[v.type].resize(std::max<std::size_t>(type_nodes_[v.type].size(), v.node + 1), 0);
    ++type_nodes_[v.type][v.node];
  }
  for (auto& t : type_nodes_)
    t.resize(nodes, 0);
}

std::string NodeShape::accepted_types(const ClusterView& view, JobIndex j) const
{
  std::string accepted(type_nodes_.size(), '0');
  for (std::size_t t = 0; t < type_nodes_.size(); ++t)
    if (!type_nodes_[t].empty() &&
        std::any_of(type_nodes_[t].begin(), type_nodes_[t].end(), [](std::uint32_t c) { return c > 0; }))
      accepted[t] = view.allows(j, type_device_[t]) ? '1' : '0';
  return accepted;
}

std::vector<std::size_t> NodeShape::node_sizes(const std::string& accepted) const
{
  std::vector<std::size_t> sizes(type_nodes_.empty() ? 0 : type_nodes_[0].size(), 0);
  for (std::size_t t = 0; t < type_nodes_.size(); ++t)
    if (accepted[t] == '1')
      for (std::size_t n = 0; n < sizes.size(); ++n)
        sizes[n] += type_nodes_[t][n];
  return sizes;
}

std::size_t NodeShape::largest_node(const ClusterView& view, JobIndex j) const
{
  std::string accepted = accepted_types(view, j);
  if (const auto it = largest_node_.find(accepted); it != largest_node_.end()) return it->second;
  std::vector<std::size_t> sizes = node_sizes(accepted);
  const std::size_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  largest_node_.emplace(std::move(accepted), largest);
  return largest;
}

GangPicker NodeShape::picker(const ClusterView& view, JobIndex j, GangRule rule, std::size_t need,
                             bool in_device_order) const
{
  const std::size_t min = need > 1 ? min_nodes(view, j, need) : 1;
  GangPicker gang(rule, need, min);
  if (rule == GangRule::PACK && min > 1 && in_device_order && contiguous_)
    gang.nodes_in_order(largest_node(view, j));
  return gang;
}

std::size_t NodeShape::min_nodes(const ClusterView& view, JobIndex j, std::size_t need) const
{
  const std::string accepted = accepted_types(view, j);
  const auto key = std::make_pair(accepted, need);
  if (const auto it = min_nodes_.find(key); it != min_nodes_.end()) return it->second;
  std::vector<std::size_t> sizes = node_sizes(accepted);
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  std::size_t nodes = 0, have = 0;
  while (nodes < sizes.size() && have < need)
    have += sizes[nodes++];
  // A job larger than the devices it accepts is refused by the queue before any rule applies.
  const std::size_t result = std::max<std::size_t>(nodes, 1);
  min_nodes_.emplace(key, result);
  return result;
}

GangPicker::GangPicker(GangRule rule, std::size_t need, std::size_t min_nodes)
    : rule_(need <= 1 || (rule == GangRule::PACK && min_nodes >= need) ? GangRule::ANY : rule), need_(need),
      min_nodes_(std::max<std::size_t>(min_nodes, 1))
{
  // One device: every rule takes the first offered (ANY keeps no per-node counts). A pack job that needs as
  // many nodes as devices (nodes of one device it accepts) can only take one device per node: any order
  // does, with no scan of every device.
}

void GangPicker::nodes_in_order(std::size_t largest_node)
{
  // Only a pack job larger than a node scans past its first nodes; one that fits in a node already stops.
  if (rule_ == GangRule::PACK && min_nodes_ > 1 && largest_node > 0 && need_ > largest_node)
    largest_ = largest_node;
}

void GangPicker::close_node(std::size_t count)
{
  open_ = false;
  if (count == largest_)
    ++full_passed_;
  else if (count == need_ % largest_)
    rest_passed_ = true;
}

bool GangPicker::offer(DeviceIndex d, std::uint32_t node)
{
  if (need_ == 1) { // every rule takes the first offered; kept inline (no allocation per placement)
    single_ = d;
    return has_single_ = true;
  }
  offered_.emplace_back(d, node);
  if (rule_ == GangRule::ANY) return offered_.size() >= need_;
  auto& c = count_[node];
  if (c++ == 0) nodes_.push_back(node);
  switch (rule_) {
  case GangRule::ANY:
    return offered_.size() >= need_;
  case GangRule::SPREAD:
    return nodes_.size() >= need_;
  case GangRule::PACK:
    if (min_nodes_ == 1 && c == need_) {
      complete_ = true;
      complete_node_ = node;
      return true;
    }
    if (largest_ > 0) {
      // take() takes whole nodes, the fullest first and the earliest offered among equals, while what is
      // left is more than any node can have (a later node can at best tie, and loses the tie); then the
      // earliest of the nodes with the fewest devices that hold the rest, which no later node beats once one
      // holds exactly the rest. So the nodes passed decide once need_ / largest_ of them had largest_
      // devices and, if need_ % largest_ is not 0, one had exactly that many.
      if (c == 1) {
        if (open_) close_node(count_.at(open_node_));
        open_ = true;
        open_node_ = node;
      } else if (!open_ || node != open_node_) {
        throw std::logic_error("GangPicker: device " + std::to_string(d) + " of node " +
                               std::to_string(node) +
                               " offered after another node's (nodes_in_order promised each node's devices "
                               "one after another)");
      }
      if (c > largest_)
        throw std::logic_error("GangPicker: node " + std::to_string(node) + " offered more devices than " +
                               std::to_string(largest_) + " (nodes_in_order's largest node)");
      if (c == largest_) close_node(c);
      return full_passed_ >= need_ / largest_ && (need_ % largest_ == 0 || rest_passed_);
    }
    return false;
  }
  return false;
}

std::vector<DeviceIndex> GangPicker::take() const
{
  std::vector<DeviceIndex> devices;
  if (need_ == 1) {
    if (has_single_) devices.push_back(single_);
    return devices;
  }
  if (offered_.size() < need_) return devices;
  if (rule_ == GangRule::ANY) {
    for (std::size_t i = 0; i < need_; ++i)
      devices.push_back(offered_[i].first);
    return devices;
  }
  // How many devices to take from each node; then they are taken in the order offered.
  std::unordered_map<std::uint32_t, std::size_t> quota;
  if (rule_ == GangRule::SPREAD) {
    // Round robin over the nodes in the order of their first offer: one device each per round.
    std::size_t left = need_;
    for (std::size_t round = 1; left > 0; ++round)
      for (auto n = nodes_.begin(); n != nodes_.end() && left > 0; ++n)
        if (count_.at(*n) >= round) {
          ++quota[*n];
          --left;
        }
  } else if (min_nodes_ == 1) {
    if (!complete_) return devices; // no node has need_ devices: it waits rather than span two
    quota[complete_node_] = need_;
  } else {
    // Larger than any node: whole nodes first (the fullest, earliest offered on ties), and once what is
    // left fits in one node, the node with the fewest devices that holds it, keeping larger holes whole.
    std::vector<std::uint32_t> order = nodes_; // stable: earlier offered first among equals
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return count_.at(a) > count_.at(b); });
    std::size_t left = need_, used = 0;
    std::vector<char> taken(order.size(), 0);
    while (left > 0) {
      std::size_t pick = order.size();
      for (std::size_t i = 0; i < order.size(); ++i) // the smallest node that holds what is left
        if (!taken[i] && count_.at(order[i]) >= left &&
            (pick == order.size() || count_.at(order[i]) < count_.at(order[pick])))
          pick = i;
      if (pick == order.size()) // none holds it: the fullest node not taken
        pick = static_cast<std::size_t>(std::find(taken.begin(), taken.end(), 0) - taken.begin());
      taken[pick] = 1;
      const std::size_t n = std::min(left, count_.at(order[pick]));
      quota[order[pick]] = n;
      left -= n;
      ++used;
    }
    if (used > min_nodes_) return devices; // more nodes than the platform needs for it: it waits
  }
  for (const auto& [d, node] : offered_) {
    auto q = quota.find(node);
    if (q == quota.end() || q->second == 0) continue;
    --q->second;
    devices.push_back(d);
  }
  return devices;
}

void NodeTally::add(std::uint32_t node, std::size_t devices)
{
  auto& c = count_[node];
  if (c > 0) counts_.erase(counts_.find(c));
  c += devices;
  if (c > 0) counts_.insert(c);
  total_ += devices;
}

void NodeTally::set(std::uint32_t node, std::size_t devices)
{
  auto& c = count_[node];
  if (c > 0) counts_.erase(counts_.find(c));
  total_ = total_ - c + devices;
  c = devices;
  if (c > 0) counts_.insert(c);
}

bool NodeTally::fits(GangRule rule, std::size_t need, std::size_t min_nodes) const
{
  if (rule != GangRule::PACK) return total_ >= need;
  std::size_t have = 0, nodes = 0;
  for (auto it = counts_.begin(); it != counts_.end() && nodes < std::max<std::size_t>(min_nodes, 1);
       ++it, ++nodes)
    have += *it;
  return have >= need;
}

void WaitingGang::remember(JobIndex j, GangRule rule, std::size_t need, std::size_t min_nodes,
                           const std::vector<std::uint32_t>& offered)
{
  forget();
  active_ = true;
  job_ = j;
  rule_ = rule;
  need_ = need;
  min_nodes_ = min_nodes;
  for (const std::uint32_t node : offered)
    tally_.add(node);
}

void WaitingGang::forget()
{
  active_ = false;
  tally_ = NodeTally();
  for (const std::uint32_t node : touched_)
    touched_flag_[node] = 0;
  touched_.clear();
}

} // namespace colocsim
