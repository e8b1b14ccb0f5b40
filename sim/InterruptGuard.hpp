#pragma once
// Ctrl-C and SIGTERM during a run (RunSetup::stop): the handler only records the signal; the engine reads it
// between events and stops with RunInterrupted (sim/Engine.hpp). run_scenario (sim/RunScenario.hpp) holds a
// guard while it runs; a command that works before the run (replay's demand pass) holds one around it too.
#include <csignal>
#include <string>

namespace colocsim {

/// Catches SIGINT and SIGTERM while it lives (RunSetup::stop); a second signal ends the process at once.
/// Guards nest: one made while another lives (run_scenario's inside replay's) changes nothing, so a signal
/// caught before the run (replay's demand pass) still stops it.
class InterruptGuard {
public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  /// The signal caught (0: none); throws RunInterrupted if there was one.
  static void throw_if_caught(const std::string& what);
  /// The same with the whole message: "SIGINT, " + `when` (what the command line prints after
  /// "interrupted by").
  static void stop_if_caught(const std::string& when);
  /// The signal caught since the outermost guard was made; 0: none.
  static int caught();
  static const volatile std::sig_atomic_t* flag();
  /// Installs the handlers again (after SimGrid's engine replaced them).
  static void reinstall();

private:
  struct Saved;
  Saved* saved_;
};

/// "SIGINT", "SIGTERM" or "a signal".
const char* signal_name(int sig);

} // namespace colocsim
