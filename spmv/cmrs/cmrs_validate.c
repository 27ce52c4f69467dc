/* cmrs_mat_validate: every invariant of a host CMRS matrix (cmrs_format.h).
 * Run by the tests and by the cmrs-mod setup, where a broken layout would
 * otherwise be a silent data race in the kernel. */
#include "cmrs_format.h"

static cmrs_code check_strip_ptr(const cmrs_mat *m)
{
    CMRS_ENSURE(m->height >= 1 && m->height <= CMRS_MAX_HEIGHT &&
                    m->strips == (m->rows + m->height - 1) / m->height,
                CMRS_E_INTERNAL, "cmrs: %lld strips of height %d for %lld rows",
                (long long)m->strips, m->height, (long long)m->rows);
    CMRS_ENSURE(m->strip_ptr[0] == 0 && m->strip_ptr[m->strips] == m->stored,
                CMRS_E_INTERNAL, "cmrs: strip pointers span %u..%u, expected "
                "0..%lld", m->strip_ptr[0], m->strip_ptr[m->strips],
                (long long)m->stored);
    for (int64_t s = 0; s < m->strips; ++s) {
        CMRS_ENSURE(m->strip_ptr[s] <= m->strip_ptr[s + 1], CMRS_E_INTERNAL,
                    "cmrs: strip pointer decreases at strip %lld",
                    (long long)s);
        CMRS_ENSURE(!m->modulo || m->strip_ptr[s] % CMRS_CHUNK == 0,
                    CMRS_E_INTERNAL, "cmrs-mod: strip %lld starts at %u, not "
                    "a multiple of %d", (long long)s, m->strip_ptr[s],
                    CMRS_CHUNK);
    }
    return CMRS_OK;
}

/* Real entries: column in range, row inside the strip and the matrix, and
 * (basic sorted layout) keys increasing inside the strip. */
static cmrs_code check_entry(const cmrs_mat *m, int64_t s, int64_t j,
                             int padding)
{
    uint32_t cr = m->colrow[j];
    int64_t row = s * m->height + cmrs_row_of(cr);
    CMRS_ENSURE(cmrs_col_of(cr) < (uint64_t)m->cols, CMRS_E_INTERNAL,
                "cmrs: entry %lld of strip %lld has column %u of %lld",
                (long long)j, (long long)s, cmrs_col_of(cr),
                (long long)m->cols);
    if (padding) {
        CMRS_ENSURE(m->values[j] == 0, CMRS_E_INTERNAL, "cmrs-mod: padding "
                    "entry %lld holds %g, not 0", (long long)j, m->values[j]);
        return CMRS_OK;
    }
    CMRS_ENSURE((int)cmrs_row_of(cr) < m->height && row < m->rows,
                CMRS_E_INTERNAL, "cmrs: entry %lld of strip %lld is in row "
                "%u of the strip (height %d, %lld rows)", (long long)j,
                (long long)s, cmrs_row_of(cr), m->height, (long long)m->rows);
    CMRS_ENSURE(m->modulo || !m->sorted || j == m->strip_ptr[s] ||
                    m->colrow[j - 1] < cr, CMRS_E_INTERNAL, "cmrs: strip "
                "%lld is not sorted by column at entry %lld", (long long)s,
                (long long)j);
    return CMRS_OK;
}

/* cmrs-mod chunk k: a sane fill and no two lanes on one buffer slot. */
static cmrs_code check_chunk(const cmrs_mat *m, int64_t k)
{
    unsigned used[CMRS_CHUNK] = {0};
    CMRS_ENSURE(m->chunk_fill[k] >= 1 && m->chunk_fill[k] <= CMRS_CHUNK,
                CMRS_E_INTERNAL, "cmrs-mod: chunk %lld holds %d real entries",
                (long long)k, m->chunk_fill[k]);
    for (int lane = 0; lane < CMRS_CHUNK; ++lane) {
        unsigned bit = 1u << cmrs_row_of(m->colrow[k * CMRS_CHUNK + lane]);
        CMRS_ENSURE(!(used[lane % m->modulo] & bit), CMRS_E_INTERNAL,
                    "cmrs-mod: lane %d of chunk %lld collides in buffer slot "
                    "(%d, %u)", lane, (long long)k, lane % m->modulo,
                    cmrs_row_of(m->colrow[k * CMRS_CHUNK + lane]));
        used[lane % m->modulo] |= bit;
    }
    return CMRS_OK;
}

cmrs_code cmrs_mat_validate(const cmrs_mat *m)
{
    CMRS_CHECK(check_strip_ptr(m));
    int64_t real = 0;
    for (int64_t s = 0; s < m->strips; ++s)
        for (int64_t j = m->strip_ptr[s]; j < m->strip_ptr[s + 1]; ++j) {
            int padding = cmrs_mat_is_padding(m, j);
            CMRS_CHECK(check_entry(m, s, j, padding));
            real += !padding;
            if (m->chunk_fill && j % CMRS_CHUNK == 0)
                CMRS_CHECK(check_chunk(m, j / CMRS_CHUNK));
        }
    CMRS_ENSURE(real == m->nnz, CMRS_E_INTERNAL, "cmrs: %lld real entries "
                "stored for a matrix of %lld nonzeros", (long long)real,
                (long long)m->nnz);
    CMRS_ENSURE(m->modulo || m->stored == m->nnz, CMRS_E_INTERNAL, "cmrs: "
                "basic layout stores %lld entries for %lld nonzeros",
                (long long)m->stored, (long long)m->nnz);
    return CMRS_OK;
}
