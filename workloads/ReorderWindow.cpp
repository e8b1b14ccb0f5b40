#include "workloads/ReorderWindow.hpp"

#include <sstream>

namespace colocsim {

namespace {
std::string seconds(double v)
{
  std::ostringstream os;
  os.precision(15);
  os << v;
  return os.str();
}
} // namespace

ReorderWindow::ReorderWindow(std::size_t capacity, std::string field, std::string fix)
    : capacity_(capacity < 1 ? 1 : capacity), field_(std::move(field)), fix_(std::move(fix))
{
}

void ReorderWindow::push(Job job)
{
  if (job.submit_s < max_pushed_)
    ++reordered_;
  else
    max_pushed_ = job.submit_s;
  std::size_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
    slots_[slot] = std::move(job);
  } else {
    slot = slots_.size();
    slots_.push_back(std::move(job));
  }
  heap_.push(Key{slots_[slot].submit_s, pushed_++, slot});
}

Job ReorderWindow::pop()
{
  const std::size_t slot = heap_.top().slot;
  heap_.pop();
  Job job = std::move(slots_[slot]);
  free_.push_back(slot);
  if (job.submit_s < last_popped_)
    throw InputError(job.origin, field_,
                     "submit time " + seconds(job.submit_s) + " is earlier than a job already replayed (" +
                         seconds(last_popped_) + ") and beyond the reorder window of " +
                         std::to_string(capacity_) + " rows; " + fix_);
  last_popped_ = job.submit_s;
  return job;
}

} // namespace colocsim
