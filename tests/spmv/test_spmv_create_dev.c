/* cmrs_spmv_create_dev's checks of a device CSR view that need no GPU:
 * counts and pointers are refused (CMRS_E_USAGE, nothing created) before
 * any CUDA call, so this runs everywhere; the checks that read the device
 * arrays, and the set-ups themselves, are in test_gpu_spmv_dev.c. Also the
 * view's counts as a host matrix without arrays. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "spmv/csr_view.h"
#include "spmv/spmv.h"

/* Not dereferenced: the checks refuse before reading any array. */
static const int32_t k_fake_indptr[1], k_fake_indices[1];
static const double k_fake_values[1];

static void expect_refusal(const cmrs_csr_view_d *M, const char *want)
{
    static cmrs_spmv dummy;
    cmrs_spmv *s = &dummy; /* any non-NULL: must become NULL */
    CHECK_FAILS(cmrs_spmv_create_dev("cmrs", M, CMRS_PREC_DOUBLE, NULL, 0, &s),
                CMRS_E_USAGE, want);
    CHECK(s == NULL, "a refused creation left a handle");
}

static void test_refusals(void)
{
    const cmrs_csr_view_d good = {4, 5, 6, k_fake_indptr, k_fake_indices,
                                  k_fake_values};
    cmrs_csr_view_d bad;
    expect_refusal(NULL, "no device matrix");
    bad = good;
    bad.rows = -1;
    expect_refusal(&bad, "must not be negative");
    bad = good;
    bad.cols = -1;
    expect_refusal(&bad, "must not be negative");
    bad = good;
    bad.nnz = -6;
    expect_refusal(&bad, "must not be negative");
    bad = good;
    bad.cols = (int64_t)INT32_MAX + 1;
    expect_refusal(&bad, "32-bit indices");
    bad = good;
    bad.nnz = (int64_t)INT32_MAX + 1;
    expect_refusal(&bad, "32-bit indices");
    bad = good;
    bad.indptr_d = NULL;
    expect_refusal(&bad, "indptr_d is NULL");
    bad = good;
    bad.indices_d = NULL;
    expect_refusal(&bad, "without column indices or values");
    bad = good;
    bad.values_d = NULL;
    expect_refusal(&bad, "without column indices or values");
}

static void test_counts(void)
{
    const cmrs_csr_view_d M = {7, 3, 9, k_fake_indptr, k_fake_indices,
                               k_fake_values};
    const cmrs_csr c = cmrs_csr_view_counts(&M);
    CHECK(c.rows == 7 && c.cols == 3 && c.nnz == 9 && !c.indptr &&
              !c.indices && !c.values,
          "counts %lld x %lld, %lld entries", (long long)c.rows,
          (long long)c.cols, (long long)c.nnz);
}

int main(void)
{
    test_refusals();
    test_counts();
    return check_summary();
}
