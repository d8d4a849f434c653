// The `poolconv` tool's commands, apart from the process that runs them (main.cpp), so that the
// fuzz target fuzz_cli runs exactly what the tool runs.
#pragma once

#include <string>

namespace poolconv::cli {

// Parses and runs one command line (argv[0] is the program name): prints help, the version or a
// shape, or reads the .npy inputs, runs the operator and writes the outputs, all or none of them.
// Returns the exit status of a success (0); throws UsageError (exit status 2) or poolconv::Error
// (exit status 1) naming the problem.
int run_command_line(int argc, const char *const argv[]);

// Writes "poolconv: <message>" on stderr as one line (line breaks in the message become spaces).
void print_line(const std::string &message);

}  // namespace poolconv::cli
