/* The solve options by name: the one parser behind cmrs_solver_set_option
 * and the command line's shared options (`cmrs solve`, `cmrs compare`,
 * `cmrs sweep` pass each long option's name and value here). Messages name
 * the option as the command line writes it ("--rtol: ..."). */
#ifndef CMRS_API_OPTIONS_H
#define CMRS_API_OPTIONS_H

#include "dist/partition.h"
#include "solver/solver.h"

typedef struct cmrs_opts {
    cmrs_ksp_opts solve;  /* method, preconditioner, tolerances, engine */
    cmrs_spmv_opts spmv;  /* height 0 = cmrs_default_height */
    int tune_height;      /* height auto: spmv/autotune.h on the GPU */
    int kernel_choice;    /* 1: measure (api/kernel_choice.h), 0: the
                             rules */
    double tune_budget;   /* seconds for that search */
    cmrs_prec prec;       /* double also for --precision mixed, whose
                             mode is solve.mixed */
    cmrs_mixed mixed_mode;/* --mixed (auto): what --precision mixed does */
    char format[32];      /* SpMV format on the GPU (default cmrs) */
    int history;          /* keep the residual history for the caller */
    int profile;          /* record the setup profile (base/profile.h) and
                             measure the pinned H2D bandwidth after setup */
    int parts;            /* > 0: that many simulated parts on the CPU
                             (dist/dist.h); 0: one back end, no partition */
    cmrs_part_method partition; /* how the parts are cut (default block) */
    int mpi;              /* 1: one part per rank of MPI_COMM_WORLD (the
                             caller has initialised MPI; parts = ranks), or
                             of the communicator below */
    int have_comm;        /* 1: comm_f names the communicator */
    int64_t comm_f;       /* its Fortran handle (cmrs_solver_set_mpi_comm) */
    int renumber;         /* the system renumbered once (api/renumber.c):
                             1 on, -1 off (the default), 0 auto (the rule
                             there) */
    int gpus;             /* > 1: that many GPUs of a GPU context, a part
                             on each (dist/dist_gpu.h); 1: one GPU */
} cmrs_opts;

void cmrs_opts_default(cmrs_opts *o);
/* Sets option `name` (no leading "--") from text; CMRS_E_USAGE with one
 * line naming the option for an unknown name or a bad value (o is then
 * unchanged). */
cmrs_code cmrs_opts_set(cmrs_opts *o, const char *name, const char *value);
/* The preconditioner's options (options_pc.c): *handled = 0 when `name`
 * is not one of them. */
cmrs_code cmrs_opts_set_pc(cmrs_pc_opts *o, const char *name,
                           const char *value, int *handled);

/* Whether `format` takes a strip height (the CMRS formats). */
int cmrs_format_has_height(const char *format);

#endif
