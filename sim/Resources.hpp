#pragma once
// Data shipped inside the binary (device catalog, calibrations, platform presets, profile catalogs, the
// default scenario) and the rule that resolves a name or a path written in a scenario:
//   * a bare name ("max1550-aurora-default") is a bundled file <dir>/<name>.yaml;
//   * anything with a '/' or a .yaml/.csv suffix is a path, relative to the scenario's directory.
// Bundled files are addressed as "builtin:<path in the repository>" in messages and in outputs.
#include "base/EmbeddedFile.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colocsim {

const std::vector<EmbeddedFile>& embedded_files();

struct TextFile {
  std::string name; ///< as shown in messages: a path, or builtin:<path>
  std::string text;
};

/// Names of the bundled files in `dir` (without .yaml), sorted.
std::vector<std::string> bundled_names(std::string_view dir);

/// Whether `ref` is a path (a '/', a .yaml/.yml/.csv/.swf suffix, or builtin:) rather than a bundled name.
bool is_path(const std::string& ref);

/// Resolves `ref` as described above. `what` names the kind of file for messages ("calibration").
/// `base_dir` is the scenario's directory ("builtin:<dir>" for a bundled scenario); "" for a path typed on
/// the command line (relative to the current directory, and named as typed). Throws InputError (at `where`)
/// if it cannot be found or read.
TextFile load_named(const std::string& ref, std::string_view dir, const std::string& what,
                    const std::string& base_dir, const struct SourceLocation& where);

/// Reads a file by path (or builtin:<path>).
TextFile read_text_file(const std::string& path);

/// Directory part of a file name, keeping a builtin: prefix ("builtin:a/b.yaml" → "builtin:a").
std::string parent_dir(const std::string& file);

} // namespace colocsim
