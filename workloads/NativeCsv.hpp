#pragma once
// colocsim's native trace format: one CSV row per job, columns named in a header row, any order.
// The format is documented, with a tested example, in docs/formats/native-csv.md. The reader streams
// (one line in memory per next() call); the writer produces files the reader reads back bit-exactly.
#include "workloads/CsvLines.hpp"
#include "workloads/JobReader.hpp"

#include <array>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace colocsim {

/// One column of the native CSV format: the single declaration behind parsing, messages and the docs.
struct NativeCsvColumn {
  std::string name;
  bool required = false;
  std::string default_text; ///< value when the column is absent or the field empty (optional columns)
  std::string help;         ///< meaning, unit and valid range
};

/// All columns, in the order NativeCsvWriter writes them.
const std::vector<NativeCsvColumn>& native_csv_columns();

/// Reads jobs from a native CSV stream.
///
/// Contract: the first line that is neither blank nor a `#` comment is the header. Each next() reads
/// lines until it finds a data row and returns it as a Job (origin = file:line), or nullopt at the end
/// of the stream. A bad header or row throws InputError at `file:line:col` naming the column and what
/// was expected; rows must come in non-decreasing submit_s. The stream must outlive the reader.
class NativeCsvReader final : public JobReader {
public:
  NativeCsvReader(std::istream& in, std::string file_name);
  std::optional<Job> next() override;
  /// True if the header has a depends_on column (known after the first next()).
  bool may_have_dependencies() const override { return column_of_[DEPENDS_ON] >= 0; }

  /// Number of the last line read (1-based), 0 before the first read.
  int line() const { return line_; }

private:
  enum Field {
    ID,
    SUBMIT_S,
    DURATION_S,
    DEVICES,
    GPU_MILLI,
    MEM,
    PROFILE,
    QOS,
    USER,
    STATUS,
    CPUS,
    HOST_MEM,
    DEPENDS_ON,
    THINK_TIME_S,
    GPU_TYPES,
    BATCH_SIZE,
    FIELD_COUNT
  };

  bool read_record();                       ///< next non-blank, non-comment line split into fields_
  void split_line(const std::string& text); ///< fills fields_ and field_cols_; throws on a bad quote
  std::string column_name_at(std::size_t index) const; ///< for messages: "header" or the column's name
  void read_header();
  Job parse_row();
  class Row; ///< the current data row's fields as parse_row() reads them (NativeCsv.cpp)

  LineReader in_; ///< the stream's lines (CsvLines.hpp)
  std::string file_;
  std::string text_;                ///< the current line
  std::vector<std::string> fields_; ///< fields of the current line (capacity reused across lines)
  std::vector<int> field_cols_;     ///< 1-based column of each field's first character
  std::size_t field_count_ = 0;     ///< fields on the current line (fields_ may hold more, unused)
  std::size_t header_size_ = 0;
  std::array<int, FIELD_COUNT> column_of_; ///< index of each field in a row, -1 if the column is absent
  bool header_read_ = false;
  int line_ = 0;
  double previous_submit_s_ = 0;
  int previous_line_ = 0; ///< line of the previous row, 0 before the first row
};

/// Opens `path` and returns a reader that owns the file. Throws InputError if it cannot be opened.
std::unique_ptr<JobReader> open_native_csv(const std::string& path);

/// Writes jobs in the native CSV format: the header `id,submit_s,duration_s,devices,gpu_milli,mem,
/// profile,qos`, then one row per write(). Numbers use the shortest text that reads back to the same
/// double; mem is written in bytes. Strings are quoted when needed.
class NativeCsvWriter {
public:
  explicit NativeCsvWriter(std::ostream& out); ///< writes the header immediately
  /// Throws std::invalid_argument for a job the format cannot hold (a line break in a string field).
  void write(const Job& job);
  std::size_t rows_written() const { return rows_; }

private:
  void append_text(const std::string& field, const char* column);
  void append_number(double v);

  std::ostream& out_;
  std::string buffer_;
  std::size_t rows_ = 0;
};

} // namespace colocsim
