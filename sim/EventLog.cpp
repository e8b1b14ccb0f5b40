#include "sim/EventLog.hpp"

#include "base/Errors.hpp"
#include "sim/Outputs.hpp"

#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

namespace colocsim {

namespace {

/// Starts a line: {"t":T,"kind":"K"
void begin(std::string& line, double t, std::string_view kind)
{
  line.clear();
  line += "{\"t\":";
  line += json_number(t);
  line += ",\"kind\":";
  append_json_string(line, kind);
}

void field(std::string& line, std::string_view key)
{
  line += ',';
  append_json_string(line, key);
  line += ':';
}

void text(std::string& line, std::string_view key, std::string_view value)
{
  field(line, key);
  append_json_string(line, value);
}

void number(std::string& line, std::string_view key, double value)
{
  field(line, key);
  line += json_number(value);
}

void count(std::string& line, std::string_view key, std::uint64_t value)
{
  field(line, key);
  line += std::to_string(value);
}

void boolean(std::string& line, std::string_view key, bool value)
{
  field(line, key);
  line += value ? "true" : "false";
}

template <class T> void list(std::string& line, std::string_view key, const std::vector<T>& values)
{
  field(line, key);
  line += '[';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) line += ',';
    line += std::to_string(values[i]);
  }
  line += ']';
}

void job(std::string& line, const ClusterView& view, JobIndex j)
{
  text(line, "job", view.job(j).id);
}

/// A MIG instance as nvidia-smi names its profile, at its start slice ("3g.20gb@4"); its index if the
/// device has no MIG geometry (not in mig mode).
std::string instance_text(const ClusterView& view, DeviceIndex d, std::size_t gi)
{
  const auto* geo = view.mig_geometry(d);
  const auto slots = view.mig_instances(d);
  if (!geo || gi >= slots.size()) return std::to_string(gi);
  return geo->describe(slots[gi].gi);
}

} // namespace

EventLog::EventLog(std::ostream& out, std::string name, std::string policy)
    : out_(out), name_(std::move(name)), policy_(std::move(policy))
{
}

void EventLog::write(std::string& line)
{
  line += "}\n";
  out_ << line;
  check_written(out_, name_);
}

void EventLog::on_events(const ClusterView& view, std::span<const Event> events, std::uint32_t waiting,
                         std::uint32_t running)
{
  const double t = view.now();
  last_t_ = t;
  rejecting_ = nullptr;
  auto& line = line_;
  for (const auto& e : events) {
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, JobSubmitted>) {
            begin(line, t, "submit");
            job(line, view, x.job);
            const auto& jb = view.job(x.job);
            count(line, "requests", static_cast<std::uint64_t>(jb.devices));
            text(line, "profile", jb.profile);
            join(x.job);
          } else if constexpr (std::is_same_v<T, JobCompleted>) {
            begin(line, t, "complete");
            job(line, view, x.job);
            list(line, "devices", x.devices);
          } else if constexpr (std::is_same_v<T, JobFailed>) {
            begin(line, t, "fail");
            job(line, view, x.job);
            list(line, "devices", x.devices);
            boolean(line, "requeued", x.requeued);
            text(line, "reason", x.reason);
            if (x.requeued) join(x.job);
          } else if constexpr (std::is_same_v<T, Wakeup>) {
            begin(line, t, "wakeup");
          } else if constexpr (std::is_same_v<T, DeviceRepartitioned>) {
            begin(line, t, "device_ready");
            list(line, "devices", std::vector<DeviceIndex>{x.device});
            text(line, "mode", to_string(x.mode));
          } else {
            static_assert(std::is_same_v<T, NodePowered>);
            begin(line, t, x.on ? "node_on" : "node_off");
            count(line, "node", x.node);
          }
        },
        e);
    write(line);
  }
  begin(line, t, "decide");
  text(line, "policy", policy_);
  count(line, "events", events.size());
  count(line, "waiting", waiting);
  count(line, "running", running);
  write(line);
}

void EventLog::on_decision(const ClusterView& view, const Decision& decision, std::uint32_t waiting)
{
  const double t = view.now();
  last_t_ = t;
  rejecting_ = nullptr;
  auto& line = line_;
  try {
    log_decision(view, decision, waiting, t);
  } catch (const std::out_of_range&) {
    // A job or device that does not exist: the engine refuses the decision next (DecisionError).
    begin(line, t, "invalid");
    text(line, "decision", describe(decision));
  }
  write(line);
}

void EventLog::log_decision(const ClusterView& view, const Decision& decision, std::uint32_t waiting,
                            double t)
{
  auto& line = line_;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Place>) {
          begin(line, t, "place");
          job(line, view, x.job);
          list(line, "devices", x.devices);
          if (!x.instances.empty()) {
            field(line, "instances");
            line += '[';
            for (std::size_t i = 0; i < x.instances.size(); ++i) {
              if (i) line += ',';
              append_json_string(line, i < x.devices.size()
                                           ? instance_text(view, x.devices[i], x.instances[i])
                                           : std::to_string(x.instances[i]));
            }
            line += ']';
          }
          if (x.thread_share != 1.0) number(line, "thread_share", x.thread_share);
          count(line, "waiting", waiting);
          count(line, "overtakes", waiting_before(x.job));
          leave(x.job);
        } else if constexpr (std::is_same_v<T, Reject>) {
          begin(line, t, "reject");
          job(line, view, x.job);
          count(line, "waiting", waiting);
          text(line, "reason", x.reason);
          rejecting_ = &view.job(x.job);
          leave(x.job);
        } else if constexpr (std::is_same_v<T, WakeAt>) {
          begin(line, t, "wake_at");
          number(line, "at", x.at_s);
        } else if constexpr (std::is_same_v<T, SetFrequency>) {
          begin(line, t, "set_frequency");
          list(line, "devices", std::vector<DeviceIndex>{x.device});
          number(line, "freq_hz", x.freq_hz);
        } else if constexpr (std::is_same_v<T, Repartition>) {
          begin(line, t, "repartition");
          list(line, "devices", std::vector<DeviceIndex>{x.device});
          text(line, "mode", to_string(x.mode));
        } else if constexpr (std::is_same_v<T, SetNodePower>) {
          begin(line, t, x.on ? "power_on" : "power_off");
          count(line, "node", x.node);
        } else {
          static_assert(std::is_same_v<T, ReconfigureMig>);
          begin(line, t, "reconfigure_mig");
          list(line, "devices", std::vector<DeviceIndex>{x.device});
          field(line, "destroy");
          line += '[';
          for (std::size_t i = 0; i < x.change.destroy.size(); ++i) {
            if (i) line += ',';
            append_json_string(line, instance_text(view, x.device, x.change.destroy[i]));
          }
          line += "]";
          field(line, "create");
          line += '[';
          const auto* geo = view.mig_geometry(x.device);
          for (std::size_t i = 0; i < x.change.create.size(); ++i) {
            if (i) line += ',';
            append_json_string(line, geo ? geo->describe(x.change.create[i])
                                         : std::to_string(x.change.create[i].profile));
          }
          line += "]";
        }
      },
      decision);
}

void EventLog::on_job_end(const ClusterView& view, const JobRecord& r)
{
  // Completions and failures reach the policy as events (logged with its call); a rejection it decided
  // follows its "reject" line. The others end without either: logged here, when the engine ends them.
  switch (r.status) {
  case JobStatus::COMPLETED:
  case JobStatus::FAILED:
  case JobStatus::KILLED:
    return;
  case JobStatus::REJECTED:
    if (r.job == rejecting_) return;
    break;
  default:
    break;
  }
  const double t = view.now();
  last_t_ = t;
  auto& line = line_;
  begin(line, t, "end");
  text(line, "job", r.job->id);
  text(line, "status", to_string(r.status));
  text(line, "reason", r.reason);
  write(line);
}

void EventLog::error(const std::string& message)
{
  auto& line = line_;
  begin(line, last_t_, "error");
  text(line, "message", message);
  write(line);
}

void EventLog::flush()
{
  errno = 0;
  out_.flush();
  check_written(out_, name_);
}

void EventLog::add(std::size_t pos, int delta)
{
  for (; pos < tree_.size(); pos += pos & (~pos + 1))
    tree_[pos] += delta;
}

void EventLog::join(JobIndex j)
{
  leave(j);                                   // never twice in the queue
  const std::size_t n = in_queue_.size() + 1; // join numbers start at 1
  in_queue_.push_back(1);
  if (n >= tree_.size()) {
    // Grow the tree to twice the size and rebuild it from the flags (O(n), amortised O(1) per join).
    tree_.assign(std::max<std::size_t>(64, 2 * tree_.size()), 0);
    for (std::size_t i = 1; i < tree_.size(); ++i) {
      if (i <= in_queue_.size()) tree_[i] += in_queue_[i - 1];
      const std::size_t parent = i + (i & (~i + 1));
      if (parent < tree_.size()) tree_[parent] += tree_[i];
    }
  } else {
    add(n, 1);
  }
  joined_[j] = n;
}

void EventLog::leave(JobIndex j)
{
  const auto it = joined_.find(j);
  if (it == joined_.end()) return;
  in_queue_[it->second - 1] = 0;
  add(it->second, -1);
  joined_.erase(it);
}

std::uint64_t EventLog::waiting_before(JobIndex j) const
{
  const auto it = joined_.find(j);
  if (it == joined_.end()) return 0;
  std::int64_t sum = 0;
  for (std::size_t pos = it->second - 1; pos > 0; pos -= pos & (~pos + 1))
    sum += tree_[pos];
  return static_cast<std::uint64_t>(sum);
}

EventLogFile::EventLogFile(const std::filesystem::path& file, bool force) : target_(file)
{
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(target_, ec);
  if (fs::exists(status)) {
    if (fs::is_directory(status))
      throw InputError(SourceLocation{target_.string()}, "--log-events",
                       "is a directory; the event log is a file (e.g. " +
                           (target_ / "events.jsonl").string() + ")");
    if (!fs::is_regular_file(status)) { // a device or a pipe: written as it is
      errno = 0;
      out_ = std::make_unique<std::ofstream>(target_);
      if (!*out_)
        throw OutputError("cannot open " + target_.string() + " for writing: " +
                          (errno != 0 ? std::generic_category().message(errno) : std::string("open failed")));
      return;
    }
    if (!force)
      throw InputError(SourceLocation{target_.string()}, "--log-events",
                       "already exists; pass --force to overwrite it or name another file");
  }
  // A link to a regular file: the file is replaced, never the link (as an editor saves through a link).
  fs::path abs = fs::absolute(target_, ec).lexically_normal();
  if (fs::is_symlink(fs::symlink_status(target_, ec)) && fs::exists(status)) abs = fs::canonical(target_, ec);
  place_ = abs;
  fs::create_directories(abs.parent_path(), ec);
  if (ec)
    throw InputError(SourceLocation{target_.string()}, "--log-events",
                     "cannot create the directory " + abs.parent_path().string() + ": " + ec.message());
  std::string name = ".";
  name += abs.filename().string();
  name += ".partial-";
  name += std::to_string(::getpid());
  staging_ = abs.parent_path() / name;
  errno = 0;
  out_ = std::make_unique<std::ofstream>(staging_);
  if (!*out_)
    throw OutputError("cannot open " + staging_.string() + " for writing: " +
                      (errno != 0 ? std::generic_category().message(errno) : std::string("open failed")));
}

EventLogFile::~EventLogFile()
{
  if (committed_ || staging_.empty()) return;
  out_.reset();
  std::error_code ec;
  std::filesystem::remove(staging_, ec);
}

void EventLogFile::close()
{
  if (closed_) return;
  errno = 0; // errors name the file asked for, not the staging file
  out_->flush();
  check_written(*out_, target_);
  out_->close();
  check_written(*out_, target_);
  closed_ = true;
}

void EventLogFile::commit()
{
  close();
  committed_ = true;
  if (staging_.empty()) return;
  std::error_code ec;
  std::filesystem::rename(staging_, place_, ec);
  if (ec) {
    committed_ = false;
    throw OutputError("cannot move " + staging_.string() + " to " + target_.string() + ": " + ec.message());
  }
}

} // namespace colocsim
