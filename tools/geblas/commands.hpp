// The subcommands of the geblas tool, run on parsed arguments.
#pragma once

#include "cli_args.hpp"

namespace geblas::cli {

// Runs one subcommand and prints its report to stdout. Throws geblas::Error for
// failures of the library (unreadable file, bad source vertex, ...) and CliError for
// option combinations that make no sense.
void run(const CliArgs& args);

}  // namespace geblas::cli
