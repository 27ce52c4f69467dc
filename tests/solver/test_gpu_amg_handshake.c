/* Handshake aggregation on the GPU (solver/amg_handshake_gpu.h) against
 * the host reference (solver/amg_handshake.h): the same number of
 * aggregates and the same aggregate for every row, bit for bit, for sizes
 * 2, 4, 8 and 16 on every level of a hierarchy (each level's matrix is the
 * host Galerkin product of the one above) of a vessel, a Poisson matrix, a
 * high-contrast Poisson matrix and a nonsymmetric upwind operator; the
 * aggregates also cover every row. The coarse operator the GPU forms on
 * the way (Q^T A Q) has the host R A P's exact pattern and its values
 * within 1e-13 of sum |a| over each entry's terms. Exits 77 without a
 * GPU. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solver/amg_handshake.h"
#include "solver/amg_handshake_gpu.h"
#include "spmv/cuda_check.h"
#include "systems.h"
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
    int32_t *g = malloc((size_t)A->rows * sizeof *g);
    int64_t gn = -1;
    CHECK_OK(cmrs_amg_handshake(A, p, agg, nc));
    CHECK_OK(cmrs_gpu_handshake(s, A, p, g, &gn, Ac));
    int64_t diff = 0, out = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        diff += agg[i] != g[i];
        out += agg[i] < 0 || agg[i] >= *nc;
    }
    CHECK(gn == *nc && diff == 0 && out == 0, "%s size %d level %d: GPU %lld "
          "aggregates, host %lld, %lld rows differ, %lld out of range", what,
          p->agg_size, level, (long long)gn, (long long)*nc, (long long)diff,
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
static void check_hierarchy(const cmrs_csr *A0, int size, cudaStream_t s,
                            const char *what)
{
    /* The GPU forms Q^T A Q for the tentative P only. */
    cmrs_amg_params p = amg_plain_params(CMRS_AMG_AGG_HANDSHAKE, size);
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
            check_galerkin(&A, &R, &P, &Ac, &Ag, what, level);
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
        for (int z = 0; z < 4; ++z) check_hierarchy(&A, sizes[z], s, name);
        cmrs_csr_free(&A);
    }
    cmrs_csr E = {0};
    int32_t a;
    int64_t n = -1;
    cmrs_amg_params p;
    cmrs_amg_params_default(&p);
    CHECK_OK(cmrs_gpu_handshake(s, &E, &p, &a, &n, NULL));
    CHECK(n == 0, "empty matrix: %lld aggregates", (long long)n);
    cudaStreamDestroy(s);
    return check_summary();
}
