#pragma once
// Line-by-line reader for the plain comma-separated files public traces ship (Alibaba openb and PAI,
// Microsoft ITP), and the '|'-separated output of `sacct --parsable2`: no quoting, one record per line. Keeps
// each field's 1-based column so that a bad value is reported as `file:line:col: field: what is wrong (got
// 'x'); expected ...`. One line in memory.
#include "base/Errors.hpp"

#include <cstddef>
#include <fstream>
#include <istream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colocsim {

/// Longest line, without its line end, that any trace reader accepts: 1 MiB. Real trace rows are well
/// under 1 KiB (the longest row in the public SWF, Alibaba and MLPerf traces we checked is 448 bytes); a
/// longer line means a file that is not a text trace (a binary, /dev/zero), and reading it whole would grow
/// without bound.
inline constexpr std::size_t MAX_LINE_BYTES = std::size_t{1} << 20;

/// Reads a stream line by line: "\n", "\r\n" and a lone "\r" all end a line, and a line longer than
/// MAX_LINE_BYTES is an error. It reads the stream in 64 KiB blocks (as fast as std::getline), so it must be
/// the stream's only reader.
class LineReader {
public:
  explicit LineReader(std::istream& in) : buf_(in.rdbuf()), block_(1 << 16) {}
  /// The next line into `text`, without its line end; false at the end of the stream when nothing is
  /// left. A line longer than MAX_LINE_BYTES throws InputError at `file:line` (`line`: the 1-based number of
  /// the line being read, for the message).
  bool next(std::string& text, const std::string& file, int line);

private:
  std::streambuf* buf_;
  std::vector<char> block_;
  std::size_t pos_ = 0, end_ = 0;
  std::size_t nl_ = 0; ///< index of the next '\n' in block_ (end_ if none), when nl_known_ and nl_ >= pos_
  bool nl_known_ = false;
  bool skip_lf_ = false; ///< the last line ended at '\r': a '\n' right after it belongs to that line end
};

/// Opens `path` for reading in binary mode (LineReader handles the line ends). Throws InputError naming
/// `what` (e.g. "trace file") when the path cannot be opened or is not a regular file: a directory, a FIFO
/// or a character device such as /dev/zero would never end or cannot be read twice.
std::ifstream open_input_file(const std::string& path, const std::string& what);

class CsvLines {
public:
  /// The stream must outlive the reader. `separator`: the field separator (',' for CSV, '|' for the output
  /// of `sacct --parsable2`).
  CsvLines(std::istream& in, std::string file, char separator = ',');

  /// Reads the next line that is not blank and splits it; false at the end of the stream. Lines end at
  /// "\n", "\r\n" or "\r"; a line longer than MAX_LINE_BYTES throws InputError.
  bool next();

  std::size_t size() const { return count_; }
  const std::string& operator[](std::size_t i) const { return fields_[i]; }
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  SourceLocation at() const { return SourceLocation{file_, line_}; } ///< the current line
  SourceLocation at(std::size_t i) const { return SourceLocation{file_, line_, cols_[i]}; }

  /// Field i as a number in [min, max] (and whole if `whole`). On a bad value adds
  /// `field: not a number|out of range|not a whole number|empty (got 'x'); expected <expected>` to `sink`
  /// at the field's column and returns nullopt.
  std::optional<double> number(std::size_t i, std::string_view field, const std::string& expected,
                               DiagnosticSink& sink, double min = -std::numeric_limits<double>::infinity(),
                               double max = std::numeric_limits<double>::infinity(),
                               bool whole = false) const;
  /// Adds `field: <what> (got '<field i>'); expected <expected>` to `sink` at the field's column.
  void bad(std::size_t i, std::string_view field, const std::string& what, const std::string& expected,
           DiagnosticSink& sink) const;

private:
  LineReader in_;
  std::string file_;
  std::string text_;
  std::vector<std::string> fields_; ///< capacity reused across lines
  std::vector<int> cols_;
  std::size_t count_ = 0;
  int line_ = 0;
  char separator_ = ',';
};

/// Index of `name` in a header row, or -1.
int column_index(const CsvLines& header, std::string_view name);

} // namespace colocsim
