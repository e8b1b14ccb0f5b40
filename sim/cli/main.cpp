// colocsim: see sim/Cli.cpp and README.md.
#include "sim/cli/Cli.hpp"

#include <iostream>

int main(int argc, char** argv)
{
  std::ios::sync_with_stdio(false);
  return colocsim::run_cli(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
