/* Smoothed aggregation's level operators on the GPU (solver/amg/gpu/amg_sa_gpu.h)
 * against the host reference: on every level of a vessel, a Poisson and a
 * high-contrast Poisson hierarchy (greedy aggregates at theta 0.02, made
 * on the host), the GPU's P, R = P^T and A_c = R A P have
 * the host's exact patterns (cmrs_amg_prolongator, cmrs_csr_transpose,
 * cmrs_amg_galerkin_host) and values within 1e-13 of the entry's sum of
 * |terms| (P: 1 + |f_i| sum |a_ij|; A_c: the host product of |R| |A| |P|).
 * The same with MIS-2 aggregates made on the device from the same upload
 * (cmrs_gpu_sa_coarsen): its aggregates bitwise the host's cmrs_amg_mis2.
 * D^-1 on the device bitwise the host's 1 / a_ii, in double and float.
 * A row with a zero diagonal sends the level back to the host (*done 0;
 * cmrs_gpu_sa_coarsen still returns the aggregates).
 * The device steps alone, outputs poisoned first: the row scales w and
 * f_i = w / a_ii bitwise the host's (cmrs_amg_smoothing_weight,
 * cmrs_csr_lookup), the tentative P exactly cmrs_amg_prolongator's with
 * smooth_p 0, the sortedness check 1 on sorted rows and 0 after a swap;
 * the smoothed P of the fused pass (cmrs_gpu_sa_smoothed_p) against
 * SpGEMM's A P_tent smoothed, by the path it chooses and forced to a warp
 * a row (the two bit for bit), a row of 80 entries taken by a warp, and
 * its refusal of a row of 300. MIS-2 on 640000 rows (aggregates down
 * through the helper thread's staging), twice. The aggregates kept on the
 * device (keep_d): bitwise the host's, agg untouched, the products bit
 * for bit the plain run's; nothing kept where the device declines.
 * Exits 77 without a GPU. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solver/amg/amg_host.h"
#include "solver/backend/backend.h"
#include "solver/amg/gpu/amg_sa_gpu.h"
#include "solver/amg/gpu/amg_spgemm_dev.h"
#include "base/gpu/cuda_check.h"
#include "solver/systems.h"

static void matrix_of(int k, cmrs_csr *A, const char **name)
{
    cmrs_system sys;
    memset(&sys, 0, sizeof sys);
    cmrs_vessel_opts v = {60000, 0};
    cmrs_poisson_opts p = {30, 7, 0.0, 1}, c = {24, 7, 3.0, 5};
    *name = k == 0 ? "vessel 60k" : k == 1 ? "poisson 30^3" : "contrast 24^3";
    if (k == 0) CHECK_OK(cmrs_gen_vessel(&v, &sys));
    else CHECK_OK(cmrs_gen_poisson3d(k == 1 ? &p : &c, &sys));
    *A = sys.A;
    memset(&sys.A, 0, sizeof sys.A);
    cmrs_system_free(&sys);
}

/* |M| entry by entry (same pattern). */
static void abs_of(const cmrs_csr *M, cmrs_csr *B)
{
    *B = *M;
    B->values = malloc((size_t)(M->nnz ? M->nnz : 1) * sizeof *B->values);
    for (int64_t k = 0; k < M->nnz; ++k) B->values[k] = fabs(M->values[k]);
}

/* Pattern exact; |gpu - host| <= 1e-13 bound per entry (bound NULL: 1 +
 * |host|, the scale of P's entries 1 - f sum a). */
static void compare(const cmrs_csr *host, const cmrs_csr *gpu,
                    const cmrs_csr *bound, const char *what, int level,
                    const char *op)
{
    int same = gpu->rows == host->rows && gpu->cols == host->cols &&
               gpu->nnz == host->nnz;
    for (int64_t i = 0; same && i <= host->rows; ++i)
        same = gpu->indptr[i] == host->indptr[i];
    int64_t bad = 0;
    for (int64_t k = 0; same && k < host->nnz; ++k) {
        same = gpu->indices[k] == host->indices[k];
        double b = bound ? bound->values[k] : 1.0 + fabs(host->values[k]);
        bad += !(fabs(gpu->values[k] - host->values[k]) <= 1e-13 * b);
    }
    CHECK(same && bad == 0, "%s level %d: GPU %s %s, %lld values off", what,
          level, op, same ? "pattern right" : "pattern differs",
          (long long)bad);
}

/* The host's bound for A_c: R A P with every operand in absolute value. */
static void galerkin_bound(const cmrs_csr *R, const cmrs_csr *A,
                           const cmrs_csr *P, cmrs_csr *bound)
{
    cmrs_csr aR, aA, aP;
    abs_of(R, &aR);
    abs_of(A, &aA);
    abs_of(P, &aP);
    CHECK_OK(cmrs_amg_galerkin_host(&aR, &aA, &aP, bound));
    free(aR.values);
    free(aA.values);
    free(aP.values);
}

/* One level: host and GPU operators compared; *Ac_out: the host's A_c. */
static int check_level(const cmrs_csr *A, const cmrs_amg_params *p,
                       cudaStream_t s, const char *what, int level,
                       cmrs_csr *Ac_out)
{
    int32_t *agg = malloc((size_t)A->rows * sizeof *agg);
    int64_t nc = 0;
    CHECK_OK(cmrs_amg_aggregate(A, p, agg, &nc));
    if (nc * 10 > A->rows * 9) { /* stagnated: no next level */
        free(agg);
        return 0;
    }
    cmrs_csr P, R, Ac, Pg, Rg, Acg, bound;
    int done = -1;
    CHECK_OK(cmrs_amg_prolongator(A, agg, nc, p, &P));
    CHECK_OK(cmrs_csr_transpose(&P, &R));
    CHECK_OK(cmrs_amg_galerkin_host(&R, A, &P, &Ac));
    if (p->agg == CMRS_AMG_AGG_MIS2) {
        int32_t *g = malloc((size_t)A->rows * sizeof *g);
        int64_t gn = -1, diff = 0;
        for (int64_t i = 0; i < A->rows; ++i) g[i] = -7; /* poison */
        CHECK_OK(cmrs_gpu_sa_coarsen(s, A, p->theta, p->p_omega, g, &gn,
                                     &Pg, &Rg, &Acg, &done));
        for (int64_t i = 0; i < A->rows; ++i) diff += g[i] != agg[i];
        CHECK(gn == nc && diff == 0, "%s level %d: device MIS-2 %lld "
              "aggregates, host %lld, %lld rows differ", what, level,
              (long long)gn, (long long)nc, (long long)diff);
        free(g);
    } else {
        CHECK_OK(cmrs_gpu_sa_level(s, A, agg, nc, p->p_omega, &Pg, &Rg,
                                   &Acg, &done));
    }
    CHECK(done == 1, "%s level %d: device path declined", what, level);
    if (done == 1) {
        compare(&P, &Pg, NULL, what, level, "P");
        compare(&R, &Rg, NULL, what, level, "R");
        galerkin_bound(&R, A, &P, &bound);
        compare(&Ac, &Acg, &bound, what, level, "A_c");
        cmrs_csr_free(&bound);
    }
    cmrs_csr_free(&Pg);
    cmrs_csr_free(&Rg);
    cmrs_csr_free(&Acg);
    cmrs_csr_free(&P);
    cmrs_csr_free(&R);
    free(agg);
    *Ac_out = Ac;
    return 1;
}

static void check_hierarchy(const cmrs_csr *A0, cudaStream_t s,
                            const char *what, cmrs_amg_agg method)
{
    cmrs_amg_params p;
    cmrs_amg_params_default(&p); /* smoothed, theta 0.02 */
    CHECK(p.smooth_p == 1, "defaults are not smoothed aggregation");
    p.agg = method;
    cmrs_csr A = *A0, Ac;
    int owned = 0, level = 0;
    while (A.rows > 50 && check_level(&A, &p, s, what, level, &Ac)) {
        if (owned) cmrs_csr_free(&A);
        A = Ac;
        owned = 1;
        ++level;
    }
    CHECK(level >= 2, "%s: %d levels compared", what, level);
    if (owned) cmrs_csr_free(&A);
}

/* 1 when a and b have the same bits (NaN poison never passes). */
static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* a and b the same pattern and the same bits in every value. */
static int same_csr_bits(const cmrs_csr *a, const cmrs_csr *b)
{
    int same = a->rows == b->rows && a->nnz == b->nnz;
    for (int64_t i = 0; same && i <= a->rows; ++i)
        same = a->indptr[i] == b->indptr[i];
    for (int64_t k = 0; same && k < a->nnz; ++k)
        same = a->indices[k] == b->indices[k] &&
               same_bits(a->values[k], b->values[k]);
    return same;
}

/* w and f on the device against the host's, bitwise; f_d poisoned. */
static void check_scales(cudaStream_t s, const cmrs_csr *A, const char *what)
{
    const double omega = 4.0 / 3.0;
    amg_dev_mat a;
    double *f_d = NULL, w = -1;
    int ok = -1;
    size_t fb = (size_t)A->rows * sizeof(double);
    double *f = malloc(fb);
    CHECK_OK(amg_dev_upload(A, &a));
    CHECK(cudaMalloc((void **)&f_d, fb) == cudaSuccess, "malloc f");
    /* The poison goes through the legacy stream, the kernels run on the
     * non-blocking s: wait, or the poison may land after them. */
    CHECK(cudaMemset(f_d, 0xff, fb) == cudaSuccess &&
              cudaDeviceSynchronize() == cudaSuccess, "poison f"); /* NaN */
    CHECK_OK(cmrs_gpu_sa_scales(s, A->rows, a.indptr_d, a.indices_d,
                                a.values_d, omega, f_d, &w, &ok));
    CHECK(cudaMemcpy(f, f_d, fb, cudaMemcpyDeviceToHost) == cudaSuccess,
          "copy f");
    double wh = cmrs_amg_smoothing_weight(A, omega);
    int64_t bad = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        int found = 0;
        bad += !same_bits(f[i], wh / cmrs_csr_lookup(A, i, (int32_t)i,
                                                     &found));
    }
    CHECK(ok == 1 && same_bits(w, wh) && bad == 0, "%s: GPU scales ok %d, "
          "w %.17g vs host %.17g, %lld f_i differ", what, ok, w, wh,
          (long long)bad);
    cudaFree(f_d);
    amg_dev_free(&a);
    free(f);
}

/* D^-1 on the device (cmrs_gpu_csr_inverse_diagonal), double and float,
 * output poisoned: bitwise the host's 1 / a_ii (cmrs_jacobi_inverse_
 * diagonal, then rounded to float as arr_set does). */
static void check_dinv(cudaStream_t s, const cmrs_csr *A, const char *what)
{
    amg_dev_mat a;
    void *d_d = NULL;
    double *want = malloc((size_t)A->rows * sizeof *want);
    double *got = malloc((size_t)A->rows * sizeof *got);
    CHECK_OK(cmrs_jacobi_inverse_diagonal(A, what, want));
    CHECK_OK(amg_dev_upload(A, &a));
    CHECK(cudaMalloc(&d_d, (size_t)A->rows * sizeof(double)) == cudaSuccess,
          "malloc dinv");
    for (int single = 0; single < 2; ++single) {
        size_t vb = single ? sizeof(float) : sizeof(double);
        int ok = -1;
        int64_t bad = 0;
        CHECK(cudaMemset(d_d, 0xff, (size_t)A->rows * vb) == cudaSuccess &&
                  cudaDeviceSynchronize() == cudaSuccess, "poison dinv");
        CHECK_OK(cmrs_gpu_csr_inverse_diagonal(s, A->rows, a.indptr_d,
                                               a.indices_d, a.values_d,
                                               single, d_d, &ok));
        CHECK(cudaMemcpy(got, d_d, (size_t)A->rows * vb,
                         cudaMemcpyDeviceToHost) == cudaSuccess, "copy");
        for (int64_t i = 0; i < A->rows; ++i) {
            double g = single ? (double)((float *)got)[i] : got[i];
            double w = single ? (double)(float)want[i] : want[i];
            bad += !same_bits(g, w);
        }
        CHECK(ok == 1 && bad == 0, "%s: device D^-1 (%s) ok %d, %lld "
              "entries differ", what, single ? "single" : "double", ok,
              (long long)bad);
    }
    cudaFree(d_d);
    amg_dev_free(&a);
    free(want);
    free(got);
}

/* The tentative P from the default aggregates, poisoned arrays. */
static void check_tentative(cudaStream_t s, const cmrs_csr *A,
                            const char *what)
{
    cmrs_amg_params p;
    cmrs_amg_params_default(&p);
    int32_t *agg = malloc((size_t)A->rows * sizeof *agg);
    int64_t nc = 0;
    CHECK_OK(cmrs_amg_aggregate(A, &p, agg, &nc));
    p.smooth_p = 0;
    cmrs_csr Pt, Pg;
    CHECK_OK(cmrs_amg_prolongator(A, agg, nc, &p, &Pt));
    amg_dev_mat d = {.rows = A->rows, .cols = nc, .nnz = A->rows};
    int32_t *agg_d = NULL;
    size_t ib = (size_t)A->rows * sizeof(int32_t);
    CHECK(cudaMalloc((void **)&agg_d, ib) == cudaSuccess &&
              cudaMalloc((void **)&d.indptr_d, ib + sizeof(int32_t)) ==
                  cudaSuccess &&
              cudaMalloc((void **)&d.indices_d, ib) == cudaSuccess &&
              cudaMalloc((void **)&d.values_d, 2 * ib) == cudaSuccess,
          "malloc");
    /* Poison and agg through the legacy stream, the kernel on the
     * non-blocking s: wait for them first (a memset is asynchronous and a
     * pageable cudaMemcpy returns before its DMA lands; the H200 once saw
     * the poison overwrite the kernel's P). */
    CHECK(cudaMemset(d.indptr_d, 0xff, ib + sizeof(int32_t)) ==
                  cudaSuccess &&
              cudaMemset(d.indices_d, 0xff, ib) == cudaSuccess &&
              cudaMemset(d.values_d, 0xff, 2 * ib) == cudaSuccess &&
              cudaMemcpy(agg_d, agg, ib, cudaMemcpyHostToDevice) ==
                  cudaSuccess &&
              cudaDeviceSynchronize() == cudaSuccess,
          "poison P, upload agg");
    CHECK_OK(cmrs_gpu_sa_tentative(s, A->rows, agg_d, d.indptr_d,
                                   d.indices_d, d.values_d));
    CHECK_OK(amg_dev_download(s, &d, &Pg));
    CHECK(same_csr_bits(&Pg, &Pt), "%s: GPU tentative P differs from the "
          "host's", what);
    /* the download's arrays touched by threads before they are pinned
     * (arrays of 128 MiB or more; forced here on a small one): the same
     * bits */
    cmrs_csr Pc;
    memset(&Pc, 0, sizeof Pc);
    setenv("CMRS_HOST_THREADS", "3", 1);
    setenv("CMRS_PARALLEL_GRAIN", "1", 1);
    CHECK_OK(amg_dev_download(s, &d, &Pc));
    unsetenv("CMRS_HOST_THREADS");
    unsetenv("CMRS_PARALLEL_GRAIN");
    CHECK(same_csr_bits(&Pc, &Pt), "%s: P downloaded into pages touched by "
          "threads differs from the host's", what);
    cmrs_csr_free(&Pc);
    cudaFree(agg_d);
    amg_dev_free(&d);
    cmrs_csr_free(&Pt);
    cmrs_csr_free(&Pg);
    free(agg);
}

/* A (n x n, device) with P_tent of the host's aggregates and the device
 * f: P by SpGEMM (A P_tent, then the smoothing) and by the fused pass
 * (cmrs_gpu_sa_smoothed_p) downloaded into Ps and Pf; *fused = its done. */
static void two_ps(cudaStream_t s, const cmrs_csr *A, cmrs_csr *Ps,
                   cmrs_csr *Pf, int *fused)
{
    cmrs_amg_params p;
    cmrs_amg_params_default(&p);
    int32_t *agg = malloc((size_t)A->rows * sizeof *agg);
    int64_t nc = 0;
    CHECK_OK(cmrs_amg_aggregate(A, &p, agg, &nc));
    amg_dev_mat a, pt, ps, pf;
    memset(&ps, 0, sizeof ps);
    memset(&pf, 0, sizeof pf);
    int32_t *agg_d = NULL;
    double *f_d = NULL, w = 0;
    int ok = 0;
    size_t ib = (size_t)A->rows * sizeof(int32_t);
    CHECK_OK(amg_dev_upload(A, &a));
    CHECK(cudaMalloc((void **)&agg_d, ib) == cudaSuccess &&
              cudaMalloc((void **)&f_d, 2 * ib) == cudaSuccess &&
              cudaMemcpy(agg_d, agg, ib, cudaMemcpyHostToDevice) ==
                  cudaSuccess && cudaDeviceSynchronize() == cudaSuccess,
          "agg, f");
    CHECK_OK(cmrs_gpu_sa_scales(s, A->rows, a.indptr_d, a.indices_d,
                                a.values_d, 4.0 / 3.0, f_d, &w, &ok));
    CHECK_OK(amg_dev_alloc(&pt, A->rows, nc, A->rows));
    CHECK_OK(cmrs_gpu_sa_tentative(s, A->rows, agg_d, pt.indptr_d,
                                   pt.indices_d, pt.values_d));
    CHECK_OK(amg_dev_describe(&pt));
    cusparseHandle_t h;
    CHECK(cusparseCreate(&h) == CUSPARSE_STATUS_SUCCESS &&
              cusparseSetStream(h, s) == CUSPARSE_STATUS_SUCCESS, "cuSPARSE");
    CHECK_OK(amg_dev_spgemm(h, s, &a, &pt, &ps, "A P_tent"));
    CHECK_OK(cmrs_gpu_sa_smooth_rows(s, A->rows, ps.indptr_d, ps.indices_d,
                                     ps.values_d, f_d, agg_d));
    CHECK_OK(cmrs_gpu_sa_smoothed_p(s, A->rows, nc, a.indptr_d, a.indices_d,
                                    a.values_d, agg_d, f_d, &pf, fused));
    CHECK_OK(amg_dev_download(s, &ps, Ps));
    memset(Pf, 0, sizeof *Pf);
    if (*fused) CHECK_OK(amg_dev_download(s, &pf, Pf));
    else CHECK(pf.indptr_d == NULL && pf.nnz == 0, "declined P not empty");
    cusparseDestroy(h);
    amg_dev_free(&a);
    amg_dev_free(&pt);
    amg_dev_free(&ps);
    amg_dev_free(&pf);
    cudaFree(agg_d);
    cudaFree(f_d);
    free(agg);
}

/* The fused P against SpGEMM's: the same pattern, values within 1e-15 of
 * 1 + |p| (the same sums, perhaps in another order; *bitwise counts the
 * entries that agree to the bit); and a row of 65 entries declined. */
/* Pf against SpGEMM's Ps: the same pattern, values within 1e-15. */
static void fused_vs_spgemm(const cmrs_csr *Ps, const cmrs_csr *Pf,
                            const char *what, const char *path)
{
    int same = Pf->nnz == Ps->nnz && Pf->cols == Ps->cols;
    for (int64_t i = 0; same && i <= Ps->rows; ++i)
        same = Pf->indptr[i] == Ps->indptr[i];
    int64_t far = 0, bits = 0;
    for (int64_t k = 0; same && k < Ps->nnz; ++k) {
        same = Pf->indices[k] == Ps->indices[k];
        far += fabs(Pf->values[k] - Ps->values[k]) >
               1e-15 * (1.0 + fabs(Ps->values[k]));
        bits += same_bits(Pf->values[k], Ps->values[k]);
    }
    CHECK(same && far == 0, "%s: fused P (%s): pattern %s, %lld values off",
          what, path, same ? "equal" : "differs", (long long)far);
    printf("%s: fused P (%s) %lld entries, %lld bit for bit with SpGEMM's\n",
           what, path, (long long)Ps->nnz, (long long)bits);
}

/* The fused P by its own choice of path and forced to a warp a row
 * (CMRS_AMG_FUSED_P=warp), each against SpGEMM's, and bit for bit the
 * same as each other. */
static void check_smoothed_p(cudaStream_t s, const cmrs_csr *A,
                             const char *what)
{
    cmrs_csr Ps, Pf, Ps2, Pw;
    int fused = -1, fused_w = -1;
    two_ps(s, A, &Ps, &Pf, &fused);
    setenv("CMRS_AMG_FUSED_P", "warp", 1);
    two_ps(s, A, &Ps2, &Pw, &fused_w);
    unsetenv("CMRS_AMG_FUSED_P");
    CHECK(fused == 1 && fused_w == 1, "%s: the fused P declined (%d, by "
          "warps %d)", what, fused, fused_w);
    if (fused == 1 && fused_w == 1) {
        fused_vs_spgemm(&Ps, &Pf, what, "chosen");
        fused_vs_spgemm(&Ps, &Pw, what, "warp a row");
        CHECK(same_csr_bits(&Pf, &Pw), "%s: the fused P by warps differs "
              "from the chosen path's", what);
    }
    cmrs_csr_free(&Ps);
    cmrs_csr_free(&Pf);
    cmrs_csr_free(&Ps2);
    cmrs_csr_free(&Pw);
}

/* A row longer than a thread's 32 entries goes to a warp a row (80); one
 * longer than a warp's 256 is declined (300). */
static void check_smoothed_p_long_row(cudaStream_t s)
{
    cmrs_csr A;
    arrow(&A, 80, 160.0, -1.0, 0.01);
    check_smoothed_p(s, &A, "arrow, a row of 80");
    cmrs_csr_free(&A);
    arrow(&A, 300, 600.0, -1.0, 0.01);
    cmrs_csr Ps, Pf;
    int fused = -1;
    two_ps(s, &A, &Ps, &Pf, &fused);
    CHECK(fused == 0, "a row of 300 entries: fused P done %d, expected "
          "declined", fused);
    cmrs_csr_free(&Ps);
    cmrs_csr_free(&Pf);
    cmrs_csr_free(&A);
}

/* Sorted rows give 1; the first row of 2+ entries swapped gives 0. */
static void check_sorted(cudaStream_t s, const cmrs_csr *A, const char *what)
{
    cmrs_csr B = *A;
    size_t ib = (size_t)A->nnz * sizeof(int32_t);
    B.indices = malloc(ib);
    memcpy(B.indices, A->indices, ib);
    int64_t i = 0;
    while (i < A->rows && A->indptr[i + 1] - A->indptr[i] < 2) ++i;
    CHECK(i < A->rows, "%s: no row with two entries", what);
    int32_t t = B.indices[A->indptr[i]];
    B.indices[A->indptr[i]] = B.indices[A->indptr[i] + 1];
    B.indices[A->indptr[i] + 1] = t;
    amg_dev_mat a, b;
    int sa = -1, sb = -1;
    CHECK_OK(amg_dev_upload(A, &a));
    CHECK_OK(amg_dev_upload(&B, &b));
    CHECK_OK(cmrs_gpu_csr_rows_sorted(s, a.rows, a.indptr_d, a.indices_d,
                                      &sa));
    CHECK_OK(cmrs_gpu_csr_rows_sorted(s, b.rows, b.indptr_d, b.indices_d,
                                      &sb));
    CHECK(sa == 1 && sb == 0, "%s: sorted check %d on sorted rows, %d "
          "after a swap in row %lld", what, sa, sb, (long long)i);
    amg_dev_free(&a);
    amg_dev_free(&b);
    free(B.indices);
}

/* A zero diagonal: the host keeps that row tentative, the GPU declines. */
static void check_declines(cudaStream_t s)
{
    double d[6] = {2, 2, 0, 2, 2, 2};
    cmrs_csr T, P, R, Ac;
    tridiag(&T, 6, d, -1.0);
    int32_t agg[6] = {0, 0, 1, 1, 2, 2};
    int done = -1;
    CHECK_OK(cmrs_gpu_sa_level(s, &T, agg, 3, 4.0 / 3.0, &P, &R, &Ac,
                               &done));
    CHECK(done == 0 && !P.indptr && !R.indptr && !Ac.indptr,
          "zero diagonal: done %d", done);
    int32_t g[6] = {-7, -7, -7, -7, -7, -7}, h[6];
    int64_t gn = -1, hn = -2;
    cmrs_amg_params p;
    cmrs_amg_params_default(&p);
    p.agg = CMRS_AMG_AGG_MIS2;
    done = -1;
    CHECK_OK(cmrs_amg_aggregate(&T, &p, h, &hn));
    CHECK_OK(cmrs_gpu_sa_coarsen(s, &T, p.theta, p.p_omega, g, &gn, &P, &R,
                                 &Ac, &done));
    CHECK(done == 0 && !P.indptr && gn == hn && memcmp(g, h, sizeof g) == 0,
          "zero diagonal, MIS-2 on the device: done %d, %lld aggregates "
          "(host %lld)", done, (long long)gn, (long long)hn);
    amg_dev_mat a;
    double *f_d = NULL, w = 0;
    int ok = -1;
    CHECK_OK(amg_dev_upload(&T, &a));
    CHECK(cudaMalloc((void **)&f_d, 6 * sizeof(double)) == cudaSuccess,
          "malloc f");
    CHECK_OK(cmrs_gpu_sa_scales(s, 6, a.indptr_d, a.indices_d, a.values_d,
                                4.0 / 3.0, f_d, &w, &ok));
    CHECK(ok == 0, "zero diagonal: GPU scales ok %d", ok);
    ok = -1;
    CHECK_OK(cmrs_gpu_csr_inverse_diagonal(s, 6, a.indptr_d, a.indices_d,
                                           a.values_d, 0, f_d, &ok));
    CHECK(ok == 0, "zero diagonal: GPU D^-1 ok %d", ok);
    cudaFree(f_d);
    amg_dev_free(&a);
    cmrs_csr_free(&T);
}

/* Aggregates of more than 2 MB come down through a helper thread and the
 * device's pinned staging (amg_sa_gpu.c); twice, the second time through
 * the staging the first one made. */
static void check_large_download(cudaStream_t s)
{
    cmrs_csr A, Ac;
    cmrs_amg_params p;
    cmrs_amg_params_default(&p);
    p.agg = CMRS_AMG_AGG_MIS2;
    lap2d(&A, 800); /* 640000 rows: 2.56 MB of aggregates */
    for (int round = 0; round < 2; ++round) {
        CHECK(check_level(&A, &p, s, "lap2d 800^2 (staged download)", round,
                          &Ac), "lap2d 800^2: no next level");
        cmrs_csr_free(&Ac);
    }
    cmrs_csr_free(&A);
}

/* A run's three products, downloaded (and freed on the device). */
static void products_down(cudaStream_t s, amg_dev_mat m[3], cmrs_csr h[3])
{
    for (int i = 0; i < 3; ++i) {
        CHECK_OK(amg_dev_download(s, &m[i], &h[i]));
        amg_dev_free(&m[i]);
    }
}

/* The aggregates kept on the device (keep_d): the host's array untouched
 * (poisoned), the kept copy bitwise the host's MIS-2 and the products bit
 * for bit those of the run that writes agg; where the device declines (a
 * zero diagonal) nothing is kept and agg is written. */
static void check_kept_aggregates(cudaStream_t s, const cmrs_csr *A,
                                  const char *what)
{
    cmrs_amg_params p;
    cmrs_amg_params_default(&p);
    p.agg = CMRS_AMG_AGG_MIS2;
    size_t n = (size_t)A->rows;
    int32_t *host = malloc(n * sizeof *host), *agg = malloc(n * sizeof *agg);
    int32_t *back = malloc(n * sizeof *back), *kept_d = NULL;
    int64_t hn = -2, gn = -1, kn = -1, diff = 0, poisoned = 0;
    for (size_t i = 0; i < n; ++i) back[i] = -9; /* differs from any */
    CHECK_OK(cmrs_amg_aggregate(A, &p, host, &hn));
    amg_dev_mat m[2][3];
    cmrs_csr h[2][3];
    int done[2] = {-1, -1};
    cmrs_gpu_sa_args plain = {1, p.theta, p.p_omega, agg, &gn, NULL};
    CHECK_OK(cmrs_gpu_sa_run(s, A, NULL, &plain, &m[0][0], &m[0][1],
                             &m[0][2], &done[0]));
    for (size_t i = 0; i < n; ++i) agg[i] = -7;
    cmrs_gpu_sa_args keep = {1, p.theta, p.p_omega, agg, &kn, &kept_d};
    CHECK_OK(cmrs_gpu_sa_run(s, A, NULL, &keep, &m[1][0], &m[1][1],
                             &m[1][2], &done[1]));
    CHECK(done[0] == 1 && done[1] == 1 && kept_d, "%s: kept aggregates: "
          "done %d / %d, kept %p", what, done[0], done[1], (void *)kept_d);
    for (size_t i = 0; i < n; ++i) poisoned += agg[i] == -7;
    if (kept_d)
        CHECK(cudaMemcpy(back, kept_d, n * sizeof *back,
                         cudaMemcpyDeviceToHost) == cudaSuccess, "download");
    for (size_t i = 0; i < n; ++i) diff += back[i] != host[i];
    CHECK(poisoned == (int64_t)n && kn == hn && gn == hn && diff == 0,
          "%s: kept aggregates: host array written at %lld rows, %lld "
          "aggregates (host %lld), %lld rows differ", what,
          (long long)(n - (size_t)poisoned), (long long)kn, (long long)hn,
          (long long)diff);
    for (int r = 0; r < 2; ++r) products_down(s, m[r], h[r]);
    const char *name[3] = {"P", "R", "A_c"};
    for (int i = 0; i < 3; ++i) {
        CHECK(same_csr_bits(&h[0][i], &h[1][i]), "%s: %s with the "
              "aggregates kept differs from the plain run's", what, name[i]);
        cmrs_csr_free(&h[0][i]);
        cmrs_csr_free(&h[1][i]);
    }
    cudaFree(kept_d);
    free(host);
    free(agg);
    free(back);
}

static void check_kept_declined(cudaStream_t s)
{
    double d[6] = {2, 2, 0, 2, 2, 2};
    cmrs_csr T;
    tridiag(&T, 6, d, -1.0);
    cmrs_amg_params p;
    cmrs_amg_params_default(&p);
    p.agg = CMRS_AMG_AGG_MIS2;
    int32_t g[6] = {-7, -7, -7, -7, -7, -7}, h[6], *kept_d = NULL;
    int64_t gn = -1, hn = -2;
    int done = -1;
    CHECK_OK(cmrs_amg_aggregate(&T, &p, h, &hn));
    amg_dev_mat m[3];
    cmrs_gpu_sa_args keep = {1, p.theta, p.p_omega, g, &gn, &kept_d};
    CHECK_OK(cmrs_gpu_sa_run(s, &T, NULL, &keep, &m[0], &m[1], &m[2],
                             &done));
    CHECK(done == 0 && !kept_d && gn == hn && memcmp(g, h, sizeof g) == 0,
          "zero diagonal, aggregates asked kept: done %d, kept %p, %lld "
          "aggregates (host %lld)", done, (void *)kept_d, (long long)gn,
          (long long)hn);
    for (int i = 0; i < 3; ++i) amg_dev_free(&m[i]);
    cmrs_csr_free(&T);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) ==
              cudaSuccess, "stream");
    for (int k = 0; k < 3; ++k) {
        cmrs_csr A;
        const char *name = "";
        memset(&A, 0, sizeof A);
        matrix_of(k, &A, &name);
        check_scales(s, &A, name);
        check_dinv(s, &A, name);
        check_tentative(s, &A, name);
        check_smoothed_p(s, &A, name);
        check_sorted(s, &A, name);
        check_hierarchy(&A, s, name, CMRS_AMG_AGG_GREEDY);
        check_hierarchy(&A, s, name, CMRS_AMG_AGG_MIS2);
        check_kept_aggregates(s, &A, name);
        cmrs_csr_free(&A);
    }
    check_declines(s);
    check_smoothed_p_long_row(s);
    check_large_download(s);
    check_kept_declined(s);
    {
        cmrs_csr A;
        lap2d(&A, 800); /* 2.56 MB of aggregates: the threaded download's */
        check_kept_aggregates(s, &A, "lap2d 800^2");
        cmrs_csr_free(&A);
    }
    cudaStreamDestroy(s);
    return check_summary();
}
