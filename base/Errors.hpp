#pragma once
// Typed errors for bad user input. Every message names where the problem is (file:line:col and the
// path of the key or field), what is wrong and what was expected, so a user can fix it without reading
// the source. Loaders collect all problems of a file in a DiagnosticSink and throw one InputError.
#include <stdexcept>
#include <string>
#include <vector>

namespace colocsim {

/// A place in an input file. line and col are 1-based; 0 means unknown (then it is not printed).
struct SourceLocation {
  std::string file;
  int line = 0;
  int col = 0;
  std::string to_string() const; ///< "file:line:col", "file:line" or "file"
};

/// One problem in an input: `file:line:col: path: message`.
struct Diagnostic {
  SourceLocation where;
  std::string path; ///< yaml.path.of.key or CSV field name; may be empty
  std::string message;
  std::string to_string() const;
};

/// Thrown for invalid user input (scenario, trace, catalog, calibration, CLI). Holds every problem found.
class InputError : public std::runtime_error {
public:
  explicit InputError(std::vector<Diagnostic> diagnostics);
  InputError(SourceLocation where, std::string path, std::string message);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

private:
  std::vector<Diagnostic> diagnostics_;
};

/// Thrown when a policy returns a decision the engine cannot apply (names the policy and the decision).
class DecisionError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Collects diagnostics; throw_if_any() throws one InputError with all of them.
class DiagnosticSink {
public:
  void add(Diagnostic d) { diagnostics_.push_back(std::move(d)); }
  void add(SourceLocation where, std::string path, std::string message);
  bool empty() const { return diagnostics_.empty(); }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  void throw_if_any() const;

private:
  std::vector<Diagnostic> diagnostics_;
};

/// "a, b, c" — for "valid: ..." lists in messages.
std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");

} // namespace colocsim
