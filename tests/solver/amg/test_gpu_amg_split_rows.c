/* A part's rows of a level's P and their transpose cut on the device
 * (cmrs_amg_split_p_rows, the GPU builder's lmat_rows: the distributed
 * AMG's transfers with no download of P) against the host's path
 * (cmrs_amg_split_p's host copy, the rows copied, cmrs_csr_transpose,
 * op_create): on every level of a vessel's and a Poisson's hierarchy and
 * slices at both ends, of one row, of all rows and in the middle, the
 * products P x and R y of the two operators are bit for bit the same
 * (outputs poisoned first). Empty and out-of-range slices are declined
 * (*done 0, nothing made). Exits 77 without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solver/amg/amg_split.h"
#include "solver/backend/backend.h"
#include "solver/pc/precond.h"
#include "solver/systems.h"

/* Rows r0 .. r1 of P as a CSR of their own. */
static void host_rows(const cmrs_csr *P, int64_t r0, int64_t r1,
                      cmrs_csr *S)
{
    int64_t base = P->indptr[r0], nnz = P->indptr[r1] - base;
    CHECK_OK(cmrs_csr_alloc(S, r1 - r0, P->cols, nnz));
    for (int64_t i = 0; i <= r1 - r0; ++i)
        S->indptr[i] = P->indptr[r0 + i] - base;
    memcpy(S->indices, P->indices + base, (size_t)nnz * sizeof *S->indices);
    memcpy(S->values, P->values + base, (size_t)nnz * sizeof *S->values);
}

/* y = op x on the device, y poisoned first; a host copy of y. */
static double *apply(cmrs_backend *be, const cmrs_op *op, int64_t nx,
                     int64_t ny, const double *x)
{
    void *x_d = NULL, *y_d = NULL;
    double *y = malloc((size_t)ny * sizeof *y);
    for (int64_t i = 0; i < ny; ++i) y[i] = NAN;
    CHECK_OK(be->ops->arr_create(be, nx, &x_d));
    CHECK_OK(be->ops->arr_create(be, ny, &y_d));
    CHECK_OK(be->ops->arr_set(be, nx, x_d, x));
    CHECK_OK(be->ops->arr_set(be, ny, y_d, y));
    CHECK_OK(be->ops->op_apply(be, op, 1.0, x_d, 0.0, y_d));
    CHECK_OK(be->ops->arr_get(be, ny, y_d, y));
    be->ops->arr_destroy(be, x_d);
    be->ops->arr_destroy(be, y_d);
    return y;
}

static double *random_vec(int64_t n, unsigned seed)
{
    double *v = malloc((size_t)n * sizeof *v);
    srand(seed);
    for (int64_t i = 0; i < n; ++i) v[i] = (double)rand() / RAND_MAX - 0.5;
    return v;
}

/* The device's and the host's operators of one slice, the same bits. */
static void check_slice(cmrs_backend *be, cmrs_precond *pc, int k,
                        int64_t r0, int64_t r1, const char *what)
{
    cmrs_op *Pd = NULL, *Rd = NULL, *Ph = NULL, *Rh = NULL;
    const cmrs_csr *P = NULL;
    int done = 0;
    CHECK_OK(cmrs_amg_split_p_rows(pc, k, r0, r1, "cmrs", &Pd, &Rd, &done));
    CHECK(done && Pd && Rd, "%s level %d rows %lld..%lld: not cut on the "
          "device", what, k, (long long)r0, (long long)r1);
    CHECK_OK(cmrs_amg_split_p(pc, k, &P));
    if (!done || !P) return;
    cmrs_csr S = {0}, T = {0};
    host_rows(P, r0, r1, &S);
    CHECK_OK(cmrs_csr_transpose(&S, &T));
    CHECK_OK(be->ops->op_create(be, &S, "cmrs", &Ph));
    CHECK_OK(be->ops->op_create(be, &T, "cmrs", &Rh));
    double *x = random_vec(P->cols, 7u + (unsigned)k);
    double *z = random_vec(r1 - r0, 11u + (unsigned)r0);
    double *yd = apply(be, Pd, P->cols, r1 - r0, x);
    double *yh = apply(be, Ph, P->cols, r1 - r0, x);
    double *wd = apply(be, Rd, r1 - r0, P->cols, z);
    double *wh = apply(be, Rh, r1 - r0, P->cols, z);
    CHECK(memcmp(yd, yh, (size_t)(r1 - r0) * sizeof *yd) == 0,
          "%s level %d rows %lld..%lld: P x differs from the host's", what,
          k, (long long)r0, (long long)r1);
    CHECK(memcmp(wd, wh, (size_t)P->cols * sizeof *wd) == 0,
          "%s level %d rows %lld..%lld: R y differs from the host's", what,
          k, (long long)r0, (long long)r1);
    CMRS_FREE_ALL(x, z, yd, yh, wd, wh);
    be->ops->op_destroy(be, Pd);
    be->ops->op_destroy(be, Rd);
    be->ops->op_destroy(be, Ph);
    be->ops->op_destroy(be, Rh);
    cmrs_csr_free(&S);
    cmrs_csr_free(&T);
}

/* Slices declined: none made, done 0. */
static void check_declined(cmrs_precond *pc, int64_t n, const char *what)
{
    const int64_t bad[][2] = {{0, 0}, {5, 5}, {3, 2}, {-1, 4}, {0, n + 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        cmrs_op *P = NULL, *R = NULL;
        int done = 1;
        CHECK_OK(cmrs_amg_split_p_rows(pc, 0, bad[i][0], bad[i][1], "cmrs",
                                       &P, &R, &done));
        CHECK(!done && !P && !R, "%s: rows %lld..%lld not declined", what,
              (long long)bad[i][0], (long long)bad[i][1]);
    }
}

static void check_case(const cmrs_system *sys, const char *what)
{
    cmrs_backend *be = NULL;
    cmrs_precond *pc = NULL;
    cmrs_pc_opts o;
    cmrs_pc_opts_default(&o);
    o.fine_own_op = 1;
    o.amg.coarse_rows = 50; /* several levels to cut */
    CHECK_OK(cmrs_backend_gpu_create(&sys->A, "cmrs", CMRS_PREC_DOUBLE, NULL,
                                     &be));
    if (be) CHECK_OK(cmrs_precond_create(be, &sys->A, CMRS_PC_AMG, &o, what,
                                         &pc));
    if (!pc || !cmrs_amg_split_ok(pc)) {
        CHECK(0, "%s: no hierarchy of two levels", what);
    } else {
        check_declined(pc, sys->A.rows, what);
        for (int k = 0; k + 1 < cmrs_amg_split_levels(pc); ++k) {
            int64_t n = cmrs_amg_split_n(pc, k);
            const int64_t cut[][2] = {{0, n}, {0, 1}, {n - 1, n},
                                      {n / 3, 2 * n / 3 + 1}, {1, n - 1}};
            for (size_t i = 0; i < sizeof cut / sizeof cut[0]; ++i)
                if (cut[i][1] > cut[i][0])
                    check_slice(be, pc, k, cut[i][0], cut[i][1], what);
        }
        printf("%s: %d levels cut on the device\n", what,
               cmrs_amg_split_levels(pc) - 1);
    }
    cmrs_precond_destroy(pc);
    cmrs_backend_destroy(be);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    cmrs_system sys;
    cmrs_vessel_opts v = {.cells = 30000};
    cmrs_poisson_opts p = {20, 7, 0.0, 1};
    CHECK_OK(cmrs_gen_vessel(&v, &sys));
    check_case(&sys, "vessel 30k");
    cmrs_system_free(&sys);
    CHECK_OK(cmrs_gen_poisson3d(&p, &sys));
    check_case(&sys, "poisson 20^3");
    cmrs_system_free(&sys);
    return check_summary();
}
