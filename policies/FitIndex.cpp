#include "policies/FitIndex.hpp"

#include <algorithm>

namespace colocsim {

FitIndex::FitIndex(std::size_t size) : size_(size)
{
  while (leaves_ < size_)
    leaves_ *= 2;
  tree_.assign(2 * leaves_, UNAVAILABLE);
}

void FitIndex::set(std::size_t i, double value)
{
  std::size_t n = leaves_ + i;
  tree_[n] = value;
  for (n /= 2; n >= 1; n /= 2)
    tree_[n] = std::max(tree_[2 * n], tree_[2 * n + 1]);
}

std::size_t FitIndex::find_first(double threshold, std::size_t from) const
{
  if (from >= size_ || tree_[1] < threshold) return NONE;
  return find_in(1, 0, leaves_, threshold, from);
}

std::size_t FitIndex::find_in(std::size_t node, std::size_t node_lo, std::size_t node_hi, double threshold,
                              std::size_t from) const
{
  if (node_hi <= from || tree_[node] < threshold) return NONE;
  if (node >= leaves_) return node - leaves_;
  const std::size_t mid = (node_lo + node_hi) / 2;
  if (auto r = find_in(2 * node, node_lo, mid, threshold, from); r != NONE) return r;
  return find_in(2 * node + 1, mid, node_hi, threshold, from);
}

} // namespace colocsim
