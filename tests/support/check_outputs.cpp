// colocsim_check_outputs PATH...: parses every .json and .csv file under each PATH (a directory,
// recursively, or a file) with the strict checks of StrictFormats.hpp; prints each problem and exits 1 if
// there is one, 2 on a usage error, 0 otherwise. The CMake-script and shell tests run it on what they wrote
// (CONTRIBUTING.md, Tests).
#include "tests/support/StrictFormats.hpp"

#include <cstdio>
#include <string>

int main(int argc, char** argv)
{
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PATH...  (directories are searched for .json and .csv files)\n", argv[0]);
    return 2;
  }
  std::size_t files = 0, bad = 0;
  for (int i = 1; i < argc; ++i) {
    std::size_t n = 0;
    for (const auto& p : colocsim::test::check_output_tree(argv[i], &n)) {
      std::fprintf(stderr, "%s\n", p.c_str());
      ++bad;
    }
    files += n;
  }
  std::printf("checked %zu output files: %zu problems\n", files, bad);
  return bad == 0 ? 0 : 1;
}
