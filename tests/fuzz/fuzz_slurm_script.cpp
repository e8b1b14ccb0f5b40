// libFuzzer harness: the Slurm script writer of `colocsim sweep --slurm` (docs/sweeps.md,
// tests/fuzz/README.md). The input is split at NUL bytes into four texts that become what a user controls and
// the scripts carry: the spec's `name`, a `set: description:` value every run gets, the name of the directory
// the sweep is prepared in and of the spec file (one text, both), and the colocsim executable (COLOCSIM_EXE).
// Each is prefixed with a space, so that it always needs quoting. The sweep is written with `colocsim sweep
// SPEC
// --slurm` into a fixed directory, and its array.sh, collect.sh and submit.sh must pass a strict check that
// runs no shell:
//   - every byte is printable ASCII or a newline (a carriage return, a non-UTF-8 byte: never raw);
//   - a shell skeleton of each line (every quoted word, '...' or $'...', closing on its own line, becomes Q;
//     a comment becomes '#'; an #SBATCH line stays whole but for the job name, which must be made of
//     [A-Za-z0-9._-]) equals, line by line, the skeleton of the same sweep written with plain texts: user
//     text only ever sits inside a quoted word of one line, never in the shell around it.
// tests/sim/SlurmHostile.sh runs `bash -n` and the tasks themselves on hostile texts (too slow here).
#include "cli/CliCommands.hpp"
#include "tests/fuzz/FuzzCommon.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {
namespace fs = std::filesystem;

/// The four texts of an input (missing ones are empty).
std::vector<std::string> split_input(std::string_view bytes)
{
  std::vector<std::string> parts(4);
  std::size_t k = 0;
  for (char c : bytes) {
    if (c == '\0') {
      if (++k == parts.size()) break;
      continue;
    }
    parts[k] += c;
  }
  return parts;
}

/// `s` as a YAML double-quoted scalar, every byte as \xHH (bytes above 0x7f become those code points).
std::string yaml_escaped(const std::string& s)
{
  static const char* const HEX = "0123456789abcdef";
  std::string q = "\"";
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    q += std::string("\\x") + HEX[b >> 4] + HEX[b & 15];
  }
  return q + "\"";
}

/// Aborts with the script and the reason: a finding.
[[noreturn]] void finding(const std::string& script, const std::string& text, const std::string& why)
{
  std::cerr << "fuzz_slurm_script: " << script << ": " << why << "\n--- script ---\n" << text << "\n---\n";
  std::abort();
}

/// The skeleton of one script (see the top of the file), one entry a line; aborts on a quoted word that does
/// not close on its line or a byte that is not printable ASCII.
std::vector<std::string> skeleton(const std::string& name, const std::string& text)
{
  for (char c : text)
    if (c != '\n' && !(c >= 0x20 && c < 0x7f)) finding(name, text, "a byte that is not printable ASCII");
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::string job = "#SBATCH --job-name=";
    if (line.rfind(job, 0) == 0) {
      const std::string v = line.substr(job.size());
      if (v.empty() ||
          v.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
              std::string::npos)
        finding(name, text, "a job name outside [A-Za-z0-9._-]: " + v);
      lines.push_back(job + "J");
      continue;
    }
    if (line.rfind("#SBATCH", 0) == 0 || line.rfind("#!", 0) == 0) {
      lines.push_back(line);
      continue;
    }
    std::string sk;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      const bool word_start = i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t' || line[i - 1] == ';';
      if (c == '#' && word_start) { // a comment: to the end of the line
        sk += "#";
        break;
      }
      if (c == '\'' || (c == '$' && i + 1 < line.size() && line[i + 1] == '\'')) {
        const bool ansi = c == '$';
        std::size_t j = i + (ansi ? 2 : 1);
        while (j < line.size() && line[j] != '\'')
          j += ansi && line[j] == '\\' ? 2 : 1;
        if (j >= line.size()) finding(name, text, "a quoted word that does not close on its line: " + line);
        sk += "Q";
        i = j;
      } else if (c == '"') { // the writer's own double-quoted text: kept as it is
        std::size_t j = i + 1;
        while (j < line.size() && line[j] != '"')
          j += line[j] == '\\' ? 2 : 1;
        if (j >= line.size())
          finding(name, text, "a double-quoted word that does not close on its line: " + line);
        sk += line.substr(i, j - i + 1);
        i = j;
      } else if (c == '\\' && i + 1 < line.size()) {
        sk += line.substr(i, 2);
        ++i;
      } else
        sk += c;
    }
    // shell_quote writes a ' inside a value as '\'' (close, an escaped quote, reopen): still one word.
    for (std::size_t at; (at = sk.find("Q\\'Q")) != std::string::npos;)
      sk.replace(at, 4, "Q");
    lines.push_back(sk);
  }
  return lines;
}

/// Writes the sweep of the four texts with --slurm and returns the skeletons of its three scripts; the
/// expected empty vector when colocsim refused the input (an InputError or UsageError: e.g. a description
/// the scenario does not take).
std::vector<std::vector<std::string>> write_and_read(const std::vector<std::string>& texts)
{
  using namespace colocsim;
  const fs::path root = fuzz::temp_dir();
  std::string dir_name = " " + texts[2];
  for (auto& c : dir_name)
    if (c == '/') c = '_';
  if (dir_name.size() > 200) dir_name.resize(200);
  const fs::path cwd = root / ("cwd" + dir_name);
  std::error_code ec;
  fs::remove_all(root / "out", ec);
  fs::create_directories(cwd, ec);
  if (ec) return {};
  std::string name = " " + texts[0];
  for (auto& c : name)
    if (c == '/') c = '_';
  const std::string spec_file = "spec" + dir_name + ".yaml";
  fuzz::write_file(cwd / spec_file, "name: " + yaml_escaped(name) +
                                        "\nscenario: ../base.yaml\nset:\n  description: " +
                                        yaml_escaped(" " + texts[1]) + "\nseeds: [1, 2]\n");
  ::setenv("COLOCSIM_EXE", (" " + texts[3]).c_str(), 1);
  const fs::path before = fs::current_path();
  fs::current_path(cwd);
  std::ostringstream out;
  bool refused = false;
  try {
    (void)cmd_sweep({spec_file, "--slurm", "-o", (root / "out").string(), "--partition", "debug", "--time",
                     "10", "--runs-per-task", "1"},
                    out);
  } catch (const InputError&) {
    refused = true;
  } catch (const UsageError&) {
    refused = true;
  }
  fs::current_path(before);
  fs::remove_all(cwd, ec);
  if (refused) return {};
  std::vector<std::vector<std::string>> sk;
  for (const char* f : {"array.sh", "collect.sh", "submit.sh"}) {
    std::ifstream in(root / "out" / "slurm" / f, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    sk.push_back(skeleton(f, text.str()));
  }
  return sk;
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
  using namespace colocsim;
  fuzz::copy_sweep_fixtures();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  static const std::vector<std::vector<std::string>> reference =
      write_and_read({"plain name", "plain description", "plain dir", "/plain/colocsim"});
  if (reference.size() != 3) std::abort(); // the plain sweep must be written
  const auto sk = write_and_read(split_input(colocsim::fuzz::as_text(data, size)));
  if (sk.empty()) return 0;
  static const char* const names[] = {"array.sh", "collect.sh", "submit.sh"};
  for (std::size_t s = 0; s < 3; ++s) {
    if (sk[s].size() != reference[s].size()) {
      std::cerr << "fuzz_slurm_script: " << names[s] << " has " << sk[s].size() << " lines, the plain one "
                << reference[s].size() << "\n";
      std::abort();
    }
    for (std::size_t i = 0; i < sk[s].size(); ++i)
      if (sk[s][i] != reference[s][i]) {
        std::cerr << "fuzz_slurm_script: " << names[s] << " line " << i + 1
                  << " is shell made of user text:\n  " << sk[s][i] << "\nwhere the plain sweep has\n  "
                  << reference[s][i] << "\n";
        std::abort();
      }
  }
  return 0;
}
