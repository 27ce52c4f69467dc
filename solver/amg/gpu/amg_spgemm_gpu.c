/* The AMG setup's sparse products C = X Y on the GPU (see the header for
 * the contract): by rows (amg_rowprod_gpu.cu) where X's rows are short,
 * else cuSPARSE's generic SpGEMM; C's arrays cudaMalloc'd (level
 * matrices, amg_dev_malloc) or scratch of the setup's pool (A P).
 *
 * Each cuSPARSE product follows the sequence the CUDA 13 API prescribes:
 * workEstimation twice (size query, then with the buffer), compute twice
 * (likewise), cusparseSpMatGetSize for nnz(C), then the allocation of C's
 * columns and values, cusparseCsrSetPointers and cusparseSpGEMM_copy;
 * the work buffers come from the setup's pool (amg_pool_gpu.h).
 * C's row offsets are allocated before the first call and given to C's
 * descriptor at creation, as NVIDIA's cuSPARSE SpGEMM sample does.
 *
 * Indices are 32-bit (CUSPARSE_INDEX_32I): the host CSR's int64 row
 * pointers are narrowed on upload, after checking that every count fits.
 * An operand with no entries never reaches cuSPARSE (some versions refuse
 * empty operands or NULL arrays): the result is then the empty matrix of
 * the right shape, as the host reference gives. A product that comes out
 * empty (nnz 0 after compute, e.g. A's columns all hit empty rows of P)
 * is not copied either, and ends the same way.
 *
 * The pattern is expected to be the structural one (entries that cancel
 * to 0 stay stored, as in the host reference): NVIDIA documents no value
 * filtering in SpGEMM, and tests/solver/amg/test_gpu_amg_spgemm.c checks it
 * on stored-zero and cancelling operands. Sorted columns
 * in C are stated by NVIDIA only informally (CUDALibrarySamples issue
 * #84), so the downloaded result is checked row by row and sorted on the
 * host if needed (a linear scan when it is already sorted). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/device.h"
#include "base/gpu/upload.h"
#include "solver/amg/amg_prof.h"
#include "amg_pool_gpu.h"
#include "amg_rowprod_gpu.h"
#include "amg_spgemm_dev.h"
#include "amg_spgemm_gpu.h"
#include "spmv/csr_view.h"
#include "base/gpu/cuda_check.h"


void amg_dev_free(amg_dev_mat *m)
{
    if (m->descr) cusparseDestroySpMat(m->descr);
    if (m->pooled) {
        amg_pool_free(m->indptr_d, m->pool_stream);
        amg_pool_free(m->indices_d, m->pool_stream);
        amg_pool_free(m->values_d, m->pool_stream);
    } else {
        CMRS_GPU_FREE_ALL(m->indptr_d, m->indices_d, m->values_d);
    }
    memset(m, 0, sizeof *m);
}

cmrs_code amg_dev_mat_alloc(const amg_dev_mat *m, void **p, size_t bytes)
{
    if (m->pooled)
        CMRS_CHECK(amg_pool_alloc(p, bytes, m->pool_stream));
    else
        CMRS_CHECK(amg_dev_malloc(p, bytes));
    return CMRS_OK;
}

/* cuSPARSE's 32-bit indices bound rows, columns and nnz alike (row
 * offsets hold values up to nnz). */
cmrs_code amg_dev_check_int32(int64_t rows, int64_t cols, int64_t nnz,
                             const char *what)
{
    CMRS_ENSURE(rows <= INT32_MAX && cols <= INT32_MAX && nnz <= INT32_MAX,
                CMRS_E_LIMIT, "GPU Galerkin product: %s is %lld x %lld with "
                "%lld nonzeros; cuSPARSE SpGEMM with 32-bit indices takes at "
                "most %d of each", what, (long long)rows, (long long)cols,
                (long long)nnz, INT32_MAX);
    return CMRS_OK;
}

static cmrs_code check_shapes(const cmrs_csr *R, const cmrs_csr *A,
                              const cmrs_csr *P)
{
    CMRS_ENSURE(R->cols == A->rows && A->cols == P->rows, CMRS_E_INPUT,
                "GPU Galerkin product: shapes do not chain: R is %lld x %lld, "
                "A %lld x %lld, P %lld x %lld", (long long)R->rows,
                (long long)R->cols, (long long)A->rows, (long long)A->cols,
                (long long)P->rows, (long long)P->cols);
    CMRS_CHECK(amg_dev_check_int32(R->rows, R->cols, R->nnz, "R"));
    CMRS_CHECK(amg_dev_check_int32(A->rows, A->cols, A->nnz, "A"));
    CMRS_CHECK(amg_dev_check_int32(P->rows, P->cols, P->nnz, "P"));
    return CMRS_OK;
}

/* The rows x cols matrix with no entries (every row pointer 0). */
static cmrs_code empty_result(int64_t rows, int64_t cols, cmrs_csr *C)
{
    CMRS_CHECK(cmrs_csr_alloc(C, rows, cols, 0));
    memset(C->indptr, 0, ((size_t)rows + 1) * sizeof(int64_t));
    return CMRS_OK;
}

cmrs_code amg_dev_mat_arrays(amg_dev_mat *m, int64_t rows, int64_t cols,
                             int64_t nnz)
{
    m->rows = rows;
    m->cols = cols;
    m->nnz = nnz;
    CMRS_CHECK(amg_dev_mat_alloc(m, (void **)&m->indptr_d,
                         ((size_t)rows + 1) * sizeof(int32_t)));
    CMRS_CHECK(amg_dev_mat_alloc(m, (void **)&m->indices_d,
                         (size_t)nnz * sizeof(int32_t)));
    CMRS_CHECK(amg_dev_mat_alloc(m, (void **)&m->values_d,
                         (size_t)nnz * sizeof(double)));
    return CMRS_OK;
}

cmrs_code amg_dev_alloc(amg_dev_mat *m, int64_t rows, int64_t cols,
                        int64_t nnz)
{
    memset(m, 0, sizeof *m);
    CMRS_CHECK(amg_dev_mat_arrays(m, rows, cols, nnz));
    return CMRS_OK;
}

cmrs_code amg_dev_alloc_scratch(amg_dev_mat *m, int64_t rows, int64_t cols,
                                int64_t nnz, cudaStream_t stream)
{
    memset(m, 0, sizeof *m);
    m->pooled = 1;
    m->pool_stream = stream;
    CMRS_CHECK(amg_dev_mat_arrays(m, rows, cols, nnz));
    return CMRS_OK;
}

cmrs_code amg_dev_product_shell(const amg_dev_mat *x, const amg_dev_mat *y,
                                amg_dev_mat *c)
{
    c->rows = x->rows;
    c->cols = y->cols;
    CMRS_CHECK(amg_dev_mat_alloc(c, (void **)&c->indptr_d,
                         ((size_t)c->rows + 1) * sizeof(int32_t)));
    CMRS_CUSPARSE(cusparseCreateCsr(&c->descr, c->rows, c->cols, 0,
                                    c->indptr_d, NULL, NULL,
                                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                    CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    return CMRS_OK;
}

cmrs_code amg_dev_describe(amg_dev_mat *m)
{
    CMRS_CUSPARSE(cusparseCreateCsr(
        &m->descr, m->rows, m->cols, m->nnz, m->indptr_d, m->indices_d,
        m->values_d, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    return CMRS_OK;
}

cmrs_code amg_dev_transpose(cusparseHandle_t handle, cudaStream_t stream,
                            const amg_dev_mat *p, amg_dev_mat *r)
{
    size_t bytes = 0;
    void *buf_d = NULL;
    cmrs_code rc = CMRS_OK;
    CMRS_CHECK(amg_dev_alloc(r, p->cols, p->rows, p->nnz));
    if (p->nnz == 0) { /* nothing for cuSPARSE to move: empty rows */
        CMRS_CUDA(cudaMemsetAsync(r->indptr_d, 0,
                                  ((size_t)r->rows + 1) * sizeof(int32_t),
                                  stream));
        return amg_dev_describe(r);
    }
    CMRS_CUSPARSE(cusparseCsr2cscEx2_bufferSize(
        handle, (int)p->rows, (int)p->cols, (int)p->nnz, p->values_d,
        p->indptr_d, p->indices_d, r->values_d, r->indptr_d, r->indices_d,
        CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
        CUSPARSE_CSR2CSC_ALG1, &bytes));
    CMRS_CHECK(amg_pool_alloc(&buf_d, bytes, stream));
    CMRS_CUSPARSE_TRY(cusparseCsr2cscEx2(
        handle, (int)p->rows, (int)p->cols, (int)p->nnz, p->values_d,
        p->indptr_d, p->indices_d, r->values_d, r->indptr_d, r->indices_d,
        CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
        CUSPARSE_CSR2CSC_ALG1, buf_d));
    CMRS_TRY(amg_dev_describe(r));
done:
    amg_pool_free(buf_d, stream);
    return rc;
}

/* Through the staged pinned path (the row pointers narrowed on the way),
 * not a pageable copy (the distributed AMG uploads the whole A to every
 * GPU at once: 0.55-0.60 s at 50M rows from pageable memory). */
cmrs_code amg_dev_upload(const cmrs_csr *M, amg_dev_mat *d)
{
    cmrs_code rc = CMRS_OK;
    cmrs_upload_cfg c;
    memset(d, 0, sizeof *d);
    CMRS_CHECK(cmrs_upload_cfg_env(&c));
    /* Several GPUs' threads upload the same A at once: registering it
     * (and unregistering it under another thread's copy) is not safe. */
    if (c.mode == CMRS_UPLOAD_REGISTERED) c.mode = CMRS_UPLOAD_STAGED;
    CMRS_TRY(amg_dev_alloc(d, M->rows, M->cols, M->nnz));
    CMRS_TRY(cmrs_h2d_with(&c, d->indptr_d, M->indptr, M->rows + 1,
                           CMRS_H2D_I64_I32, "row offsets", NULL));
    CMRS_TRY(cmrs_h2d_with(&c, d->indices_d, M->indices,
                           M->nnz * (int64_t)sizeof(int32_t), CMRS_H2D_BYTES,
                           "column indices", NULL));
    CMRS_TRY(cmrs_h2d_with(&c, d->values_d, M->values,
                           M->nnz * (int64_t)sizeof(double), CMRS_H2D_BYTES,
                           "values", NULL));
    CMRS_TRY(amg_dev_describe(d));
done:
    if (rc != CMRS_OK) amg_dev_free(d);
    return rc;
}

/* The arguments every SpGEMM phase repeats: C = 1 * X Y + 0 * C. */
typedef struct spgemm_args {
    cusparseHandle_t handle;
    cudaStream_t stream; /* the handle's: the work buffers' order */
    const amg_dev_mat *x, *y;
    amg_dev_mat *c;
    cusparseSpGEMMDescr_t descr;
    cusparseSpGEMMAlg_t alg;
    float chunk; /* ALG3's share of the intermediate products per chunk */
    double *t;   /* the profile's clock */
} spgemm_args;

static const double k_one = 1.0, k_zero = 0.0;
#define OP_N CUSPARSE_OPERATION_NON_TRANSPOSE
/* ALG2: its compute buffer sized by cusparseSpGEMM_estimateMemory, a
 * ninth of ALG1's at level 0 of the vessel 5M (314 against 2779 MB; 623
 * against 7253 MB on Poisson 200^3). The setup's pool maps such buffers
 * (~0.7 GB a millisecond) and its final trim unmaps them: ALG1's faster
 * compute lost it all there (CMRS_AMG_PROFILE, H100: the vessel 5M's
 * setup 60.6 ms by ALG1, 60.9 by ALG2; Poisson 200^3 124 against 104 ms;
 * ALG3, chunked, 75 and 114 ms). CMRS_AMG_SPGEMM_ALG=1: ALG1 (tests and
 * benchmarks). */
static cusparseSpGEMMAlg_t spgemm_alg(void)
{
    const char *e = getenv("CMRS_AMG_SPGEMM_ALG");
    if (e && strcmp(e, "1") == 0) return CUSPARSE_SPGEMM_DEFAULT;
    if (e && strcmp(e, "3") == 0) return CUSPARSE_SPGEMM_ALG3;
    return CUSPARSE_SPGEMM_ALG2;
}

/* workEstimation: size query, then the call that inspects X and Y. The
 * buffer must outlive the whole product: compute and copy read it. */
static cmrs_code work_estimation(const spgemm_args *s, void **buf1,
                                 size_t *out)
{
    size_t bytes = 0;
    CMRS_CUSPARSE(cusparseSpGEMM_workEstimation(
        s->handle, OP_N, OP_N, &k_one, s->x->descr, s->y->descr, &k_zero,
        s->c->descr, CUDA_R_64F, s->alg, s->descr, &bytes, NULL));
    CMRS_CHECK(amg_pool_alloc(buf1, bytes, s->stream));
    CMRS_CUSPARSE(cusparseSpGEMM_workEstimation(
        s->handle, OP_N, OP_N, &k_one, s->x->descr, s->y->descr, &k_zero,
        s->c->descr, CUDA_R_64F, s->alg, s->descr, &bytes, *buf1));
    *out = bytes;
    return CMRS_OK;
}

/* ALG2: the compute buffer's size from estimateMemory (its own buffer
 * freed in stream order). */
static cmrs_code estimate(const spgemm_args *s, size_t *bytes2)
{
    size_t b3 = 0;
    void *buf3 = NULL;
    const float chunk = s->chunk; /* read by ALG3 only */
    CMRS_CUSPARSE(cusparseSpGEMM_estimateMemory(
        s->handle, OP_N, OP_N, &k_one, s->x->descr, s->y->descr, &k_zero,
        s->c->descr, CUDA_R_64F, s->alg, s->descr, chunk, &b3, NULL,
        NULL));
    CMRS_CHECK(amg_pool_alloc(&buf3, b3, s->stream));
    cusparseStatus_t st = cusparseSpGEMM_estimateMemory(
        s->handle, OP_N, OP_N, &k_one, s->x->descr, s->y->descr, &k_zero,
        s->c->descr, CUDA_R_64F, s->alg, s->descr, chunk, &b3, buf3,
        bytes2);
    amg_pool_free(buf3, s->stream);
    CMRS_CUSPARSE(st);
    return CMRS_OK;
}

/* compute: size query, then the product into cuSPARSE's own storage;
 * C's size is known afterwards and set in c (checked against int32). */
static cmrs_code compute(const spgemm_args *s, void **buf2, size_t *out,
                         const char *what)
{
    size_t bytes = 0;
    amg_dev_mat *c = s->c;
    int64_t rows = 0, cols = 0, nnz = 0;
    if (s->alg == CUSPARSE_SPGEMM_DEFAULT)
        CMRS_CUSPARSE(cusparseSpGEMM_compute(
            s->handle, OP_N, OP_N, &k_one, s->x->descr, s->y->descr,
            &k_zero, c->descr, CUDA_R_64F, s->alg, s->descr, &bytes,
            NULL));
    else
        CMRS_CHECK(estimate(s, &bytes));
    CMRS_CHECK(amg_pool_alloc(buf2, bytes, s->stream));
    CMRS_CHECK(amg_prof_step(s->stream, s->t, "  %s compute buffer", what));
    CMRS_CUSPARSE(cusparseSpGEMM_compute(
        s->handle, OP_N, OP_N, &k_one, s->x->descr, s->y->descr, &k_zero,
        c->descr, CUDA_R_64F, s->alg, s->descr, &bytes, *buf2));
    *out = bytes;
    CMRS_CUSPARSE(cusparseSpMatGetSize(c->descr, &rows, &cols, &nnz));
    CMRS_ENSURE(rows == c->rows && cols == c->cols && nnz >= 0,
                CMRS_E_INTERNAL, "cuSPARSE SpGEMM: %s came out %lld x %lld "
                "(nnz %lld), expected %lld x %lld", what, (long long)rows,
                (long long)cols, (long long)nnz, (long long)c->rows,
                (long long)c->cols);
    CMRS_CHECK(amg_dev_check_int32(rows, cols, nnz, what));
    c->nnz = nnz;
    return CMRS_OK;
}

/* C's columns and values allocated (nnz > 0) and the result copied into
 * C's three arrays. */
static cmrs_code copy_out(const spgemm_args *s)
{
    amg_dev_mat *c = s->c;
    CMRS_CHECK(amg_dev_mat_alloc(c, (void **)&c->indices_d,
                         (size_t)c->nnz * sizeof(int32_t)));
    CMRS_CHECK(amg_dev_mat_alloc(c, (void **)&c->values_d,
                         (size_t)c->nnz * sizeof(double)));
    CMRS_CUSPARSE(cusparseCsrSetPointers(c->descr, c->indptr_d, c->indices_d,
                                         c->values_d));
    CMRS_CUSPARSE(cusparseSpGEMM_copy(s->handle, OP_N, OP_N, &k_one,
                                      s->x->descr, s->y->descr, &k_zero,
                                      c->descr, CUDA_R_64F, s->alg,
                                      s->descr));
    return CMRS_OK;
}

/* The paths this thread's products took since the last query (tests). */
static _Thread_local int g_paths;

int amg_dev_spgemm_paths(void)
{
    int paths = g_paths;
    g_paths = 0;
    return paths;
}

/* The row products (amg_rowprod_gpu.h): one thread a row of X where X's
 * rows hold at most ROWPROD_MAX_AVG entries on average, one warp a row
 * where they hold more or a row of C passes the thread's 64 columns;
 * cuSPARSE's SpGEMM where C's rows pass the warp's 256. One thread a row
 * wins on short rows and loses on long ones (CMRS_AMG_PROFILE, vessel 5M,
 * H100: level 0's A P, 5 entries a row, 3.1 against cuSPARSE's 5.9 ms;
 * level 1's A P, 25 a row, 6.7 against 4.9 ms; R A P, ~40 a row, 17
 * against 6.7 ms). CMRS_AMG_SPGEMM (tests, benchmarks): "cusparse"
 * cuSPARSE everywhere, "thread" no warp path, "warp" the warp path first
 * on every product, "thread-all" the thread path first on every product
 * (tests: its bits against the warp path's on long rows of X). */
#define ROWPROD_MAX_AVG 8
enum { ROWPROD_THREAD = 1, ROWPROD_WARP = 2 };
static int rowprod_modes(const amg_dev_mat *x)
{
    const char *e = getenv("CMRS_AMG_SPGEMM");
    if (x->rows <= 0) return 0;
    if (e && strcmp(e, "cusparse") == 0) return 0;
    if (e && strcmp(e, "warp") == 0) return ROWPROD_WARP;
    if (e && strcmp(e, "thread-all") == 0) return ROWPROD_THREAD;
    const int short_rows = x->nnz <= ROWPROD_MAX_AVG * x->rows;
    if (e && strcmp(e, "thread") == 0) return short_rows ? ROWPROD_THREAD : 0;
    return (short_rows ? ROWPROD_THREAD : 0) | ROWPROD_WARP;
}

/* A row product into c (c's pooled and pool_stream set): *done = 1 with
 * c described and the stream synchronised, else c left as it came. */
static cmrs_code try_rows(cudaStream_t stream, amg_rowprod_mode mode,
                          const amg_dev_mat *x, const amg_dev_mat *y,
                          amg_dev_mat *c, int *done)
{
    CMRS_CHECK(amg_dev_rowprod(stream, mode, x, y, c, done));
    if (!*done) return CMRS_OK;
    g_paths |= mode == AMG_ROWPROD_WARP ? AMG_SPGEMM_WARP : AMG_SPGEMM_ROWS;
    CMRS_CHECK(amg_dev_describe(c));
    CMRS_CUDA(cudaStreamSynchronize(stream));
    return CMRS_OK;
}

/* c empty, its arrays to come from the pool (pooled) on stream or not. */
static void product_empty(amg_dev_mat *c, int pooled, cudaStream_t stream)
{
    memset(c, 0, sizeof *c);
    c->pooled = pooled;
    c->pool_stream = stream;
}

/* C = X Y by cuSPARSE into c (c->pooled, pool_stream set; its arrays
 * the caller's to free on every path). CMRS_AMG_SPGEMM_FAIL=1 (tests):
 * ALG2 refuses every product, as it refuses some. */
static cmrs_code cusparse_into(spgemm_args *s, const char *what)
{
    cmrs_code rc = CMRS_OK;
    void *buf1 = NULL, *buf2 = NULL;
    size_t b1 = 0, b2 = 0;
    cudaStream_t stream = s->stream;
    const char *fail = getenv("CMRS_AMG_SPGEMM_FAIL");
    if (s->alg == CUSPARSE_SPGEMM_ALG2 && fail && strcmp(fail, "1") == 0)
        return cmrs_cusparse_error(CUSPARSE_STATUS_INSUFFICIENT_RESOURCES,
                                   "CMRS_AMG_SPGEMM_FAIL", __FILE__, __LINE__);
    CMRS_TRY(amg_dev_product_shell(s->x, s->y, s->c));
    CMRS_CUSPARSE_TRY(cusparseSpGEMM_createDescr(&s->descr));
    CMRS_TRY(work_estimation(s, &buf1, &b1));
    CMRS_TRY(amg_prof_step(stream, s->t, " %s workEstimation %.0f MB", what,
                           (double)b1 / 1e6));
    CMRS_TRY(compute(s, &buf2, &b2, what));
    CMRS_TRY(amg_prof_step(stream, s->t, " %s compute %.0f MB", what,
                           (double)b2 / 1e6));
    if (s->c->nnz > 0) CMRS_TRY(copy_out(s));
    CMRS_CUDA_TRY(cudaStreamSynchronize(stream));
    CMRS_TRY(amg_prof_step(stream, s->t, " %s copy (nnz %lld)", what,
                           (long long)s->c->nnz));
done:
    if (s->descr) cusparseSpGEMM_destroyDescr(s->descr);
    s->descr = NULL;
    amg_pool_free(buf1, stream); /* in stream order: after the copy */
    amg_pool_free(buf2, stream);
    return rc;
}

/* C = X Y for X, Y with entries: by rows (rowprod_modes above) where
 * C's rows fit, else by cuSPARSE (C is freed by the caller on every path;
 * c->nnz == 0 on return means an empty product, not copied), C's arrays
 * scratch of the pool when `pooled`. The stream is synchronised before
 * the work buffers are freed: the copy may still read them.
 * cuSPARSE's ALG2 refuses some products with
 * CUSPARSE_STATUS_INSUFFICIENT_RESOURCES (CMRS_E_NOMEM here), and any
 * algorithm may run out of memory: the product is then tried again by
 * ALG3 in chunks of a fifth of its intermediate products, then by ALG1
 * (H100: fem_odt_0.4M's R A P with --amg-theta 0.12 by ALG3; with 0.08
 * every algorithm refuses one, and amg.c stops coarsening there). */
static cmrs_code spgemm_into(cusparseHandle_t handle, cudaStream_t stream,
                             const amg_dev_mat *x, const amg_dev_mat *y,
                             amg_dev_mat *c, const char *what, int pooled,
                             int rows_ok)
{
    static const cusparseSpGEMMAlg_t k_retry[] = {CUSPARSE_SPGEMM_ALG3,
                                                  CUSPARSE_SPGEMM_DEFAULT};
    double t = 0;
    spgemm_args s = {handle, stream, x, y, c, NULL, spgemm_alg(), 1.0f, &t};
    amg_prof_begin(&t);
    product_empty(c, pooled, stream);
    int done = 0;
    const int modes = rows_ok ? rowprod_modes(x) : 0;
    if (modes & ROWPROD_THREAD)
        CMRS_CHECK(try_rows(stream, AMG_ROWPROD_THREAD, x, y, c, &done));
    const int warp = !done && (modes & ROWPROD_WARP);
    if (warp)
        CMRS_CHECK(try_rows(stream, AMG_ROWPROD_WARP, x, y, c, &done));
    if (done) {
        CMRS_CHECK(amg_prof_step(stream, &t, " %s row product%s (nnz %lld)",
                                 what, warp ? " (warps)" : "",
                                 (long long)c->nnz));
        return CMRS_OK;
    }
    g_paths |= AMG_SPGEMM_CUSPARSE;
    cmrs_code rc = cusparse_into(&s, what);
    const cusparseSpGEMMAlg_t first = s.alg;
    for (size_t k = 0; rc == CMRS_E_NOMEM && k < 2; ++k) {
        if (k_retry[k] == first) continue;
        CMRS_CUDA(cudaStreamSynchronize(stream));
        amg_dev_free(c);
        product_empty(c, pooled, stream);
        cmrs_error_clear();
        s.alg = k_retry[k];
        s.chunk = 0.2f;
        g_paths |= AMG_SPGEMM_RETRIED;
        CMRS_CHECK(amg_prof_step(stream, &t, " %s again by ALG%d", what,
                                 s.alg == CUSPARSE_SPGEMM_ALG3 ? 3 : 1));
        rc = cusparse_into(&s, what);
    }
    if (rc == CMRS_OK)
        rc = amg_prof_step(stream, &t, " %s free buffers", what);
    return rc;
}

cmrs_code amg_dev_spgemm(cusparseHandle_t handle, cudaStream_t stream,
                         const amg_dev_mat *x, const amg_dev_mat *y,
                         amg_dev_mat *c, const char *what)
{
    return spgemm_into(handle, stream, x, y, c, what, 0, 1);
}

cmrs_code amg_dev_spgemm_cusparse(cusparseHandle_t handle, cudaStream_t stream,
                                  const amg_dev_mat *x, const amg_dev_mat *y,
                                  amg_dev_mat *c, const char *what)
{
    return spgemm_into(handle, stream, x, y, c, what, 0, 0);
}

cmrs_code amg_dev_spgemm_scratch(cusparseHandle_t handle, cudaStream_t stream,
                                 const amg_dev_mat *x, const amg_dev_mat *y,
                                 amg_dev_mat *c, const char *what)
{
    return spgemm_into(handle, stream, x, y, c, what, 1, 1);
}

/* The device result into a new host CSR (int32 row offsets widened),
 * copied on `stream` (cmrs_csr_view_download). */
cmrs_code amg_dev_download(cudaStream_t stream, const amg_dev_mat *d,
                           cmrs_csr *C)
{
    cmrs_csr_view_d v = {d->rows,     d->cols,      d->nnz,
                         d->indptr_d, d->indices_d, d->values_d};
    CMRS_CHECK(cmrs_csr_view_download(&v, stream, C));
    return CMRS_OK;
}

/* 1 when the columns of every row strictly increase. */
static int rows_sorted(const cmrs_csr *C)
{
    for (int64_t i = 0; i < C->rows; ++i)
        for (int64_t k = C->indptr[i] + 1; k < C->indptr[i + 1]; ++k)
            if (C->indices[k] <= C->indices[k - 1]) return 0;
    return 1;
}

/* The contract promises sorted rows; cuSPARSE's documentation does not
 * state it for SpGEMM, so it is enforced here rather than assumed. */
cmrs_code amg_dev_ensure_sorted(cmrs_csr *C)
{
    if (!rows_sorted(C)) CMRS_CHECK(cmrs_csr_sort_sum_duplicates(C));
    return CMRS_OK;
}

/* True when R A P has no entry whatever the values (valid CSR operands:
 * a zero dimension implies nnz 0): cuSPARSE is not called at all. */
static int galerkin_is_empty(const cmrs_csr *R, const cmrs_csr *A,
                             const cmrs_csr *P)
{
    return R->rows == 0 || P->cols == 0 || R->nnz == 0 || A->nnz == 0 ||
           P->nnz == 0;
}

/* Uploads, the two products, download. An empty A P skips the second
 * product; an empty result is built on the host. */
static cmrs_code galerkin_device(cudaStream_t stream, const cmrs_csr *R,
                                 const cmrs_csr *A, const cmrs_csr *P,
                                 cmrs_csr *Ac)
{
    cmrs_code rc = CMRS_OK;
    cusparseHandle_t handle = NULL;
    amg_dev_mat r = {0}, a = {0}, p = {0}, ap = {0}, rap = {0};
    CMRS_CUSPARSE_TRY(cusparseCreate(&handle));
    CMRS_CUSPARSE_TRY(cusparseSetStream(handle, stream));
    CMRS_TRY(amg_dev_upload(R, &r));
    CMRS_TRY(amg_dev_upload(A, &a));
    CMRS_TRY(amg_dev_upload(P, &p));
    CMRS_TRY(amg_dev_spgemm(handle, stream, &a, &p, &ap, "A P"));
    if (ap.nnz > 0)
        CMRS_TRY(amg_dev_spgemm(handle, stream, &r, &ap, &rap, "R A P"));
    if (rap.nnz == 0) {
        CMRS_TRY(empty_result(R->rows, P->cols, Ac));
    } else {
        CMRS_TRY(amg_dev_download(stream, &rap, Ac));
        CMRS_TRY(amg_dev_ensure_sorted(Ac));
    }
done:
    amg_dev_free(&rap);
    amg_dev_free(&ap);
    amg_dev_free(&p);
    amg_dev_free(&a);
    amg_dev_free(&r);
    if (handle) cusparseDestroy(handle);
    amg_pool_trim(stream);
    if (rc != CMRS_OK) cmrs_csr_free(Ac);
    return rc;
}

cmrs_code cmrs_gpu_galerkin(cudaStream_t stream, const cmrs_csr *R,
                            const cmrs_csr *A, const cmrs_csr *P,
                            cmrs_csr *Ac)
{
    memset(Ac, 0, sizeof *Ac);
    CMRS_CHECK(check_shapes(R, A, P));
    CMRS_ENSURE(cmrs_gpu_available(), CMRS_E_NODEVICE,
                "GPU Galerkin product: no CUDA GPU found");
    if (galerkin_is_empty(R, A, P)) {
        CMRS_CHECK(empty_result(R->rows, P->cols, Ac));
        return CMRS_OK;
    }
    CMRS_CHECK(galerkin_device(stream, R, A, P, Ac));
    return CMRS_OK;
}
