/* The coarsest AMG level's inverse by the device sweep
 * (solver/amg/gpu/amg_dense_gpu.h) against the host Cholesky
 * (solver/amg/amg_dense.c) on the same matrices (tdense.h: 1 row, sizes
 * below, at and above the sweep's block width, several blocks with a
 * short last one, a pivot failing in the first and in a later block):
 * entries within 1e-12 of the host's relative to its largest, A inv = I to
 * rounding, exactly symmetric, and spd = 0 for a matrix that is not SPD
 * (as the host returns -1); the device-resident variant (the AMG
 * re-setup's, cmrs_gpu_dense_inverse_d) and the one from the device CSR
 * (the fresh setup's, cmrs_gpu_dense_inverse_dev) bit for bit the same,
 * with the dense pattern of its operator; the upper triangle is the one
 * read (a lower triangle scaled leaves the inverse bit for bit); more
 * than 46340 rows refused. Exits 77 without a GPU. */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "solver/amg/amg.h"
#include "solver/amg/gpu/amg_dense_gpu.h"
#include "solver/amg/gpu/amg_spgemm_dev.h"
#include "base/gpu/cuda_check.h"
#include "spmv/ref.h"
#include "tdense.h"

static void check_case(int k, const cmrs_csr *A, int spd, cudaStream_t s)
{
    int64_t n = A->rows;
    double *gpu = malloc((size_t)(n * n) * sizeof *gpu);
    double *host = malloc((size_t)(n * n) * sizeof *host);
    int gpu_spd = -1;
    memset(gpu, 0xff, (size_t)(n * n) * sizeof *gpu); /* NaN: a gap shows */
    CHECK_OK(cmrs_gpu_dense_inverse(s, A, gpu, &gpu_spd));
    int host_rc = cmrs_amg_dense_inverse(A, host);
    CHECK(gpu_spd == spd && host_rc == (spd ? 0 : -1),
          "case %d: GPU spd %d, host %d, expected spd %d", k, gpu_spd,
          host_rc, spd);
    if (spd && gpu_spd == 1 && host_rc == 0) {
        double d = cmrs_ref_rel_err(n * n, gpu, host);
        CHECK(d < 1e-12, "case %d (%lld rows): GPU vs host %g", k,
              (long long)n, d);
        double e = inverse_defect(A, gpu);
        CHECK(e < 1e-10, "case %d: |A inv - I| = %g", k, e);
        CHECK(exactly_symmetric(n, gpu), "case %d: not symmetric", k);
    }
    free(gpu);
    free(host);
}

/* cmrs_gpu_dense_inverse_d: the same inverse left on the device; NULL
 * where not SPD. */
static void check_device(int k, const cmrs_csr *A, int spd, cudaStream_t s)
{
    int64_t n = A->rows;
    size_t bytes = (size_t)(n * n) * sizeof(double);
    double *ref = malloc(bytes), *got = malloc(bytes), *inv_d = NULL;
    int ref_spd = -1, d_spd = -1;
    CHECK_OK(cmrs_gpu_dense_inverse(s, A, ref, &ref_spd));
    CHECK_OK(cmrs_gpu_dense_inverse_d(s, A, &inv_d, &d_spd));
    CHECK(d_spd == ref_spd && (inv_d != NULL) == (d_spd == 1), "case %d: "
          "device variant spd %d (array %p), host variant %d", k, d_spd,
          (void *)inv_d, ref_spd);
    if (inv_d && ref_spd == 1) {
        CHECK(cudaMemcpy(got, inv_d, bytes, cudaMemcpyDeviceToHost) ==
                  cudaSuccess, "download");
        CHECK(memcmp(got, ref, bytes) == 0, "case %d: device-resident "
              "inverse differs from the downloaded one", k);
    }
    (void)spd;
    cudaFree(inv_d);
    free(ref);
    free(got);
}

/* cmrs_gpu_dense_inverse_dev: the same from A's device CSR (the fresh
 * setup's coarsest level, no host copies), bit for bit; and the dense
 * pattern its operator is made with. */
static void check_from_device(int k, const cmrs_csr *A, cudaStream_t s)
{
    int64_t n = A->rows;
    size_t bytes = (size_t)(n * n) * sizeof(double);
    double *ref = malloc(bytes), *got = malloc(bytes), *inv_d = NULL;
    int ref_spd = -1, d_spd = -1;
    amg_dev_mat a;
    memset(&a, 0, sizeof a);
    CHECK_OK(cmrs_gpu_dense_inverse(s, A, ref, &ref_spd));
    CHECK_OK(amg_dev_upload(A, &a));
    memset(got, 0xff, bytes); /* poisoned: a skipped copy shows */
    CHECK_OK(cmrs_gpu_dense_inverse_dev(s, n, a.indptr_d, a.indices_d,
                                        a.values_d, &inv_d, &d_spd));
    CHECK(d_spd == ref_spd && (inv_d != NULL) == (d_spd == 1), "case %d: "
          "from the device CSR spd %d, from the host %d", k, d_spd, ref_spd);
    if (inv_d && ref_spd == 1) {
        CHECK(cudaMemcpy(got, inv_d, bytes, cudaMemcpyDeviceToHost) ==
                  cudaSuccess, "download");
        CHECK(memcmp(got, ref, bytes) == 0, "case %d: the inverse from the "
              "device CSR differs from the host path's", k);
    }
    int32_t *ptr_d = NULL, *idx_d = NULL;
    int32_t *ptr = malloc((size_t)(n + 1) * sizeof *ptr),
            *idx = malloc((size_t)(n * n) * sizeof *idx);
    CHECK(cudaMalloc((void **)&ptr_d, (size_t)(n + 1) * 4) == cudaSuccess &&
              cudaMalloc((void **)&idx_d, (size_t)(n * n) * 4) == cudaSuccess,
          "pattern arrays");
    CHECK(cudaMemset(ptr_d, 0xff, (size_t)(n + 1) * 4) == cudaSuccess &&
              cudaMemset(idx_d, 0xff, (size_t)(n * n) * 4) == cudaSuccess,
          "poison");
    /* the legacy stream's memsets land before the kernel on s runs */
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "poison");
    CHECK_OK(cmrs_gpu_dense_pattern(s, n, ptr_d, idx_d));
    /* s does not order with cudaMemcpy's legacy stream: wait for it */
    CHECK(cudaStreamSynchronize(s) == cudaSuccess, "pattern kernel");
    CHECK(cudaMemcpy(ptr, ptr_d, (size_t)(n + 1) * 4,
                     cudaMemcpyDeviceToHost) == cudaSuccess &&
              cudaMemcpy(idx, idx_d, (size_t)(n * n) * 4,
                         cudaMemcpyDeviceToHost) == cudaSuccess,
          "pattern download");
    int bad = 0;
    for (int64_t i = 0; i <= n; ++i) bad += ptr[i] != (int32_t)(i * n);
    for (int64_t q = 0; q < n * n; ++q) bad += idx[q] != (int32_t)(q % n);
    CHECK(bad == 0, "case %d: %d wrong entries in the dense pattern", k, bad);
    cudaFree(ptr_d);
    cudaFree(idx_d);
    free(ptr);
    free(idx);
    amg_dev_free(&a);
    cudaFree(inv_d);
    free(ref);
    free(got);
}

/* The matrix is taken as the symmetric one of its upper triangle (as
 * potrf's lower triangle of the column-major copy was): A with its
 * strictly lower entries tripled gives the inverse of A bit for bit. */
static void check_upper_read(cudaStream_t s)
{
    double d[40];
    for (int i = 0; i < 40; ++i) d[i] = 3.0 + 0.25 * (i % 5);
    cmrs_csr A, L;
    tridiag(&A, 40, d, -1.0);
    tridiag(&L, 40, d, -1.0);
    for (int64_t i = 0; i < L.rows; ++i)
        for (int64_t q = L.indptr[i]; q < L.indptr[i + 1]; ++q)
            if (L.indices[q] < i) L.values[q] *= 3.0;
    size_t bytes = 40 * 40 * sizeof(double);
    double *want = malloc(bytes), *got = malloc(bytes);
    int spd_a = -1, spd_l = -1;
    memset(got, 0xff, bytes);
    CHECK_OK(cmrs_gpu_dense_inverse(s, &A, want, &spd_a));
    CHECK_OK(cmrs_gpu_dense_inverse(s, &L, got, &spd_l));
    CHECK(spd_a == 1 && spd_l == 1, "upper read: spd %d / %d", spd_a, spd_l);
    CHECK(memcmp(want, got, bytes) == 0, "the lower triangle changed the "
          "inverse: the upper triangle is not the one read");
    free(want);
    free(got);
    cmrs_csr_free(&A);
    cmrs_csr_free(&L);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) ==
              cudaSuccess, "stream");
    cmrs_csr A;
    int spd;
    for (int k = 0; dense_case(k, &A, &spd); ++k) {
        check_case(k, &A, spd, s);
        check_device(k, &A, spd, s);
        check_from_device(k, &A, s);
        cmrs_csr_free(&A);
    }
    check_upper_read(s);
    cmrs_csr E = {0};
    double x;
    CHECK_FAILS(cmrs_gpu_dense_inverse(s, &E, &x, &spd), CMRS_E_LIMIT,
                "out of range");
    E.rows = E.cols = 46341; /* n^2 past int32: refused before any use */
    CHECK_FAILS(cmrs_gpu_dense_inverse(s, &E, &x, &spd), CMRS_E_LIMIT,
                "out of range");
    cudaStreamDestroy(s);
    return check_summary();
}
