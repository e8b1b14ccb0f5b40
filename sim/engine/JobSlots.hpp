#pragma once
// The engine's per-job state, kept only while something can still read it (docs/architecture.md, The
// engine's components): a job's state is added when it is read and freed once it has ended and the policy
// call that reported its end has returned, so the engine's memory follows the jobs alive (waiting, blocked,
// running, or ended in the current policy call), not the jobs read. Job indices count the jobs read and are
// never reused: a policy's map keyed by JobIndex never mixes two jobs, and asking for a freed job's state is
// a std::logic_error that names it, never another job's data.
#include "policies/Policy.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace colocsim {

template <class State> class JobSlots {
public:
  /// A new job, of index the number of jobs added before it; its state is default-constructed. References
  /// to the states stay valid until their own job is freed.
  std::pair<JobIndex, State&> add()
  {
    if (next_ == std::numeric_limits<JobIndex>::max())
      throw std::length_error("more than " + std::to_string(next_) + " jobs: JobIndex is 32-bit");
    const JobIndex j = next_++;
    std::unique_ptr<State> block;
    if (!POOLED || spare_.empty()) {
      block = std::make_unique<State>();
    } else { // a freed job's block, its state destroyed at release(): one allocation less per job
      block.reset(::new (spare_.pop()) State());
    }
    auto& state = *slots_.emplace_back(std::move(block));
    ++live_;
    peak_ = std::max(peak_, live_);
    return {j, state};
  }
  State& operator[](JobIndex j)
  {
    State* s = find(j);
    if (!s) missing(j);
    return *s;
  }
  const State& operator[](JobIndex j) const
  {
    const State* s = find(j);
    if (!s) missing(j);
    return *s;
  }
  /// Job j's state if it is still kept, else null (never read, or freed).
  const State* find(JobIndex j) const { return j >= base_ && j < next_ ? slots_[j - base_].get() : nullptr; }
  State* find(JobIndex j) { return j >= base_ && j < next_ ? slots_[j - base_].get() : nullptr; }
  /// Job j's state is freed: nothing reads it any more.
  void release(JobIndex j)
  {
    if (j < base_ || j >= next_ || !slots_[j - base_]) return;
    if constexpr (POOLED) {
      State* state = slots_[j - base_].release();
      state->~State();
      spare_.push(state);
    } else {
      slots_[j - base_].reset();
    }
    --live_;
    while (!slots_.empty() && !slots_.front()) { // the window starts at the oldest job kept
      slots_.pop_front();
      ++base_;
    }
  }
  /// Jobs added so far (the next job's index).
  std::size_t size() const { return next_; }
  /// States kept now, and the most kept at once since the start.
  std::size_t live() const { return live_; }
  std::size_t peak() const { return peak_; }
  /// The indices of the states kept, in increasing order.
  std::vector<JobIndex> live_indices() const
  {
    std::vector<JobIndex> out;
    out.reserve(live_);
    for (std::size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i]) out.push_back(base_ + static_cast<JobIndex>(i));
    return out;
  }

private:
  [[noreturn]] void missing(JobIndex j) const
  {
    if (j >= next_)
      throw std::out_of_range("job " + std::to_string(j) + " does not exist (" + std::to_string(next_) +
                              " jobs read so far)");
    throw std::logic_error("job " + std::to_string(j) +
                           " has ended and its state was freed after the policy call that reported its end: "
                           "a policy may read a job only until then");
  }

  /// Jobs base_ .. next_ - 1, null where freed: a window from the oldest job kept (8 bytes a slot, so a job
  /// that waits for ever keeps 8 bytes per later job, not their states).
  std::deque<std::unique_ptr<State>> slots_;
  /// A block can hold the spare list's link (the engine's states can; a JobSlots<int> in a test keeps no
  /// spares).
  static constexpr bool POOLED = sizeof(State) >= sizeof(void*) && alignof(State) >= alignof(void*);
  /// Blocks of freed states (destroyed, not deallocated), reused by add(): never more than the most states
  /// kept at once, so they add nothing to the peak. A list threaded through the blocks themselves (each
  /// holds the next one's address), so that keeping them costs no memory of its own.
  class SpareBlocks {
  public:
    SpareBlocks() = default;
    SpareBlocks(const SpareBlocks&) = delete;
    SpareBlocks& operator=(const SpareBlocks&) = delete;
    ~SpareBlocks()
    {
      while (!empty())
        ::operator delete(pop()); // the block of a `new State` (unsized: clang's default)
    }
    bool empty() const { return head_ == nullptr; }
    void push(void* block)
    {
      ::new (block) Link{head_};
      head_ = static_cast<Link*>(block);
    }
    void* pop()
    {
      Link* block = head_;
      head_ = block->next;
      block->~Link();
      return block;
    }

  private:
    struct Link {
      Link* next;
    };
    Link* head_ = nullptr;
  };
  SpareBlocks spare_;
  JobIndex base_ = 0, next_ = 0;
  std::size_t live_ = 0, peak_ = 0;
};

} // namespace colocsim
