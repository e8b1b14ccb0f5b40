#pragma once
// A minimal pull parser for JSON (RFC 8259) read from a stream, one character at a time, so that a large
// array (a Batsim workload's jobs) can be walked element by element in O(1) memory. It knows the line and
// column of every value for messages. It is not a DOM: the caller walks objects and arrays with
// begin_object()/next_member() and begin_array()/next_element(), reads scalars, and skips what it does
// not need with skip_value(). Errors throw InputError at `file:line:col` with path "json".
//
// Bounds, so that no input crashes or exhausts memory: objects and arrays nest at most MAX_DEPTH deep
// (skip_value() recurses once per level), and a string or number is at most MAX_TOKEN_BYTES long. Both
// errors also give the byte offset, since such files are often one long line.
#include "base/Errors.hpp"

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

namespace colocsim {

class JsonStream {
public:
  enum class Kind { OBJECT, ARRAY, STRING, NUMBER, BOOL, NUL };

  /// Deepest nesting of objects and arrays accepted. A Batsim workload needs 4 (workload, profiles,
  /// profile, seq); 64 leaves room for any extra data a tool stores, yet keeps skip_value()'s recursion
  /// a few kilobytes of stack.
  static constexpr std::size_t MAX_DEPTH = 64;
  /// Longest string or number accepted, in bytes: 1 MiB, as the longest line of the line-based readers.
  static constexpr std::size_t MAX_TOKEN_BYTES = std::size_t{1} << 20;

  /// The stream must outlive the parser; the parser reads its buffer from the current position.
  JsonStream(std::istream& in, std::string file);

  /// Kind of the next value (skips white space; does not consume). Throws at the end of input or on a
  /// character that cannot start a value.
  Kind peek_kind();
  /// Location of the next value (after white space).
  SourceLocation where();

  void begin_object();                ///< consumes '{'
  bool next_member(std::string& key); ///< reads `"key":` (after a ',' if needed); false at '}' (consumed)
  void begin_array();                 ///< consumes '['
  bool next_element();                ///< positions at the next element; false at ']' (consumed)

  std::string string_value(); ///< a JSON string, escapes decoded (\uXXXX to UTF-8)
  double number_value();
  bool bool_value();
  void null_value();
  /// A scalar's text: strings decoded, numbers as written, true/false/null as words. Throws for objects
  /// and arrays.
  std::string scalar_text();
  void skip_value(); ///< skips any value, nested ones included
  /// Checks that only white space is left.
  void expect_end();

  const std::string& file() const { return file_; }

private:
  int get();  ///< next character or EOF, tracking line/column
  int peek(); ///< next character or EOF
  void skip_ws();
  [[noreturn]] void fail(const std::string& what);
  [[noreturn]] void fail_at_offset(const std::string& what); ///< fail() with the byte offset
  void check_depth();        ///< before an opening bracket: fails if it would go past MAX_DEPTH
  std::string number_text(); ///< a number's characters, bounded
  void expect_char(char c, const char* context);
  void literal(const char* word);

  std::streambuf* buf_; ///< read directly (the stream's position is the buffer's)
  std::string file_;
  int line_ = 1, col_ = 1;
  unsigned long long offset_ = 0; ///< bytes consumed
  bool after_cr_ = false;         ///< the last character was '\r' (a following '\n' ends no new line)
  /// One entry per open object/array: true until its first member/element has been read.
  std::vector<bool> first_;
};

} // namespace colocsim
