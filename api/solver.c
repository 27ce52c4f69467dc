/* The public solver's life cycle (include/cmrs.h): options, setup (back
 * end, Krylov solver, preconditioner), destruction; the internal accessors
 * of api_internal.h. Solves and updates: solve.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "dist/dist_gpu.h"
#include "base/device.h"
#include "base/profile.h"
#include "base/timer.h"
#include "base/gpu/upload.h"
#include "api_internal.h"

cmrs_status cmrs_solver_create(cmrs_context *ctx, cmrs_solver **s)
{
    CMRS_API_NOT_NULL(ctx, "cmrs_solver_create");
    CMRS_API_NOT_NULL(s, "cmrs_solver_create");
    cmrs_error_clear();
    *s = calloc(1, sizeof **s);
    if (!*s)
        return cmrs_api_status(ctx, cmrs_error_set(CMRS_E_NOMEM, __FILE__,
            __LINE__, "cannot allocate a solver"));
    (*s)->ctx = ctx;
    cmrs_opts_default(&(*s)->o);
    return CMRS_SUCCESS;
}

static cmrs_code set_option(cmrs_solver *s, const char *name,
                            const char *value)
{
    CMRS_ENSURE(!s->ksp, CMRS_E_USAGE, "option '%s' set after setup: "
                "options apply to the next setup only (set them before "
                "cmrs_solver_setup)", name ? name : "(null)");
    CMRS_CHECK(cmrs_opts_set(&s->o, name, value));
    return CMRS_OK;
}

cmrs_status cmrs_solver_set_option(cmrs_solver *s, const char *name,
                                   const char *value)
{
    CMRS_API_NOT_NULL(s, "cmrs_solver_set_option");
    cmrs_error_clear();
    return cmrs_api_status(s->ctx, set_option(s, name, value));
}

static cmrs_code set_comm(cmrs_solver *s, int64_t fortran_comm)
{
    CMRS_ENSURE(!s->ksp, CMRS_E_USAGE, "cmrs_solver_set_mpi_comm after "
                "setup: it applies to the next setup only");
#ifndef CMRS_HAVE_MPI
    (void)fortran_comm;
    CMRS_FAIL(CMRS_E_USAGE, "cmrs_solver_set_mpi_comm: this build has no "
              "MPI (mpi.h was not found when it was configured)");
#else
    s->o.mpi = 1;
    s->o.have_comm = 1;
    s->o.comm_f = fortran_comm;
    return CMRS_OK;
#endif
}

cmrs_status cmrs_solver_set_mpi_comm(cmrs_solver *s, int64_t fortran_comm)
{
    CMRS_API_NOT_NULL(s, "cmrs_solver_set_mpi_comm");
    cmrs_error_clear();
    return cmrs_api_status(s->ctx, set_comm(s, fortran_comm));
}

cmrs_status cmrs_solver_set_opts(cmrs_solver *s, const cmrs_opts *o)
{
    CMRS_API_NOT_NULL(s, "cmrs_solver_set_opts");
    s->o = *o;
    return CMRS_SUCCESS;
}

/* The Krylov solver, back end and renumbering, gone. */
static void drop_solver(cmrs_solver *s)
{
    cmrs_ksp_destroy(s->ksp);
    cmrs_backend_destroy(s->be);
    cmrs_api_ren_free(s->ren);
    s->ksp = NULL;
    s->be = NULL;
    s->ren = NULL;
}

/* Everything setup made, the matrix reference last. */
void cmrs_api_solver_reset(cmrs_solver *s)
{
    /* The matrix outlives the solver (the caller's, other solvers'): it
     * leaves with the values the solver last had. Best effort: a failure
     * here has no caller to tell, and leaves the older values. */
    (void)cmrs_api_refresh_host(s);
    if (s->be) {
        s->be->ops->arr_destroy(s->be, s->pc_r);
        s->be->ops->arr_destroy(s->be, s->pc_z);
    }
    s->pc_r = s->pc_z = NULL;
    cmrs_api_free_update_buffers(s);
    drop_solver(s);
    cmrs_matrix_destroy(s->A);
    free(s->b_h);
    free(s->x_h);
    s->A = NULL;
    s->b_h = s->x_h = NULL;
    s->solved = 0;
    s->tuned = 0;
    s->chose = 0;
    s->host_stale = 0;
}

/* Option gpus > 1: a part on each GPU from the context's (NCCL halos). */
static cmrs_code make_dist_gpu(cmrs_solver *s, const cmrs_csr *A)
{
    CMRS_ENSURE(s->o.parts == 0, CMRS_E_USAGE, "--parts %d and --gpus %d: "
                "--parts simulates parts on the CPU, --gpus puts one on "
                "each GPU; give one of them", s->o.parts, s->o.gpus);
    /* untested over several GPUs (the block AMG would take a twin per
     * part): refused rather than run unverified */
    CMRS_ENSURE(s->o.solve.mixed == CMRS_MIXED_OFF, CMRS_E_USAGE, "--gpus "
                "%d: --precision mixed runs on one GPU only", s->o.gpus);
    CMRS_ENSURE(s->ctx->device >= 0, CMRS_E_NODEVICE, "--gpus %d needs "
                "GPUs; this solve runs on the CPU (no GPU found, or --device "
                "cpu): for parts on the CPU use --parts %d", s->o.gpus,
                s->o.gpus);
    const cmrs_dist_gpu_params prm = {
        .ngpus = s->o.gpus, .device0 = s->ctx->device,
        .method = s->o.partition, .format = s->o.format,
        .prec = s->o.prec, .opts = &s->o.spmv};
    CMRS_CHECK(cmrs_backend_dist_gpu_create(A, &prm, &s->be));
    return CMRS_OK;
}

/* Option mpi: a part per rank, on a GPU of its node (a GPU context) or
 * its CPU back end (a CPU context). */
static cmrs_code make_dist_mpi(cmrs_solver *s, const cmrs_csr *A,
                               const int64_t *row0)
{
    const int64_t *comm_f = s->o.have_comm ? &s->o.comm_f : NULL;
    CMRS_ENSURE(s->o.solve.mixed == CMRS_MIXED_OFF, CMRS_E_USAGE, "under "
                "mpirun: --precision mixed runs on one GPU only");
    if (s->ctx->device >= 0) {
        const cmrs_dist_gpu_params prm = {
            .device0 = s->ctx->device, .method = s->o.partition,
            .format = s->o.format, .prec = s->o.prec, .opts = &s->o.spmv};
        CMRS_ENSURE(s->o.parts == 0, CMRS_E_USAGE, "--parts %d under "
                    "mpirun with GPUs: the ranks are the parts, one GPU "
                    "each (leave --parts out)", s->o.parts);
        CMRS_CHECK(cmrs_backend_dist_mpi_gpu_create(A, &prm, comm_f, row0,
                                                    &s->be));
        return CMRS_OK;
    }
    CMRS_ENSURE(s->o.prec == CMRS_PREC_DOUBLE, CMRS_E_USAGE, "under "
                "mpirun on the CPU: the CPU back end computes in double "
                "only");
    CMRS_CHECK(cmrs_backend_dist_mpi_create(A, s->o.parts, s->o.partition,
                                            comm_f, row0, &s->be));
    return CMRS_OK;
}

/* Option parts: simulated parts, each on the CPU reference back end. */
static cmrs_code make_dist(cmrs_solver *s, const cmrs_csr *A)
{
    cmrs_dist_params prm = {.nparts = s->o.parts,
                            .method = s->o.partition};
    CMRS_ENSURE(s->ctx->device < 0, CMRS_E_USAGE, "--parts %d: the parts "
                "run on the CPU back end only (use --device cpu)",
                s->o.parts);
    CMRS_ENSURE(s->o.prec == CMRS_PREC_DOUBLE, CMRS_E_USAGE, "--parts: "
                "the CPU back end computes in double only");
    CMRS_ENSURE(s->o.solve.mixed == CMRS_MIXED_OFF, CMRS_E_USAGE, "--parts: "
                "--precision mixed runs on the GPU (the CPU back end "
                "computes in double only)");
    CMRS_CHECK(cmrs_backend_dist_create(A, &prm, &s->be));
    return CMRS_OK;
}

/* The GPU with the chosen format (height auto: searched first), the CPU
 * reference back end, or simulated parts (option parts). */
static cmrs_code make_backend(cmrs_solver *s, const cmrs_csr *A)
{
    cmrs_spmv_opts opts = s->o.spmv;
    int gpu = s->ctx->device >= 0;
    if (s->o.mpi)
        return make_dist_mpi(s, A, cmrs_api_is_rows(s->A) ? &s->A->row0
                                                          : NULL);
    if (s->o.gpus > 1) return make_dist_gpu(s, A);
    if (s->o.parts > 0) return make_dist(s, A);
    if (gpu && s->o.tune_height && cmrs_format_has_height(s->o.format)) {
        CMRS_CHECK(cmrs_autotune(A, s->o.format, s->o.prec, &s->o.spmv,
                                 s->o.tune_budget, &s->tune));
        opts.height = s->tune.height;
        opts.block_size = s->tune.block_size;
        s->tuned = 1;
    }
    if (gpu && s->o.kernel_choice && strcmp(s->o.format, "cmrs") == 0) {
        CMRS_CHECK(cmrs_choose_backend(A, s->o.prec, &opts, &s->o.solve,
                                       s->o.tune_budget, &s->be,
                                       &s->choice));
        s->chose = 1;
    } else if (gpu) {
        CMRS_CHECK(cmrs_backend_gpu_create(A, s->o.format, s->o.prec, &opts,
                                           &s->be));
    }
    else
        CMRS_CHECK(cmrs_backend_cpu_create(A, s->o.prec, &s->be));
    return CMRS_OK;
}

/* A matrix of rows: under MPI, in double. */
static cmrs_code check_rows(const cmrs_solver *s, const cmrs_matrix *A)
{
    CMRS_ENSURE(s->o.mpi, CMRS_E_USAGE, "%s: a matrix of rows %lld .. %lld "
                "of %lld is solved under MPI (option mpi, or "
                "cmrs_solver_set_mpi_comm), each rank passing its rows",
                A->what, (long long)A->row0,
                (long long)(A->row0 + A->sys.A.rows - 1), (long long)A->n);
    CMRS_ENSURE(s->o.prec == CMRS_PREC_DOUBLE, CMRS_E_USAGE, "%s: a matrix "
                "of rows is solved in double only (not yet in single: its "
                "true residual reads the whole matrix)", A->what);
    return CMRS_OK;
}

/* A failure auto recovers from, forgotten (the GPU's sticky error too). */
static void forget_failure(const cmrs_solver *s)
{
    cmrs_error_clear();
    if (s->ctx->device >= 0) cmrs_gpu_clear_error();
}

/* The system renumbered (renumber.c) where option renumber asks: host
 * work before any upload. */
static cmrs_code renumber(cmrs_solver *s, const cmrs_matrix *A)
{
    if (cmrs_api_is_rows(A)) return CMRS_OK; /* under MPI: never */
    CMRS_CHECK(cmrs_api_ren_check(&s->o, &A->sys.A));
    if (!cmrs_api_ren_wanted(&s->o, &A->sys.A, s->ctx->device >= 0))
        return CMRS_OK;
    cmrs_phase_push(CMRS_PHASE_HOST_STAGING);
    cmrs_code rc = cmrs_api_ren_make(&A->sys.A, s->ctx->device >= 0,
                                     &s->ren);
    cmrs_phase_pop();
    /* auto (the default) only speeds the solve up: where the renumbering
     * fails (no room for it, above all), the solve runs in the caller's
     * order (on: the failure is the caller's answer) */
    if (rc != CMRS_OK && s->o.renumber == 0) {
        forget_failure(s);
        return CMRS_OK;
    }
    return rc;
}

/* The renumbered system's back end and solver, made beside B and the
 * maps, may not fit where the caller's system alone would: auto then
 * drops the renumbering and makes them from A (on: the failure stands). */
static int ren_retry(cmrs_solver *s, cmrs_code rc)
{
    if (rc != CMRS_E_NOMEM || !s->ren || s->o.renumber != 0 ||
        s->ctx->device < 0)
        return 0;
    forget_failure(s);
    drop_solver(s);
    return 1;
}

/* The Krylov solver on the back end made, over the system's matrix (B
 * where renumbered: its messages then name the caller's rows). */
static cmrs_code make_ksp(cmrs_solver *s)
{
    CMRS_CHECK(cmrs_ksp_create(s->be, cmrs_api_sys_matrix(s), &s->o.solve,
                               s->A->what, &s->ksp));
    if (s->ren)
        cmrs_ksp_set_numbering(s->ksp, cmrs_api_ren_rows(s->ren),
                               cmrs_api_ren_entry, s->ren);
    return CMRS_OK;
}

/* Back end and Krylov solver on the system's matrix (B where renumbered:
 * setup_timed then maps a failure naming one of B's rows to A's). */
static cmrs_code make_solver(cmrs_solver *s, double t0)
{
    CMRS_CHECK(make_backend(s, cmrs_api_sys_matrix(s)));
    CMRS_CHECK(s->be->ops->sync(s->be));
    s->t_backend = cmrs_wtime() - t0;
    CMRS_CHECK(make_ksp(s));
    return CMRS_OK;
}

/* Renumbering, back end, solver; timed together. */
static cmrs_code setup_timed(cmrs_solver *s, cmrs_matrix *A)
{
    double t0 = cmrs_wtime();
    cmrs_api_matrix_retain(A);
    s->A = A;
    CMRS_CHECK(renumber(s, A));
    cmrs_code rc = make_solver(s, t0);
    if (ren_retry(s, rc)) rc = make_solver(s, t0);
    if (rc != CMRS_OK && s->ren) rc = cmrs_api_ren_error(s, rc);
    CMRS_CHECK(rc);
    CMRS_CHECK(s->be->ops->sync(s->be));
    s->t_setup = cmrs_wtime() - t0;
    return CMRS_OK;
}

/* The recorded phases into s->prof, and the pinned H2D bandwidth measured
 * now, after the timed setup (a failed measurement leaves 0: it is a
 * diagnostic, setup itself succeeded). */
static void finish_profile(cmrs_solver *s, const cmrs_profile *p)
{
    cmrs_setup_profile *o = &s->prof;
    const cmrs_csr *A = &s->A->sys.A;
    o->host_staging = p->seconds[CMRS_PHASE_HOST_STAGING];
    o->transfer = p->seconds[CMRS_PHASE_TRANSFER];
    o->conversion = p->seconds[CMRS_PHASE_CONVERSION];
    o->precond = p->seconds[CMRS_PHASE_PRECOND];
    o->other = p->seconds[CMRS_PHASE_OTHER];
    o->libraries = p->seconds[CMRS_PHASE_LIBRARIES];
    o->allocation = p->seconds[CMRS_PHASE_ALLOCATION];
    o->total = p->total;
    o->transfer_bytes = p->transfer_bytes;
    o->csr_bytes = 8.0 * (double)(A->rows + 1) + 12.0 * (double)A->nnz;
    o->valid = 1;
    if (s->ctx->device < 0) return;
    cmrs_upload_cfg c;
    if (cmrs_upload_cfg_env(&c) == CMRS_OK) {
        snprintf(o->upload, sizeof o->upload, "%s",
                 cmrs_upload_mode_name(c.mode));
        o->upload_threads = c.threads;
    }
    double bw = 0;
    if (cmrs_h2d_pinned_bandwidth((size_t)128 << 20, 5, &bw) == CMRS_OK &&
        bw > 0) {
        o->h2d_pinned_gbs = 1e-9 * bw;
        o->transfer_floor = o->csr_bytes / bw;
    }
    cmrs_gpu_clear_error();
    cmrs_error_clear();
}

/* setup_timed, profiled when option profile is on (base/profile.h: the
 * thread's current profile for the layers below, always uninstalled). */
static cmrs_code setup(cmrs_solver *s, cmrs_matrix *A)
{
    CMRS_ENSURE(A, CMRS_E_USAGE, "cmrs_solver_setup: A is NULL");
    CMRS_ENSURE(A->ctx == s->ctx, CMRS_E_USAGE, "cmrs_solver_setup: the "
                "matrix belongs to another context");
    if (cmrs_api_is_rows(A)) CMRS_CHECK(check_rows(s, A));
    else CMRS_ENSURE(A->sys.A.rows == A->sys.A.cols && A->sys.A.rows > 0,
                CMRS_E_INPUT, "%s: the matrix is %lld x %lld: a solve needs "
                "a square matrix with rows", A->what,
                (long long)A->sys.A.rows, (long long)A->sys.A.cols);
    cmrs_api_solver_reset(s);
    memset(&s->prof, 0, sizeof s->prof);
    if (!s->o.profile) {
        CMRS_CHECK(setup_timed(s, A));
        return CMRS_OK;
    }
    cmrs_profile p;
    cmrs_profile_start(&p, s->ctx->device >= 0 ? cmrs_gpu_sync_quiet
                                                : NULL);
    cmrs_code rc = setup_timed(s, A);
    cmrs_profile_stop(&p);
    CMRS_CHECK(rc);
    finish_profile(s, &p);
    return CMRS_OK;
}

static cmrs_code new_ksp(cmrs_solver *s, const cmrs_ksp_opts *solve)
{
    CMRS_ENSURE(s->ksp, CMRS_E_USAGE, "cmrs_solver_new_ksp: the solver is "
                "not set up");
    CMRS_CHECK(cmrs_api_enter(s->ctx));
    cmrs_ksp_destroy(s->ksp);
    s->ksp = NULL;
    s->solved = 0;
    s->o.solve = *solve;
    double t0 = cmrs_wtime();
    cmrs_profile p;
    if (s->o.profile)
        cmrs_profile_start(&p, s->ctx->device >= 0 ? cmrs_gpu_sync_quiet
                                                : NULL);
    cmrs_code rc = make_ksp(s);
    if (rc != CMRS_OK && s->ren) rc = cmrs_api_ren_error(s, rc);
    if (rc == CMRS_OK) rc = s->be->ops->sync(s->be);
    if (s->o.profile) cmrs_profile_stop(&p);
    CMRS_CHECK(rc);
    s->t_setup = s->t_backend + (cmrs_wtime() - t0);
    if (s->o.profile) {
        finish_profile(s, &p);
        s->prof.backend_reused = 1;
    }
    return CMRS_OK;
}

cmrs_status cmrs_solver_new_ksp(cmrs_solver *s, const cmrs_ksp_opts *solve)
{
    CMRS_API_NOT_NULL(s, "cmrs_solver_new_ksp");
    return cmrs_api_status(s->ctx, new_ksp(s, solve));
}

cmrs_status cmrs_solver_setup(cmrs_solver *s, cmrs_matrix *A)
{
    CMRS_API_NOT_NULL(s, "cmrs_solver_setup");
    cmrs_code rc = cmrs_api_enter(s->ctx);
    if (rc == CMRS_OK) rc = setup(s, A);
    if (rc != CMRS_OK) cmrs_api_solver_reset(s); /* not set up: solves say so */
    return cmrs_api_status(s->ctx, rc);
}

void cmrs_solver_destroy(cmrs_solver *s)
{
    if (!s) return;
    /* Frees on its own GPU; the thread's error state is left alone (a
     * caller may destroy before it reports a failure). */
    if (s->ctx->device >= 0) (void)cmrs_gpu_select(s->ctx->device);
    cmrs_api_solver_reset(s);
    free(s);
}

cmrs_backend *cmrs_solver_backend(const cmrs_solver *s) { return s->be; }
cmrs_ksp *cmrs_solver_ksp(const cmrs_solver *s) { return s->ksp; }

const cmrs_ksp_result *cmrs_solver_result(const cmrs_solver *s)
{
    return s->solved ? &s->res : NULL;
}

const cmrs_tune_result *cmrs_solver_tune(const cmrs_solver *s)
{
    return s->tuned ? &s->tune : NULL;
}

const cmrs_choice_result *cmrs_solver_choice(const cmrs_solver *s)
{
    return s->chose ? &s->choice : NULL;
}

double cmrs_solver_renumbered(const cmrs_solver *s)
{
    return s->ren ? cmrs_api_ren_seconds(s->ren) : -1.0;
}
