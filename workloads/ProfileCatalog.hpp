#pragma once
// The profile catalog: how each kind of job behaves on its reference device when it runs alone (its
// ResourceSignature), by name. Traces name a profile per job; the catalog says what that name means.
// Format (every number carries an evidence tag and a source): docs/formats/profiles.md. The bundled
// catalog is workloads/profiles/default.yaml (sources: docs/sources.md).
#include "models/Errors.hpp"
#include "models/ResourceSignature.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colocsim {

struct Profile {
  std::string name;
  std::string description;
  ResourceSignature sig;
  /// Provenance of every number, one entry per key: "mem: measurement; CARMA-README (DGX Station A100)".
  std::vector<std::string> sources;
  SourceLocation origin; ///< where the profile is defined (file:line:col of its key)
};

class ProfileCatalog {
public:
  /// The format tag a catalog file must carry (`format: colocsim-profiles/1`).
  static constexpr std::string_view FORMAT = "colocsim-profiles/1";

  /// Parses a catalog (YAML text; `file` is used in messages). Throws one InputError listing every
  /// problem found (`file:line:col: profiles.name.key: ...`).
  static ProfileCatalog load(std::string_view yaml_text, const std::string& file);
  /// Reads and parses the file at `path`; throws InputError if it cannot be read.
  static ProfileCatalog load_file(const std::string& path);

  /// The profile called `name`, or nullptr.
  const Profile* find(std::string_view name) const;
  /// The profile called `name`; throws InputError at `where_used` (path "profile") naming the valid
  /// profiles if there is none.
  const Profile& at(std::string_view name, const SourceLocation& where_used) const;
  /// Position of `name` in profiles() (stable for the catalog's lifetime), or nullopt.
  std::optional<std::size_t> index_of(std::string_view name) const;

  /// Profiles sorted by name.
  const std::vector<Profile>& profiles() const { return profiles_; }
  std::vector<std::string> names() const; ///< sorted
  std::size_t size() const { return profiles_.size(); }

private:
  std::vector<Profile> profiles_; // sorted by name, names unique
};

} // namespace colocsim
