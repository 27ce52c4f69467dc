#include "coeff_field.h"

#include <math.h>
#include <stdlib.h>

#include "base/csr.h"
#include "rng.h"

typedef struct lattice {
    int64_t dim[3];
    int spacing[3];
    double *v; /* dim[0]*dim[1]*dim[2] uniform values in [0, 1) */
} lattice;

static cmrs_code lattice_make(int64_t m, uint64_t seed, lattice *L)
{
    static const int spacing[3] = {6, 6, 2};
    size_t count = 1;
    for (int a = 0; a < 3; ++a) {
        L->spacing[a] = spacing[a];
        L->dim[a] = m / spacing[a] + 2; /* covers node m-1 and its +1 corner */
        count *= (size_t)L->dim[a];
    }
    L->v = cmrs_malloc_array(count, sizeof *L->v);
    CMRS_ENSURE(L->v, CMRS_E_NOMEM, "cannot allocate a coefficient lattice "
                "of %zu values", count);
    cmrs_rng rng = cmrs_rng_make(seed);
    for (size_t q = 0; q < count; ++q) L->v[q] = cmrs_rng_uniform(&rng);
    return CMRS_OK;
}

static double lattice_at(const lattice *L, int64_t a, int64_t b, int64_t c)
{
    return L->v[a + L->dim[0] * (b + L->dim[1] * c)];
}

/* Trilinear interpolation of the lattice at node (i, j, k). */
static double lattice_interp(const lattice *L, int64_t i, int64_t j, int64_t k)
{
    int64_t node[3] = {i, j, k}, base[3];
    double t[3];
    for (int a = 0; a < 3; ++a) {
        base[a] = node[a] / L->spacing[a];
        t[a] = (double)(node[a] % L->spacing[a]) / L->spacing[a];
    }
    double sum = 0;
    for (int corner = 0; corner < 8; ++corner) {
        double w = 1;
        int64_t at[3];
        for (int a = 0; a < 3; ++a) {
            int up = (corner >> a) & 1;
            at[a] = base[a] + up;
            w *= up ? t[a] : 1 - t[a];
        }
        sum += w * lattice_at(L, at[0], at[1], at[2]);
    }
    return sum;
}

cmrs_code cmrs_coeff_field(int64_t m, double contrast, uint64_t seed,
                           double **k_out)
{
    size_t count = (size_t)(m * m * m);
    double *k = cmrs_malloc_array(count, sizeof *k);
    CMRS_ENSURE(k, CMRS_E_NOMEM, "cannot allocate a coefficient field of "
                "%zu values", count);
    lattice L;
    cmrs_code rc = lattice_make(m, seed, &L);
    if (rc != CMRS_OK) {
        free(k);
        CMRS_CHECK(rc);
    }
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t c = 0; c < m; ++c)
        for (int64_t b = 0; b < m; ++b)
            for (int64_t a = 0; a < m; ++a) {
                double v = lattice_interp(&L, a, b, c);
                k[a + m * (b + m * c)] = v;
                lo = fmin(lo, v);
                hi = fmax(hi, v);
            }
    free(L.v);
    double scale = hi > lo ? contrast / (hi - lo) : 0.0;
    for (size_t q = 0; q < count; ++q) k[q] = pow(10.0, (k[q] - lo) * scale);
    *k_out = k;
    return CMRS_OK;
}
