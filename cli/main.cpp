// poolconv: MaxPool / AvgPool / Convolution on .npy files, and shape inference. Run `poolconv --help`.
#include <signal.h>

#include <exception>
#include <new>

#include "cli/commands.h"
#include "cli/options.h"

int main(int argc, char **argv) {
    using poolconv::cli::print_line;
    ::signal(SIGPIPE, SIG_IGN);  // a closed stdout becomes a write error (exit 1), not a signal
    try {
        return poolconv::cli::run_command_line(argc, argv);
    } catch (const poolconv::cli::UsageError &e) {
        print_line(e.what());
        return 2;
    } catch (const std::bad_alloc &) {
        print_line("out of memory");
        return 1;
    } catch (const std::exception &e) {
        print_line(e.what());
        return 1;
    } catch (...) {
        print_line("internal error (unknown exception)");
        return 1;
    }
}
