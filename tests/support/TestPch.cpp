// The translation unit that compiles the test suites' precompiled header (tests/CMakeLists.txt,
// COLOCSIM_TEST_PCH); it has no code of its own.
namespace colocsim::test {
} // namespace colocsim::test
