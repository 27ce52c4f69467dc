/* The host passes over a system's arrays that a GPU solve's read and setup
 * make or made (issue 26), each timed alone on the file's matrix: run by
 * hand, no GPU needed (`host_scans FILE [reps]`, e.g. on
 * `cmrs gen vessel --cells 5000000`). "setup, moved" rows are what the GPU
 * setup no longer does on the host where its format finds the diagonal
 * (spmv/diag_tap.cu); "read" rows run in every command that reads A. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/csr.h"
#include "io/readers.h"
#include "io/system.h"
#include "base/timer.h"
#include "solver/backend/backend.h"
#include "spmv/cmrs/cmrs_reorder.h"
#include "spmv/cmrs/cmrs_setup.h"

static volatile long g_sink; /* keeps the passes from being optimised out */

static void diag_positions(const cmrs_csr *A, int32_t *pos)
{
    for (int64_t i = 0; i < A->rows; ++i) {
        pos[i] = -1;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            if (A->indices[k] == i) pos[i] = (int32_t)k;
    }
}

static void passes(const cmrs_csr *A, int32_t *pos, double *d, float *f)
{
    double t = cmrs_wtime();
    g_sink += cmrs_csr_validate(A, "A");
    printf("read   validate (range, order, finite)  %.4f s\n", cmrs_wtime() - t);
    t = cmrs_wtime();
    g_sink += cmrs_csr_is_sorted(A);
    printf("read   is_sorted                        %.4f s\n", cmrs_wtime() - t);
    t = cmrs_wtime();
    diag_positions(A, pos);
    printf("setup, moved: diagonal positions        %.4f s\n", cmrs_wtime() - t);
    t = cmrs_wtime();
    g_sink += cmrs_jacobi_inverse_diagonal(A, "A", d);
    printf("setup, moved: Jacobi D^-1               %.4f s\n", cmrs_wtime() - t);
    t = cmrs_wtime();
    for (int64_t k = 0; k < A->nnz; ++k)
        g_sink += !(fabs(A->values[k]) <= FLT_MAX);
    printf("setup, moved: float range (single)      %.4f s\n", cmrs_wtime() - t);
    t = cmrs_wtime();
    for (int64_t i = 0; i < A->rows; ++i) f[i] = (float)d[i];
    g_sink += isfinite(f[A->rows - 1]);
    printf("setup, moved: D^-1 to float (single)    %.4f s\n", cmrs_wtime() - t);
    t = cmrs_wtime();
    for (int64_t i = 0; i < A->rows; ++i)
        g_sink += A->indptr[i + 1] > A->indptr[i];
    printf("setup, kept: empty rows                 %.4f s\n", cmrs_wtime() - t);
    t = cmrs_wtime();
    g_sink += cmrs_row_offsets_fit(A, 8);
    printf("setup, kept: row offsets fit (h = 8)    %.4f s\n", cmrs_wtime() - t);
    t = cmrs_wtime();
    g_sink += (long)(1e6 * cmrs_reorder_near_share(A));
    printf("setup, kept: reorder rule's sample      %.4f s\n", cmrs_wtime() - t);
}

int main(int argc, char **argv)
{
    cmrs_system sys;
    cmrs_read_opts o = {0};
    if (argc < 2) {
        fprintf(stderr, "usage: host_scans FILE [reps]\n");
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 2;
    o.require_square = 1;
    double t = cmrs_wtime();
    if (cmrs_system_read(argv[1], &o, &sys) != CMRS_OK) {
        fprintf(stderr, "host_scans: %s\n", cmrs_error_message());
        return 2;
    }
    const cmrs_csr *A = &sys.A;
    printf("%s: %lld rows, %lld entries, read in %.3f s\n", argv[1],
           (long long)A->rows, (long long)A->nnz, cmrs_wtime() - t);
    int32_t *pos = malloc((size_t)A->rows * sizeof *pos);
    double *d = malloc((size_t)A->rows * sizeof *d);
    float *f = malloc((size_t)A->rows * sizeof *f);
    for (int r = 0; r < reps && pos && d && f; ++r) passes(A, pos, d, f);
    free(pos);
    free(d);
    free(f);
    cmrs_system_free(&sys);
    return 0;
}
