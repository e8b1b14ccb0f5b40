// SHA-256 (base/Sha256.hpp) against known digests: the FIPS 180-2 appendix B vectors ("abc", the 448-bit
// and 896-bit messages, a million 'a'), the empty string, and messages of 'a' whose lengths straddle the
// padding boundaries (55/56 bytes: the length still fits in the last block or not; 63/64/65, 119/120),
// whose digests were computed independently with Python's hashlib.sha256(b'a' * n).hexdigest().
#include "base/Sha256.hpp"
#include "tests/CatchCompat.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace colocsim;

TEST_CASE("sha256 gives the FIPS 180-2 digests", "[sha256]")
{
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmn"
            "opqrsmnopqrstnopqrstu") == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  CHECK(sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256 pads correctly at every block boundary", "[sha256]")
{
  const std::pair<std::size_t, const char*> cases[] = {
      {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
      {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
  };
  for (const auto& [n, digest] : cases) {
    INFO(n << " bytes");
    CHECK(sha256_hex(std::string(n, 'a')) == digest);
    // The same bytes added one at a time give the same digest.
    Sha256 h;
    for (std::size_t i = 0; i < n; ++i)
      h.add("a", 1);
    CHECK(h.hex() == digest);
  }
}

TEST_CASE("sha256 of a file is the digest of its bytes, and a missing file has none", "[sha256]")
{
  const auto file =
      std::filesystem::temp_directory_path() / ("colocsim-sha256-" + std::to_string(::getpid()) + ".bin");
  {
    std::ofstream f(file, std::ios::binary);
    f << std::string(1000000, 'a'); // more than one 64 KiB read
  }
  CHECK(sha256_file(file.string()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  std::filesystem::remove(file);
  CHECK_FALSE(sha256_file(file.string()).has_value());
}
