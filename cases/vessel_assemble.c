/* Cell-centred finite volumes on the Kuhn tetrahedra of the kept voxels.
 *
 * A voxel is split into the 6 tetrahedra {x_p0 >= x_p1 >= x_p2} (local
 * coordinates in [0,1]^3), one per permutation p of the axes, all sharing the
 * main diagonal; the split is the same in every voxel, so it is conforming
 * across voxel faces. Tetrahedron p has four faces:
 *   x_p0 = x_p1, x_p1 = x_p2: shared with tetrahedra of the same voxel
 *     (p0,p1 resp. p1,p2 swapped); area h^2/sqrt2, centroids h*sqrt2/4 apart;
 *   x_p0 = 1: half of the voxel face +e_p0, shared with (p1,p2,p0) there;
 *   x_p2 = 0: half of the voxel face -e_p2, shared with (p2,p0,p1) there;
 *     area h^2/2, centroids h*sqrt6/4 apart.
 * Two-point flux coefficients (area / centroid distance): 2h inside a voxel,
 * 2h/sqrt6 across voxel faces; an outlet face (p = 0) adds area / distance
 * (centroid, face centroid) = (h^2/2) / (h*sqrt14/12) = 6h/sqrt14 to the
 * diagonal; an inlet face adds its inflow (area projected on the inlet plane
 * times the Poiseuille velocity) to b; walls add nothing (Neumann). */
#include <math.h>

#include "common.h"
#include "vessel.h"

typedef struct tet_type {
    int p[3];      /* axis order: x_p0 >= x_p1 >= x_p2 */
    int swap01;    /* same-voxel neighbour across x_p0 = x_p1 */
    int swap12;    /* same-voxel neighbour across x_p1 = x_p2 */
    int plus_nb;   /* neighbour across x_p0 = 1, in the voxel at +e_p0 */
    int minus_nb;  /* neighbour across x_p2 = 0, in the voxel at -e_p2 */
} tet_type;

typedef struct asm_ctx {
    const vsl_mesh *m;
    tet_type tet[6];
    int64_t stride[3];
    double t_inner, t_cube, t_outlet, face_area;
} asm_ctx;

typedef struct tet_row {
    int n;
    int32_t col[5];
    double val[5];
    double b;
} tet_row;

static const int k_perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                  {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

static int perm_index(int a, int b, int c)
{
    for (int l = 0; l < 6; ++l)
        if (k_perms[l][0] == a && k_perms[l][1] == b && k_perms[l][2] == c)
            return l;
    return -1; /* unreachable for a permutation of 0, 1, 2 */
}

static void ctx_init(asm_ctx *c, const vsl_mesh *m)
{
    double h = m->grid.h;
    c->m = m;
    for (int l = 0; l < 6; ++l) {
        const int *p = k_perms[l];
        tet_type *t = &c->tet[l];
        for (int q = 0; q < 3; ++q) t->p[q] = p[q];
        t->swap01 = perm_index(p[1], p[0], p[2]);
        t->swap12 = perm_index(p[0], p[2], p[1]);
        t->plus_nb = perm_index(p[1], p[2], p[0]);
        t->minus_nb = perm_index(p[2], p[0], p[1]);
    }
    c->stride[0] = 1;
    c->stride[1] = m->grid.n[0];
    c->stride[2] = m->grid.n[0] * m->grid.n[1];
    c->t_inner = 2 * h;
    c->t_cube = 2 * h / sqrt(6.0);
    c->t_outlet = 6 * h / sqrt(14.0);
    c->face_area = h * h / 2;
}

static void row_add(tet_row *row, int64_t col, double val)
{
    int q = row->n++;
    while (q > 0 && row->col[q - 1] > col) { /* insertion: keep sorted */
        row->col[q] = row->col[q - 1];
        row->val[q] = row->val[q - 1];
        --q;
    }
    row->col[q] = (int32_t)col;
    row->val[q] = val;
}

/* Centroid of the voxel-face half of tetrahedron t on side +1 (x_p0 = 1)
 * or -1 (x_p2 = 0), in world coordinates; at = the voxel's indices. */
static void face_centroid(const asm_ctx *c, const tet_type *t,
                          const int64_t at[3], int side, double q[3])
{
    static const double plus[3] = {1, 2.0 / 3, 1.0 / 3},
                        minus[3] = {2.0 / 3, 1.0 / 3, 0};
    const vsl_grid *G = &c->m->grid;
    for (int k = 0; k < 3; ++k) {
        int axis = t->p[k];
        double local = side > 0 ? plus[k] : minus[k];
        q[axis] = G->origin[axis] + ((double)at[axis] + local) * G->h;
    }
}

/* The voxel-face side of tetrahedron t: a neighbour, or a boundary term. */
static void face_term(const asm_ctx *c, const tet_type *t, int64_t v,
                      const int64_t at[3], int side, tet_row *row, double *diag)
{
    const vsl_mesh *m = c->m;
    int axis = side > 0 ? t->p[0] : t->p[2];
    int32_t nb = m->vox[v + side * c->stride[axis]];
    if (nb >= 0) {
        row_add(row, 6 * (int64_t)nb + (side > 0 ? t->plus_nb : t->minus_nb),
                -c->t_cube);
        *diag += c->t_cube;
        return;
    }
    double q[3];
    for (int d = 0; d < 3; ++d) /* centre of the outside voxel */
        q[d] = m->grid.origin[d] +
               ((double)at[d] + 0.5 + (d == axis ? side : 0)) * m->grid.h;
    vsl_face kind = vsl_beyond_port(&m->geom, q);
    if (kind == VSL_OUTLET) {
        *diag += c->t_outlet;
    } else if (kind == VSL_INLET) {
        /* the flux through this face is its projection on the inlet plane:
         * over the staircase these add up to the plane's area */
        double cosine = side * m->geom.inlet.t[axis];
        face_centroid(c, t, at, side, q);
        if (cosine > 0)
            row->b += c->face_area * cosine * vsl_inlet_velocity(&m->geom, q);
    }
}

static void build_row(const asm_ctx *c, int64_t v, const int64_t at[3], int l,
                      tet_row *row)
{
    const tet_type *t = &c->tet[l];
    int64_t base = 6 * (int64_t)c->m->vox[v];
    double diag = 2 * c->t_inner;
    row->n = 0;
    row->b = 0;
    row_add(row, base + t->swap01, -c->t_inner);
    row_add(row, base + t->swap12, -c->t_inner);
    face_term(c, t, v, at, +1, row, &diag);
    face_term(c, t, v, at, -1, row, &diag);
    row_add(row, base + l, diag);
}

static void store_row(const tet_row *row, int64_t row_id, int64_t at,
                      cmrs_system *sys)
{
    for (int q = 0; q < row->n; ++q) {
        sys->A.indices[at + q] = row->col[q];
        sys->A.values[at + q] = row->val[q];
    }
    sys->A.indptr[row_id + 1] = at + row->n;
    sys->b[row_id] = row->b;
}

/* One pass over the kept voxels in rank order (so rows come out in cell
 * order): counts the nonzeros, and with sys != NULL also stores A and b
 * (A's arrays sized by an earlier counting pass). */
static int64_t sweep(const asm_ctx *c, cmrs_system *sys)
{
    const int64_t *n = c->m->grid.n;
    int64_t nnz = 0, row_id = 0;
    tet_row row;
    for (int64_t k = 0; k < n[2]; ++k)
        for (int64_t j = 0; j < n[1]; ++j)
            for (int64_t i = 0; i < n[0]; ++i) {
                int64_t v = i + n[0] * (j + n[1] * k), at[3] = {i, j, k};
                if (c->m->vox[v] < 0) continue;
                for (int l = 0; l < 6; ++l, ++row_id) {
                    build_row(c, v, at, l, &row);
                    if (sys) store_row(&row, row_id, nnz, sys);
                    nnz += row.n;
                }
            }
    return nnz;
}

cmrs_code vsl_assemble(const vsl_mesh *m, cmrs_system *sys)
{
    asm_ctx c;
    ctx_init(&c, m);
    int64_t cells = 6 * m->kept;
    CMRS_CHECK(cmrs_csr_alloc(&sys->A, cells, cells, sweep(&c, NULL)));
    CMRS_CHECK(cases_alloc_rhs(sys, "vessel"));
    sweep(&c, sys);
    double inflow = 0;
    for (int64_t r = 0; r < cells; ++r) inflow += sys->b[r];
    CMRS_ENSURE(inflow > 0, CMRS_E_USAGE, "vessel: the inlet is not resolved "
                "at %lld cells (no inflow); ask for more --cells",
                (long long)cells);
    return CMRS_OK;
}
