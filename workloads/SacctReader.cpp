#include "workloads/SacctReader.hpp"

#include "base/CivilTime.hpp"
#include "base/Units.hpp"
#include "workloads/InputLimits.hpp"
#include "workloads/OwningReader.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string_view>

namespace colocsim {

namespace {

const char* const REQUIRED = "JobID, Submit, Start, End, State and AllocTRES or ReqTRES";
const char* const EXAMPLE_COMMAND =
    "sacct --parsable2 --allusers --format=JobID,Submit,Start,End,State,AllocTRES,ReqTRES,Timelimit,Elapsed,"
    "User,Partition,QOS,AllocNodes";

/// States of a job that has ended: it ran from Start to End if Start is a time.
constexpr std::array<std::string_view, 10> ENDED{"COMPLETED", "FAILED",    "TIMEOUT",   "OUT_OF_MEMORY",
                                                 "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",
                                                 "CANCELLED", "REVOKED"};
/// States of a job that has not ended (or not for good) when sacct ran.
constexpr std::array<std::string_view, 14> NOT_ENDED{
    "PENDING",      "RUNNING", "REQUEUED",  "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING",      "SUSPENDED",
    "SPECIAL_EXIT", "STOPPED", "SIGNALING", "STAGE_OUT",   "CONFIGURING",  "RESV_DEL_HOLD", "COMPLETING"};

template <std::size_t N> bool one_of(const std::array<std::string_view, N>& set, std::string_view s)
{
  return std::find(set.begin(), set.end(), s) != set.end();
}

std::string lower(std::string_view s)
{
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool all_digits(std::string_view s)
{
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Bytes of a TRES memory value: a number with an optional K, M, G, T or P suffix (powers of 1024); no
/// suffix is MiB, Slurm's unit for memory.
std::optional<double> tres_bytes(std::string_view v)
{
  if (v.empty()) return std::nullopt;
  double scale = 1024.0 * 1024.0;
  switch (std::toupper(static_cast<unsigned char>(v.back()))) {
  case 'K':
    scale = 1024.0;
    break;
  case 'M':
    scale = 1024.0 * 1024.0;
    break;
  case 'G':
    scale = 1024.0 * 1024.0 * 1024.0;
    break;
  case 'T':
    scale = 1024.0 * 1024.0 * 1024.0 * 1024.0;
    break;
  case 'P':
    scale = 1024.0 * 1024.0 * 1024.0 * 1024.0 * 1024.0;
    break;
  default:
    break;
  }
  if (!std::isdigit(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
  const auto n = parse_double(v);
  if (!n || !std::isfinite(*n) || *n < 0) return std::nullopt;
  return *n * scale;
}

/// A MIG profile `<g>g.<mem>gb` at the end of a gres type, after '_' or alone: its compute slices g, and the
/// model before it ("a100_1g.5gb" → 1, "a100"). nullopt if the type is not a MIG profile.
struct MigType {
  long long slices;
  std::string model;
};
std::optional<MigType> mig_type(const std::string& type)
{
  const auto us = type.rfind('_');
  const std::string tail = lower(us == std::string::npos ? type : type.substr(us + 1));
  const auto g = tail.find("g.");
  if (g == std::string::npos || tail.size() < g + 5 || tail.compare(tail.size() - 2, 2, "gb") != 0)
    return std::nullopt;
  const std::string slices = tail.substr(0, g), mem = tail.substr(g + 2, tail.size() - g - 4);
  if (!all_digits(slices) || !all_digits(mem) || slices.size() > 3) return std::nullopt;
  return MigType{std::stoll(slices), us == std::string::npos ? std::string() : type.substr(0, us)};
}

} // namespace

std::optional<double> parse_sacct_time(const std::string& text, const SourceLocation& at,
                                       const std::string& field)
{
  if (text.empty() || text == "Unknown" || text == "None") return std::nullopt;
  const std::string expected = "expected a time as sacct prints it (YYYY-MM-DDTHH:MM:SS, e.g. "
                               "2024-03-01T12:00:00), whole Unix seconds "
                               "(SLURM_TIME_FORMAT=%s), Unknown or None";
  if (all_digits(text)) {
    const auto v = text.size() <= 12 ? parse_int(text) : std::nullopt;
    if (!v || static_cast<double>(*v) > JobLimits::MAX_TIME_S)
      throw InputError(at, field, "out of range (got '" + text + "'); " + expected + ", at most 1e10 s");
    return static_cast<double>(*v);
  }
  auto digits = [&](std::size_t pos, std::size_t n) {
    long long v = 0;
    for (std::size_t i = pos; i < pos + n; ++i)
      v = v * 10 + (text[i] - '0');
    return v;
  };
  const bool shape =
      text.size() == 19 && text[4] == '-' && text[7] == '-' && text[10] == 'T' && text[13] == ':' &&
      text[16] == ':' && all_digits(std::string_view(text).substr(0, 4)) &&
      all_digits(std::string_view(text).substr(5, 2)) && all_digits(std::string_view(text).substr(8, 2)) &&
      all_digits(std::string_view(text).substr(11, 2)) && all_digits(std::string_view(text).substr(14, 2)) &&
      all_digits(std::string_view(text).substr(17, 2));
  if (!shape) throw InputError(at, field, "not a time (got '" + text + "'); " + expected);
  const long long y = digits(0, 4), mo = digits(5, 2), d = digits(8, 2), h = digits(11, 2),
                  mi = digits(14, 2), s = digits(17, 2);
  const bool date_ok = y >= 1970 && valid_civil_date(y, mo, d);
  if (!date_ok || h > 23 || mi > 59 || s > 60)
    throw InputError(at, field,
                     "not a valid date and time (got '" + text + "'); " + expected + ", from 1970 on");
  const double v =
      static_cast<double>(days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
                          h * 3600 + mi * 60 + s);
  if (v > JobLimits::MAX_TIME_S)
    throw InputError(at, field,
                     "out of range (got '" + text + "'); " + expected + ", at most 1e10 s after 1970");
  return v;
}

std::optional<double> parse_slurm_duration(const std::string& text, const SourceLocation& at,
                                           const std::string& field)
{
  if (text.empty() || text == "UNLIMITED" || text == "Partition_Limit" || text == "INVALID")
    return std::nullopt;
  auto bad = [&]() -> InputError {
    return InputError(
        at, field,
        "not a Slurm duration (got '" + text +
            "'); expected [D-]HH:MM:SS, MM:SS, MM, D-HH or D-HH:MM (e.g. 1-02:00:00), UNLIMITED "
            "or Partition_Limit");
  };
  std::string_view rest = text;
  long long days = -1;
  if (const auto dash = rest.find('-'); dash != std::string_view::npos) {
    if (!all_digits(rest.substr(0, dash)) || dash > 8) throw bad();
    days = std::stoll(std::string(rest.substr(0, dash)));
    rest.remove_prefix(dash + 1);
  }
  // Up to three ':'-separated parts; the last may carry a fraction of a second.
  std::vector<std::string_view> parts;
  while (true) {
    const auto colon = rest.find(':');
    parts.push_back(rest.substr(0, colon));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  if (parts.size() > 3) throw bad();
  double fraction = 0;
  if (const auto dot = parts.back().find('.'); dot != std::string_view::npos) {
    const auto frac = parts.back().substr(dot + 1);
    if (!all_digits(frac) || frac.size() > 9 || (days >= 0 && parts.size() < 3) ||
        (days < 0 && parts.size() < 2))
      throw bad();
    fraction = *parse_double("0." + std::string(frac));
    parts.back() = parts.back().substr(0, dot);
  }
  std::vector<long long> v;
  for (const auto p : parts) {
    if (!all_digits(p) || p.size() > 9) throw bad();
    v.push_back(std::stoll(std::string(p)));
  }
  long long h = 0, m = 0, s = 0;
  if (days >= 0) { // D-HH, D-HH:MM, D-HH:MM:SS
    h = v[0];
    if (v.size() > 1) m = v[1];
    if (v.size() > 2) s = v[2];
    if (h > 23) throw bad();
  } else if (v.size() == 1) { // MM
    m = v[0];
  } else if (v.size() == 2) { // MM:SS
    m = v[0];
    s = v[1];
  } else { // HH:MM:SS
    h = v[0];
    m = v[1];
    s = v[2];
  }
  if ((v.size() > 1 && (days >= 0 || v.size() == 3) && m > 59) || (v.size() > 1 && s > 59)) throw bad();
  const double total = static_cast<double>(std::max(days, 0LL)) * 86400 + static_cast<double>(h) * 3600 +
                       static_cast<double>(m) * 60 + static_cast<double>(s) + fraction;
  if (total > JobLimits::MAX_TIME_S)
    throw InputError(at, field, "out of range (got '" + text + "'); expected a duration of at most 1e10 s");
  return total;
}

SacctReader::SacctReader(std::istream& in, std::string file_name, SacctOptions options)
    : file_(std::move(file_name)), options_(options), csv_(in, file_, '|'),
      window_(options_.reorder_window, "Submit",
              "sort the rows by Submit (e.g. sort -t'|' -k2 after the header)")
{
  if (!csv_.next())
    throw InputError(
        SourceLocation{file_, 1}, "header",
        std::string("the file is empty; expected the header line of `sacct --parsable2` naming ") +
            "the columns (at least " + REQUIRED + "), e.g. from " + EXAMPLE_COMMAND);
  const SourceLocation at = csv_.at();
  if (csv_.size() > SACCT_MAX_COLUMNS)
    throw InputError(at, "header",
                     "too many columns (got " + std::to_string(csv_.size()) + "); expected at most " +
                         std::to_string(SACCT_MAX_COLUMNS) + " (sacct --helpformat lists about 110)");
  std::string header_text;
  std::optional<std::size_t> duplicate;
  for (std::size_t i = 0; i < csv_.size(); ++i) {
    if (header_text.size() < 200) header_text += (i ? "|" : "") + csv_[i];
    const std::string name = lower(csv_[i]);
    if (!duplicate && !name.empty() && std::find(header_.begin(), header_.end(), name) != header_.end())
      duplicate = i;
    header_.push_back(name);
  }
  id_ = column("jobid");
  submit_ = column("submit");
  start_ = column("start");
  end_ = column("end");
  state_ = column("state");
  alloc_tres_ = column("alloctres");
  req_tres_ = column("reqtres");
  timelimit_ = column("timelimit");
  elapsed_ = column("elapsed");
  user_ = column("user");
  partition_ = column("partition");
  qos_ = column("qos");
  alloc_nodes_ = column("allocnodes");
  std::vector<std::string> missing;
  for (const auto& [index, name] :
       {std::pair{id_, "JobID"}, std::pair{submit_, "Submit"}, std::pair{start_, "Start"},
        std::pair{end_, "End"}, std::pair{state_, "State"}})
    if (index < 0) missing.emplace_back(name);
  if (alloc_tres_ < 0 && req_tres_ < 0) missing.emplace_back("AllocTRES or ReqTRES");
  if (options_.duration == SacctDuration::ELAPSED && elapsed_ < 0)
    missing.emplace_back("Elapsed (duration=elapsed)");
  if (!missing.empty())
    throw InputError(at, "header",
                     "missing column(s) " + join(missing) + " (got '" + header_text +
                         "'); expected a header line naming at least " + REQUIRED +
                         " (sacct --noheader leaves it out), e.g. from " + EXAMPLE_COMMAND);
  if (duplicate)
    throw InputError(csv_.at(*duplicate), "header",
                     "column '" + csv_[*duplicate] + "' named twice; expected each column once");
}

int SacctReader::column(const char* name) const
{
  const auto it = std::find(header_.begin(), header_.end(), name);
  return it == header_.end() ? -1 : static_cast<int>(it - header_.begin());
}

bool SacctReader::read_row()
{
  while (csv_.next()) {
    if (csv_.size() != header_.size())
      throw InputError(csv_.at(), "row",
                       "wrong number of fields (got " + std::to_string(csv_.size()) + "); expected " +
                           std::to_string(header_.size()) +
                           ", one per header column, separated by '|' (sacct --parsable2)");
    auto col = [](int i) { return static_cast<std::size_t>(i); };
    const std::string& id = csv_[col(id_)];
    if (id.empty())
      throw InputError(csv_.at(col(id_)), "JobID", "empty; expected a job id (e.g. 123, 123_4, 123+0)");
    if (id.find('.') != std::string::npos) { // a step: 123.batch, 123.extern, 123.0
      ++steps_;
      continue;
    }
    const std::string& state_text = csv_[col(state_)];
    const std::string state = state_text.substr(0, state_text.find(' ')); // "CANCELLED by 1000"
    if (one_of(NOT_ENDED, state)) {
      ++unfinished_;
      continue;
    }
    if (!one_of(ENDED, state))
      throw InputError(
          csv_.at(col(state_)), "State",
          "unknown job state (got '" + state_text +
              "'); expected a Slurm job state: COMPLETED, FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, "
              "PREEMPTED, BOOT_FAIL, DEADLINE, CANCELLED, REVOKED, or one of a job not ended "
              "(PENDING, RUNNING, REQUEUED, SUSPENDED, ...)");
    Job job;
    job.id = id;
    job.origin = csv_.at();
    job.trace_status = state;
    const auto submit = parse_sacct_time(csv_[col(submit_)], csv_.at(col(submit_)), "Submit");
    if (!submit)
      throw InputError(csv_.at(col(submit_)), "Submit",
                       "no time (got '" + csv_[col(submit_)] + "'); expected the time the job was submitted");
    const auto start = parse_sacct_time(csv_[col(start_)], csv_.at(col(start_)), "Start");
    const auto end = parse_sacct_time(csv_[col(end_)], csv_.at(col(end_)), "End");

    // Devices from the TRES string: AllocTRES, or ReqTRES where that is absent or empty (never allocated).
    int tres = alloc_tres_ >= 0 && !csv_[col(alloc_tres_)].empty() ? alloc_tres_ : req_tres_;
    if (tres < 0) tres = alloc_tres_;
    const char* tres_name = tres == alloc_tres_ ? "AllocTRES" : "ReqTRES";
    const std::string& tres_text = csv_[col(tres)];
    const SourceLocation tres_at = csv_.at(col(tres));
    std::optional<long long> total;
    long long typed = 0;
    int largest_share = 0;
    std::vector<int> shares;
    std::vector<std::string> types;
    std::size_t pos = 0;
    while (pos < tres_text.size()) {
      const auto comma = std::min(tres_text.find(',', pos), tres_text.size());
      const std::string item = tres_text.substr(pos, comma - pos);
      pos = comma + 1;
      const auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        throw InputError(
            tres_at, tres_name,
            "malformed entry '" + item + "' (got '" + tres_text +
                "'); expected comma-separated NAME=VALUE entries, e.g. cpu=4,gres/gpu=2,mem=16G");
      const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
      if (key == "cpu") {
        const auto v = parse_double(value);
        if (!v || !std::isfinite(*v) || *v < 0 || *v > JobLimits::MAX_CPUS)
          throw InputError(tres_at, tres_name,
                           "cpu=" + value + ": expected a CPU count from 0 to " +
                               std::to_string(static_cast<long long>(JobLimits::MAX_CPUS)));
        job.cpus = *v;
      } else if (key == "mem") {
        const auto v = tres_bytes(value);
        if (!v || *v > JobLimits::MAX_BYTES)
          throw InputError(tres_at, tres_name,
                           "mem=" + value +
                               ": expected a size such as 16G, 4000M or 4000 (MiB), at most 1 PiB");
        job.host_mem_bytes = *v;
      } else if (key == "gres/gpu" || key.starts_with("gres/gpu:")) {
        const auto n = all_digits(value) && value.size() <= 8 ? parse_int(value) : std::nullopt;
        if (!n || *n > JobLimits::MAX_DEVICES)
          throw InputError(tres_at, tres_name,
                           key + "=" + value + ": expected a whole number of GPUs from 0 to " +
                               std::to_string(JobLimits::MAX_DEVICES));
        if (key == "gres/gpu") {
          total = *n;
          continue;
        }
        const std::string type = key.substr(9);
        if (type.empty())
          throw InputError(tres_at, tres_name, "'" + item + "': empty GPU type; expected gres/gpu:TYPE=N");
        if (*n == 0) continue;
        typed += *n;
        int share = 1000;
        std::string model = type;
        if (const auto mig = mig_type(type)) {
          if (mig->slices < 1 || mig->slices > 7)
            throw InputError(tres_at, tres_name,
                             "'" + item + "': a MIG profile of " + std::to_string(mig->slices) +
                                 " compute slices; expected 1 to 7 (a MIG GPU has 7)");
          share = static_cast<int>(std::lround(1000.0 * static_cast<double>(mig->slices) / 7.0));
          model = mig->model;
        }
        shares.push_back(share);
        largest_share = std::max(largest_share, share);
        if (!model.empty() && std::find(types.begin(), types.end(), model) == types.end())
          types.push_back(model);
      }
    }
    if (total && typed > *total)
      throw InputError(tres_at, tres_name,
                       "typed GPU counts add up to " + std::to_string(typed) +
                           ", more than gres/gpu=" + std::to_string(*total) + " (got '" + tres_text +
                           "'); expected the typed counts to be part of the total");
    const long long devices = total ? *total : typed;
    if (total && *total > typed) shares.push_back(1000); // untyped GPUs are whole devices
    if (!shares.empty()) largest_share = *std::max_element(shares.begin(), shares.end());

    if (timelimit_ >= 0)
      if (const auto t = parse_slurm_duration(csv_[col(timelimit_)], csv_.at(col(timelimit_)), "Timelimit"))
        job.requested_s = *t;
    std::optional<double> elapsed;
    if (elapsed_ >= 0) elapsed = parse_slurm_duration(csv_[col(elapsed_)], csv_.at(col(elapsed_)), "Elapsed");
    bool no_nodes = false; // AllocNodes 0: never allocated, whatever Start says
    if (alloc_nodes_ >= 0 && !csv_[col(alloc_nodes_)].empty()) {
      const std::string& n = csv_[col(alloc_nodes_)];
      if (!all_digits(n) || n.size() > 9)
        throw InputError(csv_.at(col(alloc_nodes_)), "AllocNodes",
                         "not a whole number (got '" + n + "'); expected a node count >= 0");
      no_nodes = n.find_first_not_of('0') == std::string::npos;
    }
    if (user_ >= 0) job.user = csv_[col(user_)];
    if (partition_ >= 0) job.trace_class = csv_[col(partition_)];
    if (qos_ >= 0) job.qos = csv_[col(qos_)];

    // Ended without starting: cancelled while pending, or a launch that never happened. Slurm prints Start
    // None for a job that never became eligible (held) and Start = End = the cancel time, with AllocNodes 0,
    // for one cancelled while it waited.
    if (!start || no_nodes) {
      ++not_started_[state];
      continue;
    }
    if (devices == 0) {
      ++no_gpu_;
      continue;
    }
    if (!end) {
      ++no_end_;
      continue;
    }
    if (*end < *start)
      throw InputError(csv_.at(col(end_)), "End",
                       "earlier than Start " + csv_[col(start_)] + " (got '" + csv_[col(end_)] +
                           "'); expected End >= Start");
    if (options_.duration == SacctDuration::ELAPSED) {
      if (!elapsed)
        throw InputError(csv_.at(col(elapsed_)), "Elapsed",
                         "no duration (got '" + csv_[col(elapsed_)] +
                             "'); expected the job's elapsed time, [D-]HH:MM:SS (duration=elapsed)");
      job.duration_s = *elapsed;
    } else {
      job.duration_s = *end - *start;
    }
    if (job.duration_s <= 0) {
      ++zero_runtime_;
      continue;
    }
    job.devices = static_cast<int>(devices);
    if (shares.size() > 1 &&
        std::adjacent_find(shares.begin(), shares.end(), std::not_equal_to<>()) != shares.end())
      ++mixed_shares_;
    job.gpu_milli = std::clamp(largest_share, 1, 1000);
    job.gpu_types = join(types, "|");
    job.submit_s = *submit;
    window_.push(std::move(job));
    return true;
  }
  return false;
}

std::optional<Job> SacctReader::next()
{
  while (!eof_ && !window_.full())
    if (!read_row()) eof_ = true;
  if (window_.empty()) return std::nullopt;
  Job job = window_.pop();
  if (!origin_s_) origin_s_ = job.submit_s;
  job.submit_s -= *origin_s_;
  return job;
}

std::vector<std::string> SacctReader::warnings() const
{
  std::vector<std::string> w;
  const std::string head = file_ + ": skipped ";
  if (steps_)
    w.push_back(head + std::to_string(steps_) + " job step row(s) (JobID with '.': batch, extern, 0, ...)");
  if (unfinished_)
    w.push_back(head + std::to_string(unfinished_) +
                " job(s) that had not ended when sacct ran (PENDING, RUNNING, REQUEUED, SUSPENDED, ...)");
  for (const auto& [state, n] : not_started_)
    w.push_back(head + std::to_string(n) + " " + state +
                " job(s) that never started (Start Unknown or None, or AllocNodes 0)");
  if (no_gpu_)
    w.push_back(head + std::to_string(no_gpu_) + " job(s) without a GPU (no gres/gpu in the TRES)");
  if (no_end_) w.push_back(head + std::to_string(no_end_) + " ended job(s) without an End time (Unknown)");
  if (zero_runtime_) w.push_back(head + std::to_string(zero_runtime_) + " job(s) with a run time of 0");
  if (mixed_shares_)
    w.push_back(
        file_ + ": " + std::to_string(mixed_shares_) +
        " job(s) held GPUs of different MIG sizes (or MIG and whole GPUs); each was replayed with its "
        "largest share on every device");
  if (window_.reordered())
    w.push_back(file_ + ": " + std::to_string(window_.reordered()) +
                " row(s) were out of Submit order and were replayed in order");
  return w;
}

std::string SacctReader::describe() const
{
  return origin_s_
             ? "submit 0 = " + civil_text(static_cast<long long>(*origin_s_)) + " (the first job's Submit)"
             : std::string();
}

std::unique_ptr<JobReader> open_sacct(const std::string& path, SacctOptions options)
{
  return std::make_unique<OwningReader<SacctReader>>(path, options);
}

} // namespace colocsim
