// Strict JSON (RFC 8259) and CSV (RFC 4180) checks of colocsim's outputs; the rules are in the header.
#include "tests/support/StrictFormats.hpp"

#include "base/Gzip.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace colocsim::test {
namespace fs = std::filesystem;

namespace {

struct JsonError {
  std::string what;
};

/// Recursive-descent JSON reader that only validates (it builds nothing).
class JsonChecker {
public:
  explicit JsonChecker(std::string_view text) : s_(text) {}

  void document()
  {
    skip_ws();
    if (at_end()) fail("empty document; expected a JSON value");
    value(1);
    skip_ws();
    if (!at_end()) fail("trailing characters after the JSON value");
  }

  std::size_t line() const { return line_; }
  std::size_t column() const { return pos_ - line_start_ + 1; }

private:
  std::string_view s_;
  std::size_t pos_ = 0, line_ = 1, line_start_ = 0;

  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }
  [[noreturn]] void fail(const std::string& what) const { throw JsonError{what}; }

  void advance()
  {
    if (s_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
    ++pos_;
  }
  void skip_ws()
  {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      advance();
  }
  void expect(char c, const char* what)
  {
    if (peek() != c) fail(std::string("expected ") + what);
    advance();
  }

  void value(int depth)
  {
    if (depth > MAX_JSON_DEPTH) fail("nested deeper than " + std::to_string(MAX_JSON_DEPTH) + " levels");
    const char c = peek();
    if (c == '{')
      object(depth);
    else if (c == '[')
      array(depth);
    else if (c == '"')
      string();
    else if (c == '-' || (c >= '0' && c <= '9'))
      number();
    else if (literal("true") || literal("false") || literal("null"))
      return;
    else {
      // Name the usual offenders: what printf and some JSON writers emit for non-finite doubles.
      std::string word;
      for (std::size_t i = pos_; i < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i])) != 0); ++i)
        word += s_[i];
      std::string lower = word;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
      if (lower == "inf" || lower == "infinity" || lower == "nan")
        fail("'" + word + "' is not JSON (no infinity or NaN); expected a finite number or null");
      fail(c == '\0' ? std::string("unexpected end; expected a value")
                     : std::string("unexpected character '") + c + "'; expected a value");
    }
  }

  bool literal(std::string_view word)
  {
    if (s_.substr(pos_, word.size()) != word) return false;
    for (std::size_t i = 0; i < word.size(); ++i)
      advance();
    return true;
  }

  void object(int depth)
  {
    advance(); // {
    skip_ws();
    if (peek() == '}') {
      advance();
      return;
    }
    std::set<std::string> keys;
    while (true) {
      skip_ws();
      if (peek() != '"') fail(peek() == '}' ? "trailing comma in an object" : "expected a key (a string)");
      const std::size_t key_line = line_, key_col = column();
      const std::string key = string();
      if (!keys.insert(key).second)
        fail("duplicate key \"" + key + "\" (first seen earlier in this object; this one at " +
             std::to_string(key_line) + ":" + std::to_string(key_col) + ")");
      skip_ws();
      expect(':', "':' after a key");
      skip_ws();
      value(depth + 1);
      skip_ws();
      if (peek() == ',') {
        advance();
        continue;
      }
      expect('}', "',' or '}' in an object");
      return;
    }
  }

  void array(int depth)
  {
    advance(); // [
    skip_ws();
    if (peek() == ']') {
      advance();
      return;
    }
    while (true) {
      skip_ws();
      if (peek() == ']') fail("trailing comma in an array");
      value(depth + 1);
      skip_ws();
      if (peek() == ',') {
        advance();
        continue;
      }
      expect(']', "',' or ']' in an array");
      return;
    }
  }

  unsigned hex4()
  {
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = peek();
      if (!std::isxdigit(static_cast<unsigned char>(c))) fail("bad \\u escape: expected 4 hex digits");
      v = v * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(c))
                                             ? c - '0'
                                             : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
      advance();
    }
    return v;
  }

  /// A string; returns its raw text between the quotes (enough to compare keys written the same way).
  std::string string()
  {
    advance(); // "
    const std::size_t start = pos_;
    while (true) {
      if (at_end()) fail("unterminated string");
      const auto c = static_cast<unsigned char>(peek());
      if (c == '"') break;
      if (c < 0x20) fail("raw control character in a string; expected an escape such as \\n");
      if (c == '\\') {
        advance();
        const char e = peek();
        if (e == 'u') {
          advance();
          const unsigned u = hex4();
          if (u >= 0xDC00 && u <= 0xDFFF) fail("lone low surrogate in a \\u escape");
          if (u >= 0xD800 && u <= 0xDBFF) {
            if (!literal("\\u")) fail("high surrogate not followed by a low surrogate");
            const unsigned low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("high surrogate not followed by a low surrogate");
          }
          continue;
        }
        if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos || e == '\0')
          fail(std::string("bad escape '\\") + e + "'; valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX");
        advance();
        continue;
      }
      if (c >= 0x80) {
        utf8();
        continue;
      }
      advance();
    }
    const std::string raw(s_.substr(start, pos_ - start));
    advance(); // "
    return raw;
  }

  void utf8()
  {
    const auto c = static_cast<unsigned char>(peek());
    int more = 0;
    unsigned cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      more = 1;
      cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
      more = 2;
      cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
      more = 3;
      cp = c & 0x07u;
    } else {
      fail("invalid UTF-8 byte");
    }
    advance();
    for (int i = 0; i < more; ++i) {
      const auto d = static_cast<unsigned char>(peek());
      if ((d & 0xC0u) != 0x80u) fail("invalid UTF-8 sequence");
      cp = (cp << 6) | (d & 0x3Fu);
      advance();
    }
    if ((more == 2 && cp < 0x800) || (more == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      fail("invalid UTF-8 sequence (overlong or a surrogate)");
  }

  void number()
  {
    const std::size_t start = pos_;
    if (peek() == '-') advance();
    if (peek() == '0') {
      advance();
      if (std::isdigit(static_cast<unsigned char>(peek()))) fail("number with a leading zero");
    } else if (std::isdigit(static_cast<unsigned char>(peek()))) {
      while (std::isdigit(static_cast<unsigned char>(peek())))
        advance();
    } else {
      std::string rest(s_.substr(pos_, 8));
      std::transform(rest.begin(), rest.end(), rest.begin(),
                     [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
      if (rest.rfind("inf", 0) == 0 || rest.rfind("nan", 0) == 0)
        fail("'-" + std::string(s_.substr(pos_, 3)) +
             "...' is not JSON (no infinity or NaN); expected a finite number or null");
      fail("'-' not followed by a digit");
    }
    if (peek() == '.') {
      advance();
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("no digit after the decimal point");
      while (std::isdigit(static_cast<unsigned char>(peek())))
        advance();
    }
    if (peek() == 'e' || peek() == 'E') {
      advance();
      if (peek() == '+' || peek() == '-') advance();
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("no digit in the exponent");
      while (std::isdigit(static_cast<unsigned char>(peek())))
        advance();
    }
    const std::string text(s_.substr(start, pos_ - start));
    errno = 0;
    const double v = std::strtod(text.c_str(), nullptr);
    if (!std::isfinite(v) || errno == ERANGE) {
      if (!std::isfinite(v) || std::fabs(v) > 1.0) fail("number " + text + " is out of a double's range");
    }
  }
};

bool ends_with(const std::string& s, const std::string& suffix)
{
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lower(std::string s)
{
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return s;
}

/// A cell that spells a non-finite number (inf, -Infinity, NaN, nan(0x1), 1e999, ...).
bool non_finite_spelling(const std::string& cell)
{
  std::string t = lower(cell);
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.erase(0, 1);
  if (t == "inf" || t == "infinity" || t == "nan" || t.rfind("nan(", 0) == 0) return true;
  if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '.')) return false;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  return end == cell.c_str() + cell.size() && !std::isfinite(v);
}

/// A finite number in full (decimal, optional sign and exponent), nothing else.
bool finite_number(const std::string& cell)
{
  if (cell.empty() || std::isspace(static_cast<unsigned char>(cell[0])) != 0) return false;
  for (char c : cell)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == 'e' ||
          c == 'E'))
      return false; // refuses hex floats, inf and nan that strtod would take
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  return end == cell.c_str() + cell.size() && std::isfinite(v);
}

} // namespace

std::vector<std::string> check_json(std::string_view text, const std::string& name)
{
  JsonChecker p(text);
  try {
    p.document();
  } catch (const JsonError& e) {
    return {name + ":" + std::to_string(p.line()) + ":" + std::to_string(p.column()) + ": " + e.what};
  }
  return {};
}

std::vector<std::string> check_csv(std::string_view text, const std::string& name,
                                   const std::vector<std::string>& numeric)
{
  std::vector<std::string> problems;
  auto problem = [&](std::size_t line, const std::string& what) {
    if (problems.size() < 20) problems.push_back(name + ":" + std::to_string(line) + ": " + what);
  };
  if (text.empty()) return {name + ":1: empty file; expected a header row"};
  if (text.back() != '\n') problem(1, "the last row does not end with a newline (a truncated file?)");

  // Split into records of fields, RFC 4180.
  std::vector<std::vector<std::string>> records;
  std::vector<std::size_t> record_line;
  std::vector<bool> record_blank; // an empty line (not a quoted empty field)
  std::size_t pos = 0, line = 1;
  while (pos < text.size()) {
    record_blank.push_back(text[pos] == '\n' || text.substr(pos, 2) == "\r\n");
    std::vector<std::string> fields;
    const std::size_t first_line = line;
    bool end_of_record = false;
    bool ok = true;
    while (!end_of_record) {
      std::string field;
      if (pos < text.size() && text[pos] == '"') {
        ++pos;
        bool closed = false;
        while (pos < text.size()) {
          const char c = text[pos];
          if (c == '"') {
            if (pos + 1 < text.size() && text[pos + 1] == '"') {
              field += '"';
              pos += 2;
              continue;
            }
            ++pos;
            closed = true;
            break;
          }
          if (c == '\n') ++line;
          field += c;
          ++pos;
        }
        if (!closed) {
          problem(first_line, "unterminated quoted field");
          return problems;
        }
        if (pos < text.size() && text[pos] != ',' && text[pos] != '\n' &&
            !(text[pos] == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n')) {
          problem(line, "characters after the closing quote of a field; expected ',' or the end of the row");
          ok = false;
          while (pos < text.size() && text[pos] != ',' && text[pos] != '\n')
            ++pos;
        }
      } else {
        while (pos < text.size() && text[pos] != ',' && text[pos] != '\n') {
          if (text[pos] == '"') {
            problem(line, "a '\"' inside an unquoted field (RFC 4180: quote the field and double the quote)");
            ok = false;
          }
          if (text[pos] == '\r' && !(pos + 1 < text.size() && text[pos + 1] == '\n')) {
            problem(line, "a carriage return inside an unquoted field");
            ok = false;
          }
          if (!(text[pos] == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n')) field += text[pos];
          ++pos;
        }
      }
      fields.push_back(field);
      if (pos >= text.size()) {
        end_of_record = true;
      } else if (text[pos] == ',') {
        ++pos;
      } else {
        if (text[pos] == '\r') ++pos;
        ++pos; // '\n'
        ++line;
        end_of_record = true;
      }
    }
    (void)ok;
    records.push_back(std::move(fields));
    record_line.push_back(first_line);
  }
  if (records.empty()) return {name + ":1: no header row"};

  const auto& header = records[0];
  std::set<std::string> seen;
  for (const auto& h : header) {
    if (h.empty()) problem(1, "an empty column name in the header");
    if (!seen.insert(h).second) problem(1, "column '" + h + "' appears twice in the header");
  }
  std::vector<std::size_t> numeric_at;
  for (const auto& n : numeric) {
    const auto it = std::find(header.begin(), header.end(), n);
    if (it != header.end()) numeric_at.push_back(static_cast<std::size_t>(it - header.begin()));
  }
  for (std::size_t r = 1; r < records.size(); ++r) {
    const auto& row = records[r];
    const std::size_t at = record_line[r];
    if (record_blank[r]) {
      problem(at, "empty row; expected " + std::to_string(header.size()) +
                      " fields (only the final newline may end the file)");
      continue;
    }
    if (row.size() != header.size()) {
      problem(at, std::to_string(row.size()) + " fields; expected " + std::to_string(header.size()) +
                      " (the header's column count)");
      continue;
    }
    for (std::size_t c = 0; c < row.size(); ++c)
      if (non_finite_spelling(row[c])) problem(at, header[c] + ": '" + row[c] + "' is not a finite number");
    for (std::size_t c : numeric_at)
      if (!row[c].empty() && !non_finite_spelling(row[c]) && !finite_number(row[c]))
        problem(at, header[c] + ": not a number (got '" + row[c] + "'); expected a finite number or empty");
  }
  return problems;
}

std::vector<std::string> numeric_columns(const std::string& file_name, const std::vector<std::string>& header)
{
  if (file_name == "jobs.csv" && !header.empty() && header[0] == "id" &&
      std::find(header.begin(), header.end(), "jct_s") != header.end())
    // nodes and comm_slowdown: in runs that can communicate only (docs/formats/outputs.md).
    return {"submit_s", "start_s", "end_s",  "attempts", "slowdown",
            "energy_j", "jct_s",   "wait_s", "nodes",    "comm_slowdown"};
  if (file_name == "timeseries.csv") return header; // every column is a number
  if (file_name == "sweep.csv") {
    // run, status, the axes (any text), seed, then plugins/plugins_sha256, then summary.json's numbers.
    std::vector<std::string> cols;
    const auto seed = std::find(header.begin(), header.end(), "seed");
    if (seed == header.end()) return cols;
    for (auto it = seed; it != header.end(); ++it)
      if (*it != "plugins" && *it != "plugins_sha256") cols.push_back(*it);
    return cols;
  }
  if (file_name == "measurements.csv" || std::find(header.begin(), header.end(), "t_iter_cv") != header.end())
    return {"run_id",
            "repetition",
            "n_procs",
            "rank",
            "n",
            "k",
            "m",
            "duty",
            "sleep_s",
            "freq_set_mhz",
            "freq_actual_mhz",
            "reps",
            "t_global_s",
            "t_context_s",
            "t_host_s",
            "t_iter_s",
            "t_iter_cv",
            "duty_measured",
            "flops",
            "bytes",
            "window_s",
            "energy_j"};
  // Any other CSV: the columns whose name carries a unit.
  static const std::vector<std::string> units{"_s",     "_j",  "_w",  "_js",    "_hz",  "_mhz",
                                              "_bytes", "_mb", "_gb", "_milli", "_pct", "_wh"};
  std::vector<std::string> cols;
  for (const auto& h : header)
    for (const auto& u : units)
      if (ends_with(h, u)) {
        cols.push_back(h);
        break;
      }
  return cols;
}

std::vector<std::string> check_csv_output(std::string_view text, const std::string& name,
                                          const std::string& file_name)
{
  // The header (first record, unquoted names as every colocsim CSV writes them) picks the numeric columns.
  std::vector<std::string> header;
  std::string first(text.substr(0, text.find('\n')));
  if (!first.empty() && first.back() == '\r') first.pop_back();
  std::stringstream hs(first);
  for (std::string h; std::getline(hs, h, ',');)
    header.push_back(h);
  return check_csv(text, name, numeric_columns(file_name, header));
}

namespace {
/// jobs.csv.gz, timeseries.csv.gz (outputs.compress): checked as the CSV file they hold.
bool is_gzip_csv(const fs::path& file)
{
  return file.extension() == ".gz" && file.stem().extension() == ".csv";
}
} // namespace

std::vector<std::string> check_output_file(const fs::path& file)
{
  if (is_gzip_csv(file)) {
    colocsim::GzipIfstream gz(file.string());
    if (!gz.is_open()) return {file.string() + ": cannot be read"};
    std::ostringstream ss;
    ss << gz.rdbuf();
    if (!gz.error().empty()) return {file.string() + ": not a complete gzip file: " + gz.error()};
    return check_csv_output(ss.str(), file.string(), file.stem().string());
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return {file.string() + ": cannot be read"};
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::string ext = file.extension().string();
  if (ext == ".json") return check_json(text, file.string());
  if (ext != ".csv") return {};
  return check_csv_output(text, file.string(), file.filename().string());
}

std::vector<std::string> check_output_tree(const fs::path& path, std::size_t* checked)
{
  std::vector<std::string> problems;
  std::size_t n = 0;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    problems.push_back(path.string() + ": no such file or directory (nothing to check)");
  } else if (fs::is_directory(path, ec)) {
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(path, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file() &&
          (it->path().extension() == ".json" || it->path().extension() == ".csv" || is_gzip_csv(it->path())))
        files.push_back(it->path());
    if (ec) problems.push_back(path.string() + ": cannot list: " + ec.message());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      auto p = check_output_file(f);
      problems.insert(problems.end(), p.begin(), p.end());
      ++n;
    }
  } else {
    problems = check_output_file(path);
    const auto ext = path.extension();
    if (ext == ".json" || ext == ".csv" || is_gzip_csv(path)) ++n;
  }
  if (checked != nullptr) *checked = n;
  return problems;
}

std::vector<std::string> check_key_values(std::string_view text, const std::string& name)
{
  std::vector<std::string> problems;
  std::size_t line = 0, pos = 0;
  while (pos < text.size()) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    const std::string l(text.substr(pos, eol - pos));
    pos = eol + 1;
    ++line;
    const auto eq = l.find('=');
    if (eq == std::string::npos) {
      problems.push_back(name + ":" + std::to_string(line) + ": expected key=value (got '" + l + "')");
      continue;
    }
    const std::string key = l.substr(0, eq), value = l.substr(eq + 1);
    if (key == "policy") continue; // the only text value
    if (!finite_number(value))
      problems.push_back(name + ":" + std::to_string(line) + ": " + key + ": not a finite number (got '" +
                         value + "')");
  }
  return problems;
}

} // namespace colocsim::test
