#pragma once
// Segment tree over devices answering "the lowest-index device at or after `from` whose free capacity is
// at least x" in O(log D), so first-fit style policies stay O(log D) per decision at Aurora scale
// (127,488 tiles) instead of scanning every device.
#include <cstddef>
#include <limits>
#include <vector>

namespace colocsim {

class FitIndex {
public:
  static constexpr std::size_t NONE = std::numeric_limits<std::size_t>::max();
  static constexpr double UNAVAILABLE = -std::numeric_limits<double>::infinity();

  explicit FitIndex(std::size_t size = 0);
  std::size_t size() const { return size_; }
  /// Sets the capacity of slot i (UNAVAILABLE: never matches).
  void set(std::size_t i, double value);
  double get(std::size_t i) const { return tree_[leaves_ + i]; }
  /// Lowest i >= from with value(i) >= threshold, or NONE: O(log D), O(1) when i = from.
  std::size_t find_first(double threshold, std::size_t from = 0) const;

private:
  std::size_t size_ = 0;
  std::size_t leaves_ = 1;
  std::vector<double> tree_;
};

} // namespace colocsim
