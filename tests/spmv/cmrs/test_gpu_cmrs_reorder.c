/* The cmrs format's locality reordering on the GPU (spmv/cmrs/cmrs_reorder.h):
 * the device build of P A P^T (order, row maps, entry map, B's arrays)
 * against the host reference bit for bit, on random matrices with empty
 * rows and one long row, n = 1, a matrix of no entries (all rows
 * isolated), many small components and a random-order Poisson; the rule's
 * count on the device equal to the host's; and the default rule taking the
 * reordering on a random-order Poisson of CMRS_REORDER_MIN_ROWS rows or
 * more and not on its natural order, the option (opts.reorder) overriding
 * the rule both ways and written back, with both products checked against
 * the CPU reference (y poisoned). The
 * products of every kernel over a reordered matrix are in
 * test_gpu_cmrs_variants, value updates in test_gpu_update, setup from
 * device arrays in test_gpu_spmv_dev. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spmv/cmrs/cmrs_setup.h"
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "spmv/verify.h"
#include "test_reorder_cases.h"

/* n entries of `size` bytes at src_d equal host's. */
static int same_as_host(const void *src_d, const void *host, int64_t n,
                        size_t size)
{
    if (n == 0) return 1;
    void *h = malloc((size_t)n * size);
    int same = h && cudaMemcpy(h, src_d, (size_t)n * size,
                               cudaMemcpyDeviceToHost) == cudaSuccess &&
               !memcmp(h, host, (size_t)n * size);
    free(h);
    return same;
}

static void check_build(const cmrs_csr *A, const char *name)
{
    cmrs_reordered r;
    cmrs_reordered_d d;
    cmrs_csr_dev up;
    CHECK_OK(cmrs_reordered_build(A, &r));
    CHECK_OK(cmrs_csr_dev_upload(A, CMRS_PREC_DOUBLE, &up));
    const cmrs_csr_view_d M = {A->rows, A->cols, A->nnz,
                               (const int32_t *)up.indptr_d, up.indices_d,
                               (const double *)up.values_d};
    cmrs_code rc = cmrs_reordered_build_dev(&M, &d);
    CHECK(rc == CMRS_OK, "%s: device build: %s", name, cmrs_error_message());
    if (rc == CMRS_OK && r.B.indptr) {
        int32_t *ptr = malloc(((size_t)A->rows + 1) * sizeof *ptr);
        for (int64_t i = 0; ptr && i <= A->rows; ++i)
            ptr[i] = (int32_t)r.B.indptr[i];
        CHECK(ptr && same_as_host(d.old_of_new_d, r.old_of_new, A->rows, 4) &&
                  same_as_host(d.new_of_old_d, r.new_of_old, A->rows, 4) &&
                  same_as_host(d.entry_of_d, r.entry_of, A->nnz, 4) &&
                  same_as_host(d.B.indptr_d, ptr, A->rows + 1, 4) &&
                  same_as_host(d.B.indices_d, r.B.indices, A->nnz, 4) &&
                  same_as_host(d.B.values_d, r.B.values, A->nnz, 8),
              "%s: the GPU's P A P^T differs from the host's", name);
        free(ptr);
    }
    double share = -1;
    CHECK_OK(cmrs_reorder_near_share_dev(&M, &share));
    CHECK(share == cmrs_reorder_near_share(A), "%s: near share %g on the "
          "GPU, %g on the host", name, share, cmrs_reorder_near_share(A));
    cmrs_reordered_dev_free(&d);
    cmrs_csr_dev_free(&up);
    cmrs_reordered_free(&r);
}

/* 2x2 blocks: about rows / 2 components (the searches' doubling seeds);
 * an odd last row is alone, its diagonal only. */
static void check_blocks(int64_t rows)
{
    cmrs_csr A;
    int64_t k = 0;
    CHECK_OK(cmrs_csr_alloc(&A, rows, rows, 2 * rows));
    for (int64_t i = 0; i < rows; ++i) {
        const int64_t first = i & ~(int64_t)1, last = first + 1 < rows
                                                          ? first + 1
                                                          : first;
        A.indptr[i] = k;
        for (int64_t c = first; c <= last; ++c, ++k) {
            A.indices[k] = (int32_t)c;
            A.values[k] = c == i ? 4.0 + (double)i : -1.0;
        }
    }
    A.indptr[rows] = k;
    A.nnz = k;
    check_build(&A, "2x2 blocks");
    cmrs_csr_free(&A);
}

/* The cmrs format on A with opts.reorder = option (0: the rule):
 * reordered or not as `want` (and opts.reorder written back as 1 or -1;
 * a permutation where reordered or stored in strips of one width), its
 * products right. */
static void check_default(const cmrs_csr *A, int option, int want,
                          const char *name)
{
    cmrs_spmv *s = NULL;
    cmrs_spmv_opts o;
    unsetenv("CMRS_CMRS_VARIANT");
    for (int p = 0; p < 2; ++p) {
        const cmrs_prec prec = p ? CMRS_PREC_SINGLE : CMRS_PREC_DOUBLE;
        memset(&o, 0, sizeof o);
        o.reorder = option;
        cmrs_code rc = cmrs_spmv_create("cmrs", A, prec, &o, 0, &s);
        CHECK(rc == CMRS_OK, "%s: setup: %s", name, cmrs_error_message());
        if (rc != CMRS_OK) continue;
        const cmrs_impl *im = s->impl;
        CHECK((im->reorder.xp_d != NULL) == want &&
                  (im->perm_d != NULL) == (want || im->mat.slice_width > 0) &&
                  s->opts.reorder == (want ? 1 : -1),
              "%s %s, reorder option %d: reordered %d (written back %d), "
              "want %d", name, cmrs_prec_name(prec), option,
              im->reorder.xp_d != NULL, s->opts.reorder, want);
        double *x = cmrs_malloc_array((size_t)A->cols, sizeof *x);
        double *y0 = cmrs_malloc_array((size_t)A->rows, sizeof *y0);
        cmrs_random_vector(x, A->cols, 3);
        cmrs_random_vector(y0, A->rows, 4);
        cmrs_spmv_check k1 = {0}, k2 = {0};
        rc = cmrs_spmv_verify(s, A, 1.0, x, 0.0, NULL, &k1);
        if (rc == CMRS_OK) rc = cmrs_spmv_verify(s, A, -1.5, x, 0.75, y0, &k2);
        CHECK(rc == CMRS_OK && k1.ok && k2.ok, "%s %s: rel err %g / %g (bounds "
              "%g / %g) %s", name, cmrs_prec_name(prec), k1.rel_err,
              k2.rel_err, k1.tol, k2.tol, rc ? cmrs_error_message() : "");
        free(x);
        free(y0);
        cmrs_spmv_destroy(s);
        s = NULL;
    }
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    for (size_t i = 0; i < N_REORDER_SPECS; ++i) {
        cmrs_csr A;
        CHECK_OK(test_random_csr(&k_reorder_specs[i], 90 + i, &A));
        check_build(&A, k_reorder_specs[i].name);
        cmrs_csr_free(&A);
    }
    check_blocks(5001);
    cmrs_system small = reorder_poisson(12, CMRS_ORDER_RANDOM);
    check_build(&small.A, "random-order Poisson 12^3");
    cmrs_system_free(&small);
    const int64_t n = reorder_min_cube();
    cmrs_system rnd = reorder_poisson(n, CMRS_ORDER_RANDOM);
    cmrs_system nat = reorder_poisson(n, CMRS_ORDER_NATURAL);
    check_build(&rnd.A, "random-order Poisson n^3");
    check_default(&rnd.A, 0, 1, "random-order Poisson n^3");
    check_default(&nat.A, 0, 0, "natural-order Poisson n^3");
    check_default(&rnd.A, -1, 0, "random-order Poisson n^3");
    check_default(&nat.A, 1, 1, "natural-order Poisson n^3");
    cmrs_system_free(&rnd);
    cmrs_system_free(&nat);
    return check_summary();
}
