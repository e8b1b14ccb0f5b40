#pragma once
// The event log (`colocsim run|replay --log-events FILE`; docs/formats/outputs.md, Event log): one JSON
// object per line for every event the engine hands the policy, every policy call and every decision, and
// every job that ends without an event (rejected on submission, cancelled, never started), in the order
// the engine processes them. For following and diffing what a policy did; it changes no other output.
#include "sim/Engine.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

namespace colocsim {

/// Writes the event log to a stream (RunSetup::trace). Every line is checked: a failed write throws
/// OutputError naming the file and the OS error at once.
class EventLog final : public RunTrace {
public:
  /// `name` names the stream in errors; `policy` is the run's policy (its name and parameters).
  EventLog(std::ostream& out, std::string name, std::string policy);
  void on_events(const ClusterView& view, std::span<const Event> events, std::uint32_t waiting,
                 std::uint32_t running) override;
  void on_decision(const ClusterView& view, const Decision& decision, std::uint32_t waiting) override;
  void on_job_end(const ClusterView& view, const JobRecord& record) override;
  /// A last line {"t", "kind": "error", "message"} for a run that failed (t: the last time logged).
  void error(const std::string& message);
  /// Flushes; OutputError if a write failed.
  void flush();

private:
  void write(std::string& line);
  void log_decision(const ClusterView& view, const Decision& decision, std::uint32_t waiting, double t);
  // The waiting jobs in the order they joined the queue (submitted, or requeued after a failure), for
  // `overtakes`: a Fenwick tree over join numbers, O(log n) per change and per count.
  void join(JobIndex j);
  void leave(JobIndex j);
  std::uint64_t waiting_before(JobIndex j) const;
  void add(std::size_t pos, int delta);

  std::ostream& out_;
  std::string name_, policy_;
  std::string line_; ///< reused
  double last_t_ = 0;
  const Job* rejecting_ = nullptr; ///< the job of the Reject decision being applied (its end is not logged)
  std::unordered_map<JobIndex, std::size_t> joined_; ///< waiting job → its join number
  std::vector<int> tree_;                            ///< Fenwick tree over join numbers (1-based)
  std::vector<std::uint8_t> in_queue_;               ///< by join number
};

/// Where the event log goes. A regular file is written next to its target (".NAME.partial-PID") and moved
/// into place by commit(), so it appears only complete; one that exists already is an InputError unless
/// `force` (as for the output directory). Anything else that exists (/dev/null, /dev/full, a pipe) is
/// written directly. The destructor removes an uncommitted staging file.
class EventLogFile {
public:
  EventLogFile(const std::filesystem::path& file, bool force);
  ~EventLogFile();
  EventLogFile(const EventLogFile&) = delete;
  EventLogFile& operator=(const EventLogFile&) = delete;
  std::ostream& stream() { return *out_; }
  const std::filesystem::path& path() const { return target_; }
  /// Flushes and closes the stream: OutputError naming the file if anything failed.
  void close();
  /// close(), then moves the file into place.
  void commit();

private:
  std::filesystem::path target_, staging_;
  std::filesystem::path place_; ///< where the staged file goes: target_, or the regular file it links to
  std::unique_ptr<std::ofstream> out_;
  bool closed_ = false, committed_ = false;
};

} // namespace colocsim
