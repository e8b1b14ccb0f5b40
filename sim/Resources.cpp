#include "sim/Resources.hpp"

#include "base/Errors.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace colocsim {

const std::vector<EmbeddedFile>& embedded_data(); // generated (cmake/EmbedFiles.cmake)

const std::vector<EmbeddedFile>& embedded_files()
{
  return embedded_data();
}

namespace {
constexpr std::string_view BUILTIN = "builtin:";

std::optional<std::string_view> find_embedded(std::string_view path)
{
  for (const auto& f : embedded_files())
    if (f.path == path) return f.text;
  return std::nullopt;
}

} // namespace

bool is_path(const std::string& ref)
{
  auto ends = [&](std::string_view s) {
    return ref.size() >= s.size() && ref.compare(ref.size() - s.size(), s.size(), s) == 0;
  };
  return ref.find('/') != std::string::npos || ends(".yaml") || ends(".yml") || ends(".csv") ||
         ends(".swf") || ref.rfind(BUILTIN, 0) == 0;
}

std::vector<std::string> bundled_names(std::string_view dir)
{
  std::vector<std::string> names;
  const std::string prefix = std::string(dir) + "/";
  for (const auto& f : embedded_files()) {
    if (f.path.rfind(prefix, 0) != 0) continue;
    std::string_view rest = f.path.substr(prefix.size());
    if (rest.find('/') != std::string_view::npos || rest.size() < 6 ||
        rest.substr(rest.size() - 5) != ".yaml")
      continue;
    names.emplace_back(rest.substr(0, rest.size() - 5));
  }
  std::sort(names.begin(), names.end());
  return names;
}

TextFile read_text_file(const std::string& path)
{
  if (path.rfind(BUILTIN, 0) == 0) {
    auto text = find_embedded(std::string_view(path).substr(BUILTIN.size()));
    if (!text) throw InputError(SourceLocation{path}, "", "no such bundled file");
    return TextFile{path, std::string(*text)};
  }
  // A directory, FIFO or device (/dev/zero) would read as nothing or never end: regular files only.
  std::error_code ec;
  if (const auto st = std::filesystem::status(path, ec);
      !ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
    throw InputError(SourceLocation{path}, "",
                     "not a regular file (a directory, FIFO or device); expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLocation{path}, "", "cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return TextFile{path, ss.str()};
}

std::string parent_dir(const std::string& file)
{
  const auto slash = file.rfind('/');
  if (file.rfind(BUILTIN, 0) == 0)
    return slash == std::string::npos ? std::string(BUILTIN) : file.substr(0, slash);
  return slash == std::string::npos ? std::string(".") : file.substr(0, slash);
}

TextFile load_named(const std::string& ref, std::string_view dir, const std::string& what,
                    const std::string& base_dir, const SourceLocation& where)
{
  if (!is_path(ref)) {
    const std::string path = std::string(dir) + "/" + ref + ".yaml";
    if (auto text = find_embedded(path)) return TextFile{std::string(BUILTIN) + path, std::string(*text)};
    throw InputError(where, what,
                     "unknown " + what + " '" + ref + "'; valid: " + join(bundled_names(dir)) +
                         " (or a path to a .yaml file)");
  }
  std::string path = ref;
  if (ref.rfind(BUILTIN, 0) != 0 && !std::filesystem::path(ref).is_absolute() && !base_dir.empty())
    path = base_dir + "/" + ref;
  try {
    return read_text_file(path);
  } catch (const InputError& e) {
    throw InputError(where, what,
                     "cannot read " + what + " file '" + path + "': " + e.diagnostics().front().message);
  }
}

} // namespace colocsim
