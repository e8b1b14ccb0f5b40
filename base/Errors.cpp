#include "base/Errors.hpp"

namespace colocsim {

std::string SourceLocation::to_string() const
{
  std::string s = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (col > 0) s += ":" + std::to_string(col);
  }
  return s;
}

std::string Diagnostic::to_string() const
{
  std::string s = where.to_string() + ": ";
  if (!path.empty()) s += path + ": ";
  return s + message;
}

static std::string format_all(const std::vector<Diagnostic>& ds)
{
  std::string s;
  for (const auto& d : ds) {
    if (!s.empty()) s += "\n";
    s += d.to_string();
  }
  return s;
}

InputError::InputError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(format_all(diagnostics)), diagnostics_(std::move(diagnostics))
{
}

InputError::InputError(SourceLocation where, std::string path, std::string message)
    : InputError(std::vector<Diagnostic>{Diagnostic{std::move(where), std::move(path), std::move(message)}})
{
}

void DiagnosticSink::add(SourceLocation where, std::string path, std::string message)
{
  diagnostics_.push_back(Diagnostic{std::move(where), std::move(path), std::move(message)});
}

void DiagnosticSink::throw_if_any() const
{
  if (!diagnostics_.empty()) throw InputError(diagnostics_);
}

std::string join(const std::vector<std::string>& items, const std::string& sep)
{
  std::string s;
  for (const auto& i : items) {
    if (!s.empty()) s += sep;
    s += i;
  }
  return s;
}

} // namespace colocsim
