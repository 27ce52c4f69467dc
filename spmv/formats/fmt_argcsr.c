/* ArgCSR conversion from CSR (paper 002, section 3), sequential. */
#include "base/memory.h"
#include "fmt_argcsr.h"

#include <stdlib.h>
#include <string.h>

#define LANES CMRS_ARGCSR_LANES

static int64_t row_len(const cmrs_csr *A, int64_t r)
{
    return A->indptr[r + 1] - A->indptr[r];
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int fits_in_lanes(const int64_t *len, int n, int64_t chunk)
{
    int64_t lanes = 0;
    for (int i = 0; i < n && lanes <= LANES; ++i)
        lanes += ceil_div(len[i], chunk);
    return lanes <= LANES;
}

/* Binary search: chunk = max length always fits (<= 32 rows, one lane
 * each), and fewer lanes are needed as the chunk grows. */
int64_t cmrs_argcsr_chunk_size(const int64_t *len, int n)
{
    int64_t lo = 1, hi = 0;
    for (int i = 0; i < n; ++i)
        if (len[i] > hi) hi = len[i];
    if (hi == 0) return 0;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (fits_in_lanes(len, n, mid)) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* Rows of the group starting at `first`: the paper closes a group once its
 * nonzeros exceed desired*32 or it would hold more than 32 rows. Reading:
 * a row joins unless it would push the group over desired*32 nonzeros, so
 * a row longer than that sits alone (and gets all 32 lanes). */
static int group_rows(const cmrs_csr *A, int64_t first, int64_t desired)
{
    int64_t nnz = 0;
    int n = 0;
    while (first + n < A->rows && n < LANES) {
        int64_t len = row_len(A, first + n);
        if (n > 0 && nnz + len > desired * LANES) break;
        nnz += len;
        ++n;
    }
    return n;
}

static int64_t group_chunk(const cmrs_csr *A, int64_t first, int n)
{
    int64_t len[LANES];
    for (int i = 0; i < n; ++i) len[i] = row_len(A, first + i);
    return cmrs_argcsr_chunk_size(len, n);
}

/* Pass 1: group boundaries, chunk sizes and offsets. */
static cmrs_code plan_groups(const cmrs_csr *A, int64_t desired,
                             cmrs_argcsr *m)
{
    m->groups = cmrs_malloc_array((size_t)(A->rows > 0 ? A->rows : 0),
                                  sizeof *m->groups);
    CMRS_ENSURE(m->groups, CMRS_E_NOMEM,
                "argcsr: cannot allocate group info for %lld rows",
                (long long)A->rows);
    int64_t stored = 0, g = 0;
    for (int64_t first = 0; first < A->rows; ++g) {
        int n = group_rows(A, first, desired);
        int64_t chunk = group_chunk(A, first, n);
        m->groups[g] = (cmrs_argcsr_group){(int32_t)first, n,
                                           (int32_t)stored, (int32_t)chunk};
        stored += chunk * LANES;
        CMRS_ENSURE(stored <= INT32_MAX, CMRS_E_LIMIT,
                    "argcsr: more than %d stored entries (int32 offsets); "
                    "use cmrs or a CSR format", INT32_MAX);
        first += n;
    }
    m->n_groups = g;
    m->stored = stored;
    return CMRS_OK;
}

/* Pass 2: lanes of a row get consecutive chunks of its entries. */
static void fill_group(const cmrs_csr *A, const cmrs_argcsr_group *g,
                       cmrs_argcsr *m)
{
    int lane = 0;
    for (int i = 0; i < g->size; ++i) {
        int64_t r = g->first_row + i, k0 = A->indptr[r];
        int64_t len = row_len(A, r);
        for (int64_t e = 0; e < len; ++e) {
            int64_t at = g->offset +
                         (int64_t)LANES * (e % g->chunk) + lane + e / g->chunk;
            m->cols[at] = A->indices[k0 + e];
            m->vals[at] = A->values[k0 + e];
        }
        lane += (int)ceil_div(len, g->chunk > 0 ? g->chunk : 1);
        m->row_end[r] = (uint8_t)lane;
    }
}

static cmrs_code fill_entries(const cmrs_csr *A, cmrs_argcsr *m)
{
    m->row_end = cmrs_malloc_array((size_t)A->rows, sizeof *m->row_end);
    m->cols = cmrs_malloc_array((size_t)m->stored, sizeof *m->cols);
    m->vals = cmrs_malloc_array((size_t)m->stored, sizeof *m->vals);
    CMRS_ENSURE(m->row_end && m->cols && m->vals, CMRS_E_NOMEM,
                "argcsr: cannot allocate %lld stored entries",
                (long long)m->stored);
    for (int64_t k = 0; k < m->stored; ++k) {
        m->cols[k] = -1;
        m->vals[k] = 0.0;
    }
    for (int64_t g = 0; g < m->n_groups; ++g)
        fill_group(A, &m->groups[g], m);
    return CMRS_OK;
}

cmrs_code cmrs_argcsr_build(const cmrs_csr *A, int desired_chunk,
                            cmrs_argcsr *out)
{
    cmrs_code rc = CMRS_OK;
    memset(out, 0, sizeof *out);
    CMRS_ENSURE(desired_chunk >= 1, CMRS_E_USAGE,
                "argcsr: desired chunk size %d is below 1", desired_chunk);
    CMRS_ENSURE(A->rows <= INT32_MAX, CMRS_E_LIMIT,
                "argcsr: %lld rows exceed int32 row indices; use cmrs or a "
                "CSR format", (long long)A->rows);
    out->rows = A->rows;
    out->nnz = A->nnz;
    CMRS_TRY(plan_groups(A, desired_chunk, out));
    CMRS_TRY(fill_entries(A, out));
    return CMRS_OK;
done:
    cmrs_argcsr_free(out);
    return rc;
}

void cmrs_argcsr_free(cmrs_argcsr *m)
{
    if (!m) return;
    CMRS_FREE_ALL(m->groups, m->row_end, m->cols, m->vals);
    memset(m, 0, sizeof *m);
}
