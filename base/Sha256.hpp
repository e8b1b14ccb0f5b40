#pragma once
// SHA-256 (FIPS 180-4, "Secure Hash Standard", NIST 2015, §6.2) of a byte string or a file, as 64 lowercase
// hex digits. Used to name the exact code of a policy plugin in a run's results (policies/README.md,
// "Plugins"); no crypto library is linked for it. Test: tests/base/Sha256_test.cpp (the FIPS 180-2
// appendix vectors, and a file read in pieces against the same bytes hashed at once).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace colocsim {

/// Incremental SHA-256: add() any number of times, then hex() once.
class Sha256 {
public:
  Sha256();
  void add(const void* data, std::size_t n);
  void add(std::string_view s) { add(s.data(), s.size()); }
  /// The digest as 64 lowercase hex digits (ends the computation).
  std::string hex();

private:
  void block(const unsigned char* p);
  std::uint32_t h_[8];
  unsigned char buf_[64];
  std::size_t buffered_ = 0;
  std::uint64_t bytes_ = 0;
};

std::string sha256_hex(std::string_view bytes);

/// The SHA-256 of a file's bytes; nullopt if it cannot be read.
std::optional<std::string> sha256_file(const std::string& path);

} // namespace colocsim
