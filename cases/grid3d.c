#include "grid3d.h"

#include <math.h>
#include <stdlib.h>

#include "common.h"

cmrs_code grid_stencil_make(int points, grid_stencil *s)
{
    CMRS_ENSURE(points == 7 || points == 27, CMRS_E_USAGE,
                "--stencil: %d is not 7 or 27", points);
    s->count = 0;
    /* dz slowest, dx fastest: the column index increases along the list */
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                if (points == 7 && abs(dx) + abs(dy) + abs(dz) > 1) continue;
                if (!dx && !dy && !dz) s->centre = s->count;
                s->off[s->count][0] = dx;
                s->off[s->count][1] = dy;
                s->off[s->count][2] = dz;
                ++s->count;
            }
    return CMRS_OK;
}

cmrs_code grid_check_n(const char *kind, int64_t n)
{
    CMRS_ENSURE(n >= 1 && n <= CMRS_GRID_MAX_N, CMRS_E_USAGE,
                "%s: --n %lld is out of range [1, %d] (n^3 unknowns must fit "
                "32-bit column indices)", kind, (long long)n, CMRS_GRID_MAX_N);
    return CMRS_OK;
}

/* Exact count: offset d keeps the nodes whose neighbour is inside, which is
 * (n - |dx|)(n - |dy|)(n - |dz|) of them. */
static int64_t grid_nnz(int64_t n, const grid_stencil *s)
{
    int64_t nnz = 0;
    for (int q = 0; q < s->count; ++q)
        nnz += (n - abs(s->off[q][0])) * (n - abs(s->off[q][1])) *
               (n - abs(s->off[q][2]));
    return nnz;
}

static int inside(int64_t n, int64_t i, int64_t j, int64_t k, const int *d)
{
    return i + d[0] >= 0 && i + d[0] < n && j + d[1] >= 0 && j + d[1] < n &&
           k + d[2] >= 0 && k + d[2] < n;
}

static void assemble(int64_t n, const grid_stencil *s, grid_row_fn fn,
                     const void *ctx, cmrs_csr *A)
{
    double vals[27];
    int64_t p = 0;
    for (int64_t k = 0; k < n; ++k)
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) {
                int64_t row = i + n * (j + n * k);
                fn(ctx, s, i, j, k, vals);
                for (int q = 0; q < s->count; ++q) {
                    const int *d = s->off[q];
                    if (!inside(n, i, j, k, d)) continue;
                    int64_t col = row + d[0] + n * (d[1] + n * d[2]);
                    A->indices[p] = (int32_t)col;
                    A->values[p++] = vals[q];
                }
                A->indptr[row + 1] = p;
            }
}

double grid_x_true(int64_t n, int64_t i, int64_t j, int64_t k)
{
    const double pi = 3.14159265358979323846;
    double h = 1.0 / (double)(n + 1);
    double x = (double)(i + 1) * h, y = (double)(j + 1) * h,
           z = (double)(k + 1) * h;
    return 1.0 + x + 2.0 * y * z +
           sin(pi * x) * sin(2 * pi * y) * sin(3 * pi * z);
}

cmrs_code grid_check_memory(const char *kind, const char *option, int64_t n,
                            const grid_stencil *s, double extra)
{
    double rows = (double)n * (double)n * (double)n;
    double nnz = (double)grid_nnz(n, s);
    double bytes = (rows + 1) * 8.0 + nnz * 12.0 + 2 * 8.0 * rows + extra;
    CMRS_CHECK(cases_check_memory(kind, option, rows, nnz, bytes));
    return CMRS_OK;
}

cmrs_code grid_build_system(int64_t n, const grid_stencil *s, grid_row_fn fn,
                            const void *ctx, cmrs_system *sys)
{
    CMRS_CHECK(cmrs_csr_alloc(&sys->A, n * n * n, n * n * n, grid_nnz(n, s)));
    assemble(n, s, fn, ctx, &sys->A);
    CMRS_CHECK(cases_alloc_rhs(sys, "grid"));
    double *x_true = cmrs_malloc_array((size_t)(n * n * n), sizeof *x_true);
    CMRS_ENSURE(x_true, CMRS_E_NOMEM, "cannot allocate x_true of %lld entries",
                (long long)(n * n * n));
    for (int64_t k = 0; k < n; ++k)
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i)
                x_true[i + n * (j + n * k)] = grid_x_true(n, i, j, k);
    cmrs_csr_spmv(&sys->A, 1.0, x_true, 0.0, sys->b);
    free(x_true);
    return CMRS_OK;
}
