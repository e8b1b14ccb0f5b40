// Native CSV trace reader and writer (docs/formats/native-csv.md). Quoting follows RFC 4180 minimally:
// a field may be wrapped in double quotes, with "" standing for one quote; quoted fields may hold commas
// but not line breaks.
#include "workloads/NativeCsv.hpp"

#include "base/Units.hpp"
#include "models/GpuTypes.hpp"
#include "workloads/CsvLines.hpp"
#include "workloads/InputLimits.hpp"
#include "workloads/OwningReader.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>
#include <stdexcept>

namespace colocsim {

const std::vector<NativeCsvColumn>& native_csv_columns()
{
  // Order matters: it is the reader's Field enum order and the writer's column order.
  static const std::vector<NativeCsvColumn> columns{
      {"id", true, "", "job identifier, any non-empty text"},
      {"submit_s", true, "",
       "submit time in seconds from the trace origin, >= 0, non-decreasing down the file"},
      {"duration_s", true, "",
       "runtime in seconds, > 0, alone on `devices` reference devices at the reference frequency"},
      {"devices", false, "1", "devices requested (gang size), integer >= 1"},
      {"gpu_milli", false, "1000",
       "per-device share requested in thousandths, integer 1..1000 (1000 = whole device)"},
      {"mem", false, "0",
       "device memory the trace declares per device: a size such as 16GB or 512MiB, bare numbers are bytes; "
       "0 = not stated"},
      {"profile", false, "", "profile name in the profile catalog; empty = bound later (scenario mapping)"},
      {"qos", false, "", "free text, e.g. LS or BE; may be empty"},
      {"user", false, "", "who submitted the job (user, group, virtual cluster); free text, may be empty"},
      {"status", false, "",
       "the job's outcome in the trace, e.g. completed or failed; free text, not replayed"},
      {"cpus", false, "0", "host CPU cores requested, a number >= 0; 0 = not stated"},
      {"host_mem", false, "0",
       "host memory requested: a size such as 64GB, bare numbers are bytes; 0 = not stated"},
      {"depends_on", false, "",
       "ids of earlier jobs that must complete before this one is submitted, separated by '|'; empty = none"},
      {"think_time_s", false, "0",
       "seconds between the completion of the last of depends_on and this job's submission, >= 0"},
      {"gpu_types", false, "",
       "device types the job may run on, separated by '|' (catalog names or trace names such as T4 or "
       "V100M16); empty = any"},
      {"batch_size", false, "0",
       "batch size the job runs at, integer 1..1048576; 0 or empty = not stated (the profile's own numbers "
       "apply; a profile with a batch table reads it: docs/formats/profiles.md)"},
  };
  return columns;
}

namespace {

std::vector<std::string> column_names()
{
  std::vector<std::string> names;
  for (const auto& c : native_csv_columns())
    names.push_back(c.name);
  return names;
}

std::vector<std::string> required_column_names()
{
  std::vector<std::string> names;
  for (const auto& c : native_csv_columns())
    if (c.required) names.push_back(c.name);
  return names;
}

bool is_blank(char c)
{
  return c == ' ' || c == '\t';
}

/// Shortest text that std::from_chars reads back to the same double.
void append_shortest(std::string& out, double v)
{
  char buf[32];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ptr);
}

std::string shortest(double v)
{
  std::string s;
  append_shortest(s, v);
  return s;
}

} // namespace

// ---------------------------------------------------------------------------------------------------
// Reader

NativeCsvReader::NativeCsvReader(std::istream& in, std::string file_name)
    : in_(in), file_(std::move(file_name))
{
  column_of_.fill(-1);
}

bool NativeCsvReader::read_record()
{
  while (in_.next(text_, file_, line_ + 1)) {
    ++line_;
    std::size_t first = 0;
    while (first < text_.size() && is_blank(text_[first]))
      ++first;
    if (first == text_.size() || text_[first] == '#') continue;
    split_line(text_);
    return true;
  }
  return false;
}

void NativeCsvReader::split_line(const std::string& text)
{
  field_count_ = 0;
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (true) {
    if (fields_.size() <= field_count_) {
      fields_.emplace_back();
      field_cols_.push_back(0);
    }
    std::string& field = fields_[field_count_];
    field.clear();
    while (i < n && is_blank(text[i]))
      ++i;
    field_cols_[field_count_] = static_cast<int>(i) + 1;
    if (i < n && text[i] == '"') {
      const int open_col = static_cast<int>(i) + 1;
      ++i;
      bool closed = false;
      while (i < n) {
        if (text[i] == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        field += text[i++];
      }
      if (!closed)
        throw InputError(SourceLocation{file_, line_, open_col}, column_name_at(field_count_),
                         "unterminated quoted field; expected a closing '\"' on the same line (quoted fields "
                         "cannot span lines)");
      while (i < n && is_blank(text[i]))
        ++i;
      if (i < n && text[i] != ',')
        throw InputError(SourceLocation{file_, line_, static_cast<int>(i) + 1}, column_name_at(field_count_),
                         std::string("unexpected character after a closing quote (got '") + text[i] +
                             "'); expected ',' or the end of the line");
    } else {
      const std::size_t start = i;
      while (i < n && text[i] != ',')
        ++i;
      std::size_t end = i;
      while (end > start && is_blank(text[end - 1]))
        --end;
      field.assign(text, start, end - start);
    }
    ++field_count_;
    if (i >= n) break;
    ++i; // the comma
  }
}

std::string NativeCsvReader::column_name_at(std::size_t index) const
{
  if (!header_read_) return "header";
  for (int f = 0; f < FIELD_COUNT; ++f)
    if (column_of_[f] == static_cast<int>(index)) return native_csv_columns()[f].name;
  return "";
}

void NativeCsvReader::read_header()
{
  if (!read_record())
    throw InputError(SourceLocation{file_}, "header",
                     "no header row; expected a first line naming the columns, at least " +
                         join(required_column_names(), ","));
  const auto& columns = native_csv_columns();
  const auto valid = join(column_names());
  DiagnosticSink sink;
  for (std::size_t i = 0; i < field_count_; ++i) {
    const std::string& name = fields_[i];
    const SourceLocation where{file_, line_, field_cols_[i]};
    int found = -1;
    for (int f = 0; f < FIELD_COUNT; ++f)
      if (columns[f].name == name) found = f;
    if (found < 0) {
      sink.add(where, "header",
               "unknown column '" + name + "'; valid: " + valid +
                   " (the first line that is not blank or a # comment must be the header)");
    } else if (column_of_[found] >= 0) {
      sink.add(where, "header",
               "duplicate column '" + name + "' (also column " + std::to_string(column_of_[found] + 1) +
                   "); expected each column at most once");
    } else {
      column_of_[found] = static_cast<int>(i);
    }
  }
  for (int f = 0; f < FIELD_COUNT; ++f)
    if (columns[f].required && column_of_[f] < 0)
      sink.add(SourceLocation{file_, line_}, "header",
               "missing required column '" + columns[f].name + "'; expected at least " +
                   join(required_column_names(), ","));
  sink.throw_if_any();
  header_size_ = field_count_;
  header_read_ = true;
}

std::optional<Job> NativeCsvReader::next()
{
  if (!header_read_) read_header();
  if (!read_record()) return std::nullopt;
  return parse_row();
}

/// The current data row's fields, read column by column into a Job; every problem goes to `sink`.
class NativeCsvReader::Row {
public:
  explicit Row(const NativeCsvReader& r) : r_(r) {}
  DiagnosticSink sink;

  SourceLocation where(Field f) const
  {
    return SourceLocation{r_.file_, r_.line_, r_.field_cols_[r_.column_of_[f]]};
  }
  /// The field's text, or nullptr when the column is absent or the field empty (then the default applies).
  const std::string* text(Field f) const
  {
    if (r_.column_of_[f] < 0 || r_.fields_[r_.column_of_[f]].empty()) return nullptr;
    return &r_.fields_[r_.column_of_[f]];
  }
  void bad(Field f, const std::string& what, const std::string& expected)
  {
    const std::string got = r_.column_of_[f] < 0 ? std::string() : r_.fields_[r_.column_of_[f]];
    sink.add(where(f), native_csv_columns()[f].name, what + " (got '" + got + "'); expected " + expected);
  }
  void read_int(Field f, long long min, long long max, const std::string& expected, int& out)
  {
    const std::string* t = text(f);
    if (!t) return;
    auto v = parse_int(*t);
    if (!v)
      bad(f, "not an integer", expected);
    else if (*v < min || *v > max)
      bad(f, "out of range", expected);
    else
      out = static_cast<int>(*v);
  }

  bool read_id_and_times(Job& job);
  void read_request(Job& job);
  void read_host_and_labels(Job& job);
  void read_dependencies(Job& job);

private:
  const NativeCsvReader& r_;
};

/// id, submit_s, duration_s: true if submit_s was read.
bool NativeCsvReader::Row::read_id_and_times(Job& job)
{
  if (const std::string* t = text(ID))
    job.id = *t;
  else
    bad(ID, "empty", "a non-empty job id");

  bool submit_ok = false;
  if (const std::string* t = text(SUBMIT_S)) {
    if (auto v = parse_double(*t); !v)
      bad(SUBMIT_S, "not a number", "seconds from the trace origin, a number >= 0");
    else if (*v < 0)
      bad(SUBMIT_S, "negative", "seconds from the trace origin, a number >= 0");
    else {
      job.submit_s = *v;
      submit_ok = true;
    }
  } else {
    bad(SUBMIT_S, "empty", "seconds from the trace origin, a number >= 0");
  }

  if (const std::string* t = text(DURATION_S)) {
    if (auto v = parse_double(*t); !v)
      bad(DURATION_S, "not a number", "a duration in seconds > 0");
    else if (*v <= 0)
      bad(DURATION_S, "not positive", "a duration in seconds > 0");
    else
      job.duration_s = *v;
  } else {
    bad(DURATION_S, "empty", "a duration in seconds > 0");
  }
  return submit_ok;
}

/// What the job asks of the devices: devices, gpu_milli, mem.
void NativeCsvReader::Row::read_request(Job& job)
{
  read_int(DEVICES, 1, JobLimits::MAX_DEVICES, "an integer >= 1 (devices requested), at most 1048576",
           job.devices);
  read_int(GPU_MILLI, 1, 1000, "an integer in 1..1000 (per-device share in thousandths; 1000 = whole device)",
           job.gpu_milli);

  if (const std::string* t = text(MEM)) {
    auto v = parse_quantity(*t, Unit::BYTES);
    if (!v)
      bad(MEM, "not a size", unit_help(Unit::BYTES));
    else if (*v < 0)
      bad(MEM, "negative", unit_help(Unit::BYTES) + " >= 0");
    else
      job.mem_request_bytes = *v;
  }
}

/// profile, qos, user, status, cpus, host_mem, gpu_types, batch_size.
void NativeCsvReader::Row::read_host_and_labels(Job& job)
{
  if (const std::string* t = text(PROFILE)) job.profile = *t;
  if (const std::string* t = text(QOS)) job.qos = *t;
  if (const std::string* t = text(USER)) job.user = *t;
  if (const std::string* t = text(STATUS)) job.trace_status = *t;
  if (const std::string* t = text(CPUS)) {
    if (auto v = parse_double(*t); !v || *v < 0)
      bad(CPUS, "not a number >= 0", "host CPU cores, a number >= 0");
    else
      job.cpus = *v;
  }
  if (const std::string* t = text(HOST_MEM)) {
    if (auto v = parse_quantity(*t, Unit::BYTES); !v || *v < 0)
      bad(HOST_MEM, "not a size >= 0", unit_help(Unit::BYTES) + " >= 0");
    else
      job.host_mem_bytes = *v;
  }
  if (const std::string* t = text(GPU_TYPES)) {
    if (!gpu_types_well_formed(*t))
      bad(GPU_TYPES, "an empty or blank type name", "device type names separated by '|', e.g. T4|V100M16");
    else
      job.gpu_types = *t;
  }
  read_int(BATCH_SIZE, 0, JobLimits::MAX_BATCH_SIZE,
           "an integer in 0..1048576 (batch size; 0 or empty = not stated)", job.batch_size);
}

/// depends_on and think_time_s.
void NativeCsvReader::Row::read_dependencies(Job& job)
{
  if (const std::string* t = text(DEPENDS_ON)) {
    std::size_t start = 0;
    while (start <= t->size()) {
      const auto bar = std::min(t->find('|', start), t->size());
      std::string id = t->substr(start, bar - start);
      if (id.empty())
        bad(DEPENDS_ON, "empty job id", "job ids separated by '|', e.g. job-1|job-2");
      else if (id == job.id)
        bad(DEPENDS_ON, "the job depends on itself", "ids of other, earlier jobs");
      else
        job.depends_on.push_back(std::move(id));
      start = bar + 1;
    }
  }
  if (const std::string* t = text(THINK_TIME_S)) {
    if (auto v = parse_double(*t); !v || *v < 0)
      bad(THINK_TIME_S, "not a number >= 0", "seconds >= 0");
    else if (*v > 0 && job.depends_on.empty())
      bad(THINK_TIME_S, "a think time without depends_on", "0 or empty when the job depends on no job");
    else
      job.think_time_s = *v;
  }
}

Job NativeCsvReader::parse_row()
{
  if (field_count_ != header_size_)
    throw InputError(SourceLocation{file_, line_}, "",
                     "wrong number of fields (got " + std::to_string(field_count_) + "); expected " +
                         std::to_string(header_size_) +
                         " as in the header (quote fields that contain commas)");

  Row row(*this);
  Job job;
  job.origin = SourceLocation{file_, line_};
  const bool submit_ok = row.read_id_and_times(job);
  row.read_request(job);
  row.read_host_and_labels(job);
  row.read_dependencies(job);

  if (submit_ok && previous_line_ > 0 && job.submit_s < previous_submit_s_)
    row.sink.add(row.where(SUBMIT_S), "submit_s",
                 "unsorted: submit_s " + fields_[column_of_[SUBMIT_S]] + " < previous " +
                     shortest(previous_submit_s_) + " at line " + std::to_string(previous_line_) +
                     "; expected non-decreasing submit times");

  row.sink.throw_if_any();
  previous_submit_s_ = job.submit_s;
  previous_line_ = line_;
  return job;
}

// ---------------------------------------------------------------------------------------------------
// File-owning reader

std::unique_ptr<JobReader> open_native_csv(const std::string& path)
{
  return std::make_unique<OwningReader<NativeCsvReader>>(path);
}

// ---------------------------------------------------------------------------------------------------
// Writer

NativeCsvWriter::NativeCsvWriter(std::ostream& out) : out_(out)
{
  std::string header;
  for (const auto& c : native_csv_columns()) {
    if (!header.empty()) header += ',';
    header += c.name;
  }
  header += '\n';
  out_.write(header.data(), static_cast<std::streamsize>(header.size()));
}

void NativeCsvWriter::append_text(const std::string& field, const char* column)
{
  if (field.find_first_of("\r\n") != std::string::npos)
    throw std::invalid_argument(std::string("native CSV: ") + column + " '" + field +
                                "' contains a line break, which the format cannot hold");
  const bool quote =
      field.find_first_of(",\"") != std::string::npos ||
      (!field.empty() && (is_blank(field.front()) || is_blank(field.back()) || field.front() == '#'));
  if (!quote) {
    buffer_ += field;
    return;
  }
  buffer_ += '"';
  for (char c : field) {
    if (c == '"') buffer_ += '"';
    buffer_ += c;
  }
  buffer_ += '"';
}

void NativeCsvWriter::append_number(double v)
{
  // Whole numbers below 2^53 as integers (16000000000, not 1.6e+10): exact and easier to read.
  if (std::floor(v) == v && std::fabs(v) < 9007199254740992.0) {
    char buf[24];
    auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(v));
    buffer_.append(buf, ptr);
    return;
  }
  append_shortest(buffer_, v);
}

void NativeCsvWriter::write(const Job& job)
{
  if (job.id.empty()) throw std::invalid_argument("native CSV: a job id cannot be empty");
  buffer_.clear();
  append_text(job.id, "id");
  buffer_ += ',';
  append_number(job.submit_s);
  buffer_ += ',';
  append_number(job.duration_s);
  buffer_ += ',';
  append_number(job.devices);
  buffer_ += ',';
  append_number(job.gpu_milli);
  buffer_ += ',';
  append_number(job.mem_request_bytes);
  buffer_ += ',';
  append_text(job.profile, "profile");
  buffer_ += ',';
  append_text(job.qos, "qos");
  buffer_ += ',';
  append_text(job.user, "user");
  buffer_ += ',';
  append_text(job.trace_status, "status");
  buffer_ += ',';
  append_number(job.cpus);
  buffer_ += ',';
  append_number(job.host_mem_bytes);
  buffer_ += ',';
  std::string deps;
  for (const auto& d : job.depends_on) {
    if (d.find('|') != std::string::npos)
      throw std::invalid_argument("native CSV: dependency id '" + d + "' contains '|', the separator");
    deps += (deps.empty() ? "" : "|") + d;
  }
  append_text(deps, "depends_on");
  buffer_ += ',';
  append_number(job.think_time_s);
  buffer_ += ',';
  append_text(job.gpu_types, "gpu_types");
  buffer_ += ',';
  append_number(job.batch_size);
  buffer_ += '\n';
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  ++rows_;
}

} // namespace colocsim
