/* The GPU's aggregations against their host references: handshake
 * (solver/amg/gpu/amg_handshake_gpu.h, sizes 2, 4, 8 and 16) and MIS-2
 * (solver/amg/gpu/amg_mis2_gpu.h, theta 0.08 and 0.02): the same number of
 * aggregates and the same aggregate for every row, bit for bit, on every
 * level of a hierarchy (each level's matrix is the host Galerkin product
 * of the one above) of a vessel, a Poisson matrix, a high-contrast Poisson
 * matrix and a nonsymmetric upwind operator, and (MIS-2) on edge cases:
 * a row with a zero diagonal, an empty row, 1 x 1, no entries, one row
 * of 301 entries; the aggregates also cover every row. MIS-2 runs with
 * its lanes a row chosen by row length and forced to each choice (1, 8,
 * 16, 32: CMRS_AMG_MIS_LANES). The coarse operator handshake forms on
 * the way (Q^T A Q) has the host R A P's exact pattern and its values
 * within 1e-13 of sum |a| over each entry's terms. Exits 77 without a
 * GPU. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solver/amg/amg_handshake.h"
#include "solver/amg/gpu/amg_handshake_gpu.h"
#include "solver/amg/amg_mis2.h"
#include "solver/amg/gpu/amg_mis2_gpu.h"
#include "base/gpu/cuda_check.h"
#include "solver/systems.h"
#include "tamg.h"

static void from_system(cmrs_system *sys, cmrs_csr *A)
{
    *A = sys->A;
    memset(&sys->A, 0, sizeof sys->A);
    cmrs_system_free(sys);
}

static void matrix_of(int k, cmrs_csr *A, const char **name)
{
    cmrs_system sys;
    memset(&sys, 0, sizeof sys);
    cmrs_vessel_opts v = {60000, 0};
    cmrs_poisson_opts p = {40, 7, 0.0, 1}, c = {32, 7, 3.0, 5};
    switch (k) {
    case 0: *name = "vessel 60k"; CHECK_OK(cmrs_gen_vessel(&v, &sys)); break;
    case 1: *name = "poisson 40^3"; CHECK_OK(cmrs_gen_poisson3d(&p, &sys));
        break;
    case 2: *name = "contrast 32^3"; CHECK_OK(cmrs_gen_poisson3d(&c, &sys));
        break;
    default: *name = "upwind2d 150^2"; upwind2d(A, 150, 0.7); return;
    }
    from_system(&sys, A);
}

/* Host and GPU aggregates of A; returns 1 when they agree (agg: the host's,
 * *nc its count; Ac: the GPU's Q^T A Q). */
static int compare(const cmrs_csr *A, const cmrs_amg_params *p,
                   cudaStream_t s, int32_t *agg, int64_t *nc, cmrs_csr *Ac,
                   const char *what, int level)
{
    int32_t *g = malloc((size_t)A->rows * sizeof *g + 1);
    int64_t gn = -1;
    int mis = p->agg == CMRS_AMG_AGG_MIS2;
    for (int64_t i = 0; i < A->rows; ++i) g[i] = -7; /* poison */
    memset(Ac, 0, sizeof *Ac);
    if (mis) {
        CHECK_OK(cmrs_amg_mis2(A, p, agg, nc));
        CHECK_OK(cmrs_gpu_mis2(s, A, p, g, &gn));
    } else {
        CHECK_OK(cmrs_amg_handshake(A, p, agg, nc));
        CHECK_OK(cmrs_gpu_handshake(s, A, p, g, &gn, Ac));
    }
    int64_t diff = 0, out = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        diff += agg[i] != g[i];
        out += agg[i] < 0 || agg[i] >= *nc;
    }
    CHECK(gn == *nc && diff == 0 && out == 0, "%s %s %d level %d: GPU %lld "
          "aggregates, host %lld, %lld rows differ, %lld out of range", what,
          mis ? "mis2 theta x100" : "handshake size",
          mis ? (int)(p->theta * 100) : p->agg_size, level, (long long)gn, (long long)*nc, (long long)diff,
          (long long)out);
    free(g);
    return gn == *nc && diff == 0;
}

/* The GPU's Ac against the host's R A P (pattern exact, values within
 * 1e-13 of the entry's sum of |terms|: the host product of |A|). */
static void check_galerkin(const cmrs_csr *A, const cmrs_csr *R,
                           const cmrs_csr *P, const cmrs_csr *host,
                           const cmrs_csr *gpu, const char *what, int level)
{
    cmrs_csr B = *A, bound;
    B.values = malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof *B.values);
    for (int64_t k = 0; k < A->nnz; ++k) B.values[k] = fabs(A->values[k]);
    CHECK_OK(cmrs_amg_galerkin_host(R, &B, P, &bound));
    int same = gpu->rows == host->rows && gpu->nnz == host->nnz;
    for (int64_t i = 0; same && i <= host->rows; ++i)
        same = gpu->indptr[i] == host->indptr[i];
    int64_t bad = 0;
    for (int64_t k = 0; same && k < host->nnz; ++k) {
        same = gpu->indices[k] == host->indices[k];
        bad += fabs(gpu->values[k] - host->values[k]) >
               1e-13 * bound.values[k];
    }
    CHECK(same && bad == 0, "%s level %d: GPU Q^T A Q %s, %lld values off",
          what, level, same ? "pattern right" : "pattern differs",
          (long long)bad);
    free(B.values);
    cmrs_csr_free(&bound);
}

/* Every level down to 50 rows: compare, then the next level on the host. */
static void check_hierarchy(const cmrs_csr *A0, const cmrs_amg_params *pp,
                            cudaStream_t s, const char *what)
{
    /* Handshake's Q^T A Q is for the tentative P: plain params. */
    cmrs_amg_params p = *pp;
    cmrs_csr A = *A0, P, R, Ac, Ag;
    int owned = 0;
    for (int level = 0; A.rows > 50; ++level) {
        int32_t *agg = malloc((size_t)A.rows * sizeof *agg);
        int64_t nc = 0;
        int same = compare(&A, &p, s, agg, &nc, &Ag, what, level);
        int go = same && nc * 10 <= A.rows * 9;
        if (go) {
            CHECK_OK(cmrs_amg_prolongator(&A, agg, nc, &p, &P));
            CHECK_OK(cmrs_csr_transpose(&P, &R));
            CHECK_OK(cmrs_amg_galerkin_host(&R, &A, &P, &Ac));
            if (Ag.indptr) check_galerkin(&A, &R, &P, &Ac, &Ag, what, level);
            cmrs_csr_free(&P);
            cmrs_csr_free(&R);
        }
        cmrs_csr_free(&Ag);
        free(agg);
        if (!go) break;
        if (owned) cmrs_csr_free(&A);
        A = Ac;
        owned = 1;
    }
    if (owned) cmrs_csr_free(&A);
}

/* lap2d 12^2 with row 13's diagonal zero and row 40 emptied (its
 * neighbours keep their entries to it: a one-way pattern). */
static void edited(cmrs_csr *A)
{
    cmrs_csr L;
    lap2d(&L, 12);
    CHECK_OK(cmrs_csr_alloc(A, L.rows, L.cols, L.nnz));
    int64_t nz = 0;
    A->indptr[0] = 0;
    for (int64_t i = 0; i < L.rows; ++i) {
        for (int64_t k = L.indptr[i]; i != 40 && k < L.indptr[i + 1]; ++k) {
            A->indices[nz] = L.indices[k];
            A->values[nz++] = i == 13 && L.indices[k] == 13 ? 0.0
                                                            : L.values[k];
        }
        A->indptr[i + 1] = nz;
    }
    A->nnz = nz;
    cmrs_csr_free(&L);
}

/* MIS-2 on the edge cases: bitwise the host's, every row aggregated. */
static void mis2_edges(cudaStream_t s)
{
    cmrs_amg_params p = amg_plain_params(CMRS_AMG_AGG_MIS2, 8);
    p.theta = 0.02;
    cmrs_csr A, one = {0}, none = {0};
    edited(&A);
    int32_t agg[1024];
    int64_t nc = 0;
    cmrs_csr Ag;
    compare(&A, &p, s, agg, &nc, &Ag, "lap2d 12^2 zero diagonal, empty row",
            0);
    CHECK(nc > 2 && nc < A.rows, "edited: %lld aggregates", (long long)nc);
    cmrs_csr_free(&A);
    CHECK_OK(cmrs_csr_alloc(&one, 1, 1, 1));
    one.indptr[0] = 0;
    one.indptr[1] = 1;
    one.indices[0] = 0;
    one.values[0] = 4.0;
    compare(&one, &p, s, agg, &nc, &Ag, "1x1", 0);
    CHECK(nc == 1 && agg[0] == 0, "1x1: %lld aggregates", (long long)nc);
    cmrs_csr_free(&one);
    CHECK_OK(cmrs_csr_alloc(&none, 5, 5, 0)); /* no entries: singletons */
    memset(none.indptr, 0, 6 * sizeof *none.indptr);
    compare(&none, &p, s, agg, &nc, &Ag, "5x5 without entries", 0);
    CHECK(nc == 5, "no entries: %lld aggregates", (long long)nc);
    cmrs_csr_free(&none);
    /* one row of 301 entries, 301 rows: no whole groups */
    arrow(&A, 301, 301.0, -0.5, 0.001);
    compare(&A, &p, s, agg, &nc, &Ag, "arrow 301", 0);
    cmrs_csr_free(&A);
}

/* MIS-2's lanes a row (amg_mis2_gpu.cu): by row length, then each forced
 * (CMRS_AMG_MIS_LANES); -1 unsets it. Returns its name. */
#define LANE_CHOICES 5
static const char *lanes_set(int l)
{
    static const char *v[LANE_CHOICES] = {"auto", "1", "8", "16", "32"};
    if (l <= 0) unsetenv("CMRS_AMG_MIS_LANES");
    else setenv("CMRS_AMG_MIS_LANES", v[l], 1);
    return l < 0 ? "" : v[l];
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) ==
              cudaSuccess, "stream");
    static const int sizes[] = {2, 4, 8, 16};
    for (int k = 0; k < 4; ++k) {
        cmrs_csr A;
        const char *name = "";
        memset(&A, 0, sizeof A);
        matrix_of(k, &A, &name);
        for (int z = 0; z < 4; ++z) {
            cmrs_amg_params p = amg_plain_params(CMRS_AMG_AGG_HANDSHAKE,
                                                 sizes[z]);
            check_hierarchy(&A, &p, s, name);
        }
        for (int t = 0; t < 2 * LANE_CHOICES; ++t) {
            cmrs_amg_params p = amg_plain_params(CMRS_AMG_AGG_MIS2, 8);
            p.theta = t % 2 ? 0.02 : 0.08;
            char what[96];
            snprintf(what, sizeof what, "%s, %s lanes a row", name,
                     lanes_set(t / 2));
            check_hierarchy(&A, &p, s, what);
        }
        lanes_set(-1);
        cmrs_csr_free(&A);
    }
    for (int l = 0; l < LANE_CHOICES; ++l) {
        lanes_set(l);
        mis2_edges(s);
    }
    lanes_set(-1);
    cmrs_csr E = {0};
    int32_t a;
    int64_t n = -1;
    cmrs_amg_params p;
    cmrs_amg_params_default(&p);
    CHECK_OK(cmrs_gpu_handshake(s, &E, &p, &a, &n, NULL));
    CHECK(n == 0, "empty matrix: %lld aggregates", (long long)n);
    n = -1;
    CHECK_OK(cmrs_gpu_mis2(s, &E, &p, &a, &n));
    CHECK(n == 0, "empty matrix, mis2: %lld aggregates", (long long)n);
    cudaStreamDestroy(s);
    return check_summary();
}
