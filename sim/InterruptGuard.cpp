// Ctrl-C and SIGTERM during a run (sim/InterruptGuard.hpp).
#include "sim/InterruptGuard.hpp"

#include "sim/Engine.hpp"

#include <signal.h>

namespace colocsim {

namespace {
volatile std::sig_atomic_t caught_signal = 0;

extern "C" void on_interrupt(int sig)
{
  if (caught_signal != 0) { // a second Ctrl-C: stop now, the default way
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  caught_signal = sig;
}

int guards_alive = 0; ///< InterruptGuards alive: only the outermost clears the flag and restores handlers
} // namespace

const char* signal_name(int sig)
{
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

struct InterruptGuard::Saved {
  struct sigaction old_int {
  }, old_term{};
};

InterruptGuard::InterruptGuard() : saved_(guards_alive++ == 0 ? new Saved : nullptr)
{
  if (!saved_) return; // inside another guard (replay's, around the run's): a signal caught stays caught
  caught_signal = 0;
  sigaction(SIGINT, nullptr, &saved_->old_int);
  sigaction(SIGTERM, nullptr, &saved_->old_term);
  reinstall();
}

InterruptGuard::~InterruptGuard()
{
  --guards_alive;
  if (!saved_) return;
  sigaction(SIGINT, &saved_->old_int, nullptr);
  sigaction(SIGTERM, &saved_->old_term, nullptr);
  delete saved_;
}

void InterruptGuard::reinstall()
{
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

const volatile std::sig_atomic_t* InterruptGuard::flag()
{
  return &caught_signal;
}

int InterruptGuard::caught()
{
  return caught_signal;
}

void InterruptGuard::throw_if_caught(const std::string& what)
{
  if (caught_signal != 0) throw RunInterrupted(caught_signal, what);
}

void InterruptGuard::stop_if_caught(const std::string& when)
{
  if (caught_signal != 0)
    throw RunInterrupted(caught_signal, std::string(signal_name(caught_signal)) + ", " + when);
}

} // namespace colocsim
