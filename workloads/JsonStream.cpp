#include "workloads/JsonStream.hpp"

#include "base/Units.hpp"

#include <cstring>

namespace colocsim {

namespace {
std::string describe_char(int c)
{
  if (c == std::char_traits<char>::eof()) return "the end of the file";
  if (c == '\n') return "a line break";
  return std::string("'") + static_cast<char>(c) + "'";
}

void append_utf8(std::string& out, unsigned cp)
{
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}
} // namespace

JsonStream::JsonStream(std::istream& in, std::string file) : buf_(in.rdbuf()), file_(std::move(file)) {}

int JsonStream::get()
{
  // The stream buffer directly: istream::get() builds a sentry per character, several times slower.
  const int c = buf_ ? buf_->sbumpc() : std::char_traits<char>::eof();
  if (c == std::char_traits<char>::eof()) return c;
  ++offset_;
  // "\n", "\r\n" and a lone "\r" each end one line.
  if (c == '\r' || (c == '\n' && !after_cr_)) {
    ++line_;
    col_ = 1;
  } else if (c != '\n') {
    ++col_;
  }
  after_cr_ = c == '\r';
  return c;
}

int JsonStream::peek()
{
  return buf_ ? buf_->sgetc() : std::char_traits<char>::eof();
}

void JsonStream::skip_ws()
{
  for (int c = peek(); c == ' ' || c == '\t' || c == '\n' || c == '\r'; c = peek())
    get();
}

void JsonStream::fail(const std::string& what)
{
  throw InputError(SourceLocation{file_, line_, col_}, "json", what);
}

void JsonStream::fail_at_offset(const std::string& what)
{
  fail(what + " (at byte offset " + std::to_string(offset_) + ", counted from 0)");
}

void JsonStream::check_depth()
{
  skip_ws(); // the location is the bracket's
  if (first_.size() >= MAX_DEPTH)
    fail_at_offset(
        "objects and arrays nested more than " + std::to_string(MAX_DEPTH) +
        " deep; expected at most that many (a Batsim workload nests 4 deep, a Kubernetes pod list about 10)");
}

std::string JsonStream::number_text()
{
  skip_ws();
  std::string text;
  for (int c = peek(); c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9');
       c = peek()) {
    if (text.size() >= MAX_TOKEN_BYTES)
      fail_at_offset("number longer than " + std::to_string(MAX_TOKEN_BYTES) + " bytes; expected a number");
    text += static_cast<char>(get());
  }
  return text;
}

SourceLocation JsonStream::where()
{
  skip_ws();
  return SourceLocation{file_, line_, col_};
}

void JsonStream::expect_char(char c, const char* context)
{
  skip_ws();
  const int got = peek();
  if (got != c) fail(std::string("expected '") + c + "' " + context + " (got " + describe_char(got) + ")");
  get();
}

JsonStream::Kind JsonStream::peek_kind()
{
  skip_ws();
  const int c = peek();
  switch (c) {
  case '{':
    return Kind::OBJECT;
  case '[':
    return Kind::ARRAY;
  case '"':
    return Kind::STRING;
  case 't':
  case 'f':
    return Kind::BOOL;
  case 'n':
    return Kind::NUL;
  default:
    if (c == '-' || (c >= '0' && c <= '9')) return Kind::NUMBER;
    fail("expected a value (object, array, string, number, true, false or null) (got " + describe_char(c) +
         ")");
  }
}

void JsonStream::begin_object()
{
  check_depth();
  expect_char('{', "to open an object");
  first_.push_back(true);
}

bool JsonStream::next_member(std::string& key)
{
  skip_ws();
  if (peek() == '}') {
    get();
    first_.pop_back();
    return false;
  }
  if (!first_.back()) expect_char(',', "or '}' after an object member");
  first_.back() = false;
  skip_ws();
  if (peek() != '"') fail("expected a member name in double quotes (got " + describe_char(peek()) + ")");
  key = string_value();
  expect_char(':', "after a member name");
  return true;
}

void JsonStream::begin_array()
{
  check_depth();
  expect_char('[', "to open an array");
  first_.push_back(true);
}

bool JsonStream::next_element()
{
  skip_ws();
  if (peek() == ']') {
    get();
    first_.pop_back();
    return false;
  }
  if (!first_.back()) expect_char(',', "or ']' after an array element");
  first_.back() = false;
  return true;
}

std::string JsonStream::string_value()
{
  expect_char('"', "to open a string");
  std::string out;
  auto hex4 = [&]() {
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = get();
      v <<= 4;
      if (h >= '0' && h <= '9')
        v |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f')
        v |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        v |= static_cast<unsigned>(h - 'A' + 10);
      else
        fail("expected 4 hexadecimal digits after \\u (got " + describe_char(h) + ")");
    }
    return v;
  };
  while (true) {
    if (out.size() >= MAX_TOKEN_BYTES && peek() != '"')
      fail_at_offset("string longer than " + std::to_string(MAX_TOKEN_BYTES) +
                     " bytes; expected a name or a short text");
    const int c = get();
    if (c == std::char_traits<char>::eof() || c == '\n') fail("unterminated string; expected a closing '\"'");
    if (c == '"') return out;
    if (c != '\\') {
      out += static_cast<char>(c);
      continue;
    }
    const int e = get();
    switch (e) {
    case '"':
    case '\\':
    case '/':
      out += static_cast<char>(e);
      break;
    case 'b':
      out += '\b';
      break;
    case 'f':
      out += '\f';
      break;
    case 'n':
      out += '\n';
      break;
    case 'r':
      out += '\r';
      break;
    case 't':
      out += '\t';
      break;
    case 'u': {
      unsigned cp = hex4();
      if (cp >= 0xD800 && cp < 0xDC00) { // surrogate pair
        if (get() != '\\' || get() != 'u')
          fail("expected a low surrogate \\uDC00..\\uDFFF after a high surrogate");
        const unsigned lo = hex4();
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      }
      append_utf8(out, cp);
      break;
    }
    default:
      fail("unknown escape \\" + std::string(1, static_cast<char>(e)) + " in a string");
    }
  }
}

double JsonStream::number_value()
{
  const std::string text = number_text();
  const auto v = parse_double(text);
  if (text.empty() || !v) fail("expected a number (got '" + text + "')");
  return *v;
}

void JsonStream::literal(const char* word)
{
  skip_ws();
  for (const char* p = word; *p; ++p)
    if (get() != *p) fail(std::string("expected '") + word + "'");
}

bool JsonStream::bool_value()
{
  skip_ws();
  if (peek() == 't') {
    literal("true");
    return true;
  }
  literal("false");
  return false;
}

void JsonStream::null_value()
{
  literal("null");
}

std::string JsonStream::scalar_text()
{
  switch (peek_kind()) {
  case Kind::STRING:
    return string_value();
  case Kind::NUMBER: {
    std::string text = number_text();
    if (!parse_double(text)) fail("expected a number (got '" + text + "')");
    return text;
  }
  case Kind::BOOL:
    return bool_value() ? "true" : "false";
  case Kind::NUL:
    null_value();
    return "null";
  default:
    fail("expected a string or a number, not an object or array");
  }
}

void JsonStream::skip_value()
{
  std::string key;
  switch (peek_kind()) {
  case Kind::OBJECT:
    begin_object();
    while (next_member(key))
      skip_value();
    break;
  case Kind::ARRAY:
    begin_array();
    while (next_element())
      skip_value();
    break;
  case Kind::STRING:
    string_value();
    break;
  case Kind::NUMBER:
    number_value();
    break;
  case Kind::BOOL:
    bool_value();
    break;
  case Kind::NUL:
    null_value();
    break;
  }
}

void JsonStream::expect_end()
{
  skip_ws();
  if (peek() != std::char_traits<char>::eof())
    fail("unexpected " + describe_char(peek()) + " after the end of the document");
}

} // namespace colocsim
