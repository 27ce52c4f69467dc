/* New values, same pattern (cmrs_spmv_update_values) on the GPU, for every
 * registered format: set up with A, replace the values with those of A2
 * (same pattern, new random values), then the product must equal a fresh
 * setup with A2 bit for bit (same kernel, same values) and the CPU
 * reference for A2 within the bound of spmv/verify.h, y poisoned first. A
 * format without the operation must say so (CMRS_E_USAGE); a matrix of
 * other sizes is refused. CMRS also in its reordered layouts (sorted,
 * cmrs-mod) and with each kernel, which store values through a
 * permutation or in CSR order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spmv/cuda_check.h"
#include "spmv/device.h"
#include "spmv/spmv.h"
#include "test_cmrs_matrices.h"

static const test_spec k_specs[] = {
    {"mu=5 (aorta-like)", 3000, 3000, 5, 0.3, 0, -1, 0, 0, TEST_LEN_NORMAL},
    {"mu=27", 500, 500, 27, 5, 0, -1, 0, 0, TEST_LEN_NORMAL},
    {"30% empty rows", 999, 999, 4, 1, 0.3, -1, 0, 0, TEST_LEN_NORMAL},
    {"one row of 11000 among mu=3", 400, 12000, 3, 1, 0, 150, 11000, 1,
     TEST_LEN_NORMAL},
    {"rows=17", 17, 17, 3, 1, 0, -1, 0, 0, TEST_LEN_NORMAL},
    {"n=1", 1, 1, 1, 0, 0, -1, 0, 0, TEST_LEN_NORMAL},
    {"wide 70x190", 70, 190, 9, 3, 0, -1, 0, 0, TEST_LEN_NORMAL},
    {"all rows empty", 50, 50, 0, 0, 1.0, -1, 0, 0, TEST_LEN_NORMAL},
};
#define N_SPECS (int)(sizeof k_specs / sizeof k_specs[0])

/* y = A x with s (beta = 0, y poisoned first) into y_h. */
static cmrs_code product(cmrs_spmv *s, const double *x_h, int64_t cols,
                         int64_t rows, double *y_h)
{
    cmrs_code rc = CMRS_OK;
    void *x_d = NULL, *y_d = NULL;
    size_t vb = cmrs_prec_value_bytes(s->prec);
    CMRS_TRY(cmrs_dev_upload_values(x_h, cols, s->prec, "x", &x_d));
    CMRS_TRY(cmrs_dev_alloc_values(rows > 0 ? rows : 1, s->prec, &y_d));
    CMRS_CUDA_TRY(cudaMemset(y_d, 0xff, (size_t)(rows > 0 ? rows : 1) * vb));
    CMRS_TRY(cmrs_spmv_apply(s, 1.0, x_d, 0.0, y_d));
    CMRS_CUDA_TRY(cudaDeviceSynchronize());
    CMRS_TRY(cmrs_dev_download_values(y_d, rows, s->prec, y_h));
done:
    cudaFree(x_d);
    cudaFree(y_d);
    return rc;
}

/* A2: A's pattern with new values (never zero, so a dropped update shows). */
static cmrs_code new_values(const cmrs_csr *A, uint64_t seed, cmrs_csr *A2)
{
    CMRS_CHECK(cmrs_csr_copy(A2, A));
    for (int64_t k = 0; k < A->nnz; ++k)
        A2->values[k] = 1.0 + cmrs_rng_uniform(&seed) + 0.25 * A->values[k];
    return CMRS_OK;
}

static void check_updated(const char *format, const cmrs_csr *A,
                          const cmrs_csr *A2, cmrs_prec prec,
                          const cmrs_spmv_opts *o, const char *label)
{
    cmrs_spmv *s = NULL, *fresh = NULL;
    cmrs_code rc = cmrs_spmv_create(format, A, prec, o, 0, &s);
    if (rc == CMRS_E_LIMIT) { /* a padded format refusing the long row */
        cmrs_error_clear();
        return;
    }
    CHECK(rc == CMRS_OK, "%s %s: setup: %s", format, label, cmrs_error_message());
    if (rc != CMRS_OK) return;
    if (!s->ops->update_values) {
        CHECK_FAILS(cmrs_spmv_update_values(s, A2), CMRS_E_USAGE,
                    "cannot replace its values");
        cmrs_spmv_destroy(s);
        return;
    }
    CHECK_OK(cmrs_spmv_update_values(s, A2));
    CHECK_OK(cmrs_spmv_create(format, A2, prec, o, 0, &fresh));
    double *x = cmrs_malloc_array((size_t)A->cols, sizeof *x);
    double *y1 = cmrs_malloc_array((size_t)A->rows + 1, sizeof *y1);
    double *y2 = cmrs_malloc_array((size_t)A->rows + 1, sizeof *y2);
    cmrs_random_vector(x, A->cols, 77);
    if (fresh && !strncmp(format, "cmrs", 4)) {
        CHECK_OK(product(s, x, A->cols, A->rows, y1));
        CHECK_OK(product(fresh, x, A->cols, A->rows, y2));
        CHECK(!memcmp(y1, y2, (size_t)A->rows * sizeof *y1),
              "%s %s %s: updated product differs from a fresh setup's",
              format, label, cmrs_prec_name(prec));
    }
    cmrs_spmv_check k = {0}, kf = {0};
    if (fresh) CHECK_OK(cmrs_spmv_verify(fresh, A2, 1.0, x, 0.0, NULL, &kf));
    CHECK(!fresh || kf.ok, "%s %s: fresh setup against the reference", format,
          label);
    CHECK_OK(cmrs_spmv_verify(s, A2, 1.0, x, 0.0, NULL, &k));
    CHECK(k.ok, "%s %s %s: against the reference for the new values: rel "
          "err %g (bound %g)", format, label, cmrs_prec_name(prec), k.rel_err,
          k.tol);
    free(x);
    free(y1);
    free(y2);
    cmrs_spmv_destroy(fresh);
    cmrs_spmv_destroy(s);
}

/* Another size is refused before the format is asked. */
static void check_refusal(const cmrs_csr *A)
{
    cmrs_spmv *s = NULL;
    cmrs_csr B;
    CHECK_OK(cmrs_spmv_create("cmrs", A, CMRS_PREC_DOUBLE, NULL, 0, &s));
    CHECK_OK(cmrs_csr_copy(&B, A));
    B.nnz -= 1;
    if (s) CHECK_FAILS(cmrs_spmv_update_values(s, &B), CMRS_E_USAGE,
                       "the pattern must stay the same");
    B.nnz += 1;
    cmrs_csr_free(&B);
    cmrs_spmv_destroy(s);
}

static void cmrs_layouts(const cmrs_csr *A, const cmrs_csr *A2)
{
    static const char *const kernels[] = {"rows", "tile", "seg", NULL};
    cmrs_spmv_opts sorted = {0, 0, 0, 1, 0, 0}, h7 = {7, 0, 0, 0, 0, 0};
    for (int p = 0; p < 2; ++p) {
        cmrs_prec prec = p ? CMRS_PREC_SINGLE : CMRS_PREC_DOUBLE;
        for (int k = 0; kernels[k]; ++k) {
            setenv("CMRS_CMRS_VARIANT", kernels[k], 1);
            check_updated("cmrs", A, A2, prec, &h7, kernels[k]);
        }
        unsetenv("CMRS_CMRS_VARIANT");
        check_updated("cmrs", A, A2, prec, &sorted, "sorted");
    }
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    unsetenv("CMRS_CMRS_VARIANT");
    for (int i = 0; i < N_SPECS; ++i) {
        cmrs_csr A, A2;
        CHECK_OK(test_random_csr(&k_specs[i], 500 + (uint64_t)i, &A));
        CHECK_OK(new_values(&A, 900 + (uint64_t)i, &A2));
        for (size_t f = 0; f < cmrs_spmv_format_count(); ++f)
            for (int p = 0; p < 2; ++p)
                check_updated(cmrs_spmv_format_at(f)->name, &A, &A2,
                              p ? CMRS_PREC_SINGLE : CMRS_PREC_DOUBLE, NULL,
                              k_specs[i].name);
        cmrs_layouts(&A, &A2);
        if (i == 0) check_refusal(&A);
        cmrs_csr_free(&A);
        cmrs_csr_free(&A2);
    }
    return check_summary();
}
