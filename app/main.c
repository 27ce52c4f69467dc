/* cmrs: entry point. Dispatches to a subcommand (git-style) and is the only
 * place that prints errors and chooses the exit code. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/outputs.h"
#include "commands.h"
#include "mpi_launch.h"
#include "notes.h"

#ifndef CMRS_VERSION
#define CMRS_VERSION "unknown"
#endif

typedef struct command {
    const char *name;
    cmrs_command_fn fn;
    const char *summary;
} command;

static const command k_commands[] = {
    {"solve", cmd_solve, "solve A x = b with PCG or BiCGStab (GPU or CPU)"},
    {"compare", cmd_compare, "time-to-solution of CMRS against cuSPARSE CSR"},
    {"bench", cmd_bench, "time the SpMV of every format (GFLOPS, eta+-)"},
    {"sweep", cmd_sweep, "parameter studies: formats x heights x ... to CSV/JSON"},
    {"info", cmd_info, "matrix statistics and the CMRS performance model"},
    {"convert", cmd_convert, "Matrix Market (or HDF5) to the native HDF5 layout"},
    {"gen", cmd_gen, "generate test systems (vessel, poisson3d, convdiff)"},
};
#define N_COMMANDS (sizeof k_commands / sizeof k_commands[0])

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cmrs <command> [options] [FILE]\n"
            "       cmrs <command> --help | cmrs --help | cmrs --version\n\n"
            "GPU solver for sparse linear systems from CFD (pressure equation),\n"
            "with the CMRS (Compressed Multi-Row Storage) SpMV format.\n\n"
            "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; ++i)
        fprintf(f, "  %-9s %s\n", k_commands[i].name, k_commands[i].summary);
    fprintf(f,
            "\nexit codes: 0 success/converged, 1 not converged, 2 bad input "
            "or usage,\n            3 breakdown or NaN/Inf, 4 GPU or runtime "
            "failure (incl. out of memory),\n            130 interrupted "
            "(SIGINT), 143 terminated (SIGTERM)\n"
            "Set CMRS_TRACE=1 to see where an error was detected.\n");
}

static int report(cmrs_code rc)
{
    app_notes_drop(); /* one line: the error */
    fprintf(stderr, "cmrs: error: %s", cmrs_error_message());
    const char *trace = getenv("CMRS_TRACE");
    if (trace && *trace && strcmp(trace, "0") != 0)
        fprintf(stderr, " [%s]", cmrs_error_traceback());
    fputc('\n', stderr);
    return cmrs_exit_code(rc);
}

/* SIGINT/SIGTERM in any phase of a command (reading, iterating, writing):
 * its temporary files are removed (io/outputs.h; a commit in progress
 * holds the signal until it is done or undone), one line, exit 130/143.
 * Only async-signal-safe calls. */
static void on_signal(int sig)
{
    static const char intr[] = "cmrs: error: interrupted (SIGINT)\n";
    static const char term[] = "cmrs: error: terminated (SIGTERM)\n";
    cmrs_outputs_remove_temporaries();
    ssize_t w = sig == SIGINT ? write(STDERR_FILENO, intr, sizeof intr - 1)
                              : write(STDERR_FILENO, term, sizeof term - 1);
    (void)w;
    _exit(sig == SIGINT ? CMRS_EXIT_SIGINT : CMRS_EXIT_SIGTERM);
}

static void catch_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    for (int i = 0; i < 2; ++i) {
        /* A signal ignored by whoever started us (nohup, a background job
         * of a shell without job control) stays ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CMRS_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(stdout);
        return CMRS_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("cmrs %s\n", CMRS_VERSION);
        return CMRS_EXIT_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; ++i) {
        if (strcmp(argv[1], k_commands[i].name) != 0) continue;
        int exit_code = CMRS_EXIT_OK;
        catch_signals();
        app_mpi_start(&argc, &argv); /* under mpirun only */
        cmrs_code rc =
            app_mpi_size() > 1 && k_commands[i].fn != cmd_solve
                ? cmrs_error_set(CMRS_E_USAGE, __FILE__, __LINE__, "under "
                                 "mpirun only 'cmrs solve' runs (a part per "
                                 "rank)")
                : k_commands[i].fn(argc - 1, argv + 1, &exit_code);
        cmrs_outputs_discard(); /* a command commits its outputs itself */
        fflush(stdout);
        if (rc != CMRS_OK) exit_code = report(rc);
        app_mpi_end(rc != CMRS_OK, exit_code);
        return exit_code;
    }
    fprintf(stderr, "cmrs: error: unknown command '%s' (see 'cmrs --help')\n",
            argv[1]);
    return CMRS_EXIT_USAGE;
}
