#pragma once
// A bounded buffer that restores submit order for traces whose rows are only roughly sorted (ALCF Theta
// SWF, the re-sampled Alibaba openb variants, Batsim workloads, PAI tables). Readers push rows until the
// window is full, then hand out the earliest; memory is O(window) whatever the trace length. A row that is
// older than a job already handed out (out of order by more than the window) is an error naming its line.
#include "models/Job.hpp"

#include <cstddef>
#include <cstdint>
#include <queue>
#include <string>
#include <vector>

namespace colocsim {

class ReorderWindow {
public:
  /// Rows held at most (>= 1). `field`: the trace's name for the submit time (for messages); `fix`: how
  /// to sort the file, e.g. "sort -n -k2".
  ReorderWindow(std::size_t capacity, std::string field, std::string fix);

  bool full() const { return heap_.size() >= capacity_; }
  bool empty() const { return heap_.empty(); }
  std::size_t capacity() const { return capacity_; }
  /// Adds a row; counts it as reordered if it is earlier than a row pushed before it.
  void push(Job job);
  /// Removes and returns the earliest job (ties in push order). Throws InputError at the job's origin if
  /// it is earlier than a job already popped.
  Job pop();
  /// Rows that came earlier than a row above them in the file.
  std::size_t reordered() const { return reordered_; }

private:
  /// Heap entries are small keys; the jobs stay in slots_ and are moved only in and out (cheap sifts).
  struct Key {
    double submit_s;
    std::uint64_t
        seq; ///< push order: ties keep the file's order (a JSON file may hold every job on one line)
    std::size_t slot;
  };
  struct Later {
    bool operator()(const Key& a, const Key& b) const
    {
      return a.submit_s != b.submit_s ? a.submit_s > b.submit_s : a.seq > b.seq;
    }
  };
  std::size_t capacity_;
  std::string field_, fix_;
  std::priority_queue<Key, std::vector<Key>, Later> heap_;
  std::vector<Job> slots_;
  std::vector<std::size_t> free_;
  std::uint64_t pushed_ = 0;
  double max_pushed_ = -1e300;
  double last_popped_ = -1e300;
  std::size_t reordered_ = 0;
};

/// Default window of the readers that reorder: 16,384 rows (covers every openb pod list entirely and the
/// Theta 2023 inversions).
inline constexpr std::size_t DEFAULT_REORDER_WINDOW = 16384;

} // namespace colocsim
