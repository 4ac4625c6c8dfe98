// SIGINT and SIGTERM for the commands that stop cleanly on them (run, validate, merge): the
// handler sets interrupt_requested(), which their work checks between steps; they then end with
// exit code 130, having kept or removed what their message says. The other commands (check, info,
// compare, help) write nothing and keep the default action, so that Ctrl-C ends them at once:
// installed for every command, it swallowed the signal, and a long compare ran on to its end.
#pragma once

#include <csignal>

#include "host/run/run_driver.hpp"

namespace rbmc::cli {

extern "C" inline void set_interrupt_requested(int) { interrupt_requested() = true; }

// Installed even where SIGINT was ignored at start, as a script's `rbmc run ... &` starts (POSIX,
// without job control): a Ctrl-C on the script then stops its runs cleanly, their finished work
// kept for --resume, rather than leave them running on unseen. Leaving SIG_IGN in place was tried
// and reverted (bench/RESULTS.md, sixty-third session); the CLI tests' interrupts rely on this.
inline void stop_cleanly_on_signals() {
  std::signal(SIGINT, set_interrupt_requested);
  std::signal(SIGTERM, set_interrupt_requested);
}

}  // namespace rbmc::cli
