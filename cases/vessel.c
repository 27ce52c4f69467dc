/* cmrs gen vessel: voxelise the vessel at the voxel size that gives about
 * the requested number of cells, keep the voxels connected to an outlet,
 * rank them lexicographically and assemble (vessel_assemble.c). Memory: one
 * int32 per voxel of the padded bounding box (~5 voxels per kept voxel, so
 * ~3.5 bytes per cell) plus a BFS queue of one int64 per inside voxel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "common.h"
#include "vessel.h"

static void grid_make(const vsl_geom *g, double h, vsl_grid *G)
{
    G->h = h;
    for (int d = 0; d < 3; ++d) {
        G->n[d] = (int64_t)ceil((g->hi[d] - g->lo[d]) / h) + 2;
        G->origin[d] = g->lo[d] - h; /* one layer of padding each side */
    }
}

static void voxel_centre(const vsl_grid *G, int64_t i, int64_t j, int64_t k,
                         double p[3])
{
    p[0] = G->origin[0] + ((double)i + 0.5) * G->h;
    p[1] = G->origin[1] + ((double)j + 0.5) * G->h;
    p[2] = G->origin[2] + ((double)k + 0.5) * G->h;
}

/* Marks the x-row (j, k) of voxels: VSL_VOX_IN where the centre is in some
 * capsule and beyond no port, else VSL_VOX_OUT; the padding layer stays out.
 * Only capsules whose bounding box meets the row are tested. */
static int64_t mark_row(const vsl_geom *g, const vsl_grid *G, int64_t j,
                        int64_t k, int32_t *row)
{
    int64_t n0 = G->n[0], inside = 0;
    for (int64_t i = 0; i < n0; ++i) row[i] = VSL_VOX_OUT;
    if (j < 1 || j > G->n[1] - 2 || k < 1 || k > G->n[2] - 2) return 0;
    double p[3];
    voxel_centre(G, 0, j, k, p);
    for (int c = 0; c < g->ncap; ++c) {
        const vsl_capsule *cap = &g->cap[c];
        if (p[1] < cap->lo[1] || p[1] > cap->hi[1] || p[2] < cap->lo[2] ||
            p[2] > cap->hi[2])
            continue;
        int64_t i0 = (int64_t)ceil((cap->lo[0] - G->origin[0]) / G->h - 0.5);
        int64_t i1 = (int64_t)floor((cap->hi[0] - G->origin[0]) / G->h - 0.5);
        for (int64_t i = i0 < 1 ? 1 : i0; i <= i1 && i <= n0 - 2; ++i) {
            if (row[i] == VSL_VOX_IN) continue;
            p[0] = G->origin[0] + ((double)i + 0.5) * G->h;
            /* VSL_WALL from vsl_beyond_port: beyond no cut */
            if (vsl_in_capsule(cap, p) && vsl_beyond_port(g, p) == VSL_WALL) {
                row[i] = VSL_VOX_IN;
                ++inside;
            }
        }
    }
    return inside;
}

/* Number of inside voxels at voxel size h, one row at a time. */
static cmrs_code count_inside(const vsl_geom *g, double h, int64_t *count)
{
    vsl_grid G;
    grid_make(g, h, &G);
    int32_t *row = cmrs_malloc_array((size_t)G.n[0], sizeof *row);
    CMRS_ENSURE(row, CMRS_E_NOMEM, "vessel: cannot allocate a voxel row");
    *count = 0;
    for (int64_t k = 0; k < G.n[2]; ++k)
        for (int64_t j = 0; j < G.n[1]; ++j)
            *count += mark_row(g, &G, j, k, row);
    free(row);
    return CMRS_OK;
}

/* Voxel size whose cell count (6 per voxel) is closest to target: volume
 * estimated on a coarse grid, then a few secant-like corrections, since
 * the staircase makes the count a slightly irregular function of h. */
static cmrs_code choose_h(const vsl_geom *g, int64_t target, double *h_out)
{
    double h = 1.0 / 6, best_err = INFINITY;
    int64_t count;
    CMRS_CHECK(count_inside(g, h, &count));
    h = cbrt(6.0 * (double)count * h * h * h / (double)target);
    *h_out = h;
    for (int round = 0; round < 6; ++round) {
        CMRS_CHECK(count_inside(g, h, &count));
        CMRS_ENSURE(count > 0, CMRS_E_INTERNAL, "vessel: no voxel at h = %g",
                    h);
        double ratio = 6.0 * (double)count / (double)target;
        if (fabs(ratio - 1) < best_err) {
            best_err = fabs(ratio - 1);
            *h_out = h;
        }
        if (best_err <= 0.02) break;
        h *= cbrt(ratio);
    }
    return CMRS_OK;
}

static cmrs_code voxelise(vsl_mesh *m, int64_t *inside)
{
    const int64_t *n = m->grid.n;
    size_t count = 0;
    if (cmrs_mul_size((size_t)n[0] * (size_t)n[1], (size_t)n[2], &count) ||
        !(m->vox = cmrs_malloc_array(count, sizeof *m->vox)))
        CMRS_FAIL(CMRS_E_NOMEM, "vessel: cannot allocate %lld x %lld x %lld "
                  "voxels", (long long)n[0], (long long)n[1], (long long)n[2]);
    *inside = 0;
    for (int64_t k = 0; k < n[2]; ++k)
        for (int64_t j = 0; j < n[1]; ++j)
            *inside += mark_row(&m->geom, &m->grid, j, k,
                                m->vox + n[0] * (j + n[1] * k));
    return CMRS_OK;
}

static int has_outlet_face(const vsl_mesh *m, int64_t v)
{
    const int64_t *n = m->grid.n;
    int64_t at[3] = {v % n[0], (v / n[0]) % n[1], v / (n[0] * n[1])};
    int64_t stride[3] = {1, n[0], n[0] * n[1]};
    for (int a = 0; a < 3; ++a)
        for (int dir = -1; dir <= 1; dir += 2) {
            if (m->vox[v + dir * stride[a]] != VSL_VOX_OUT) continue;
            double p[3];
            at[a] += dir;
            voxel_centre(&m->grid, at[0], at[1], at[2], p);
            at[a] -= dir;
            if (vsl_beyond_port(&m->geom, p) == VSL_OUTLET) return 1;
        }
    return 0;
}

/* Breadth-first search from the voxels on an outlet through face-adjacent
 * inside voxels (the tetrahedra of face-adjacent voxels share faces, those
 * of edge-adjacent ones do not). Reached voxels become VSL_VOX_KEPT. */
static cmrs_code keep_connected(vsl_mesh *m, int64_t inside)
{
    const int64_t *n = m->grid.n;
    int64_t total = n[0] * n[1] * n[2], head = 0, tail = 0;
    int64_t stride[3] = {1, n[0], n[0] * n[1]};
    int64_t *queue = cmrs_malloc_array((size_t)inside, sizeof *queue);
    CMRS_ENSURE(queue, CMRS_E_NOMEM, "vessel: cannot allocate a queue of "
                "%lld voxels", (long long)inside);
    for (int64_t v = 0; v < total; ++v)
        if (m->vox[v] == VSL_VOX_IN && has_outlet_face(m, v)) {
            m->vox[v] = VSL_VOX_KEPT;
            queue[tail++] = v;
        }
    while (head < tail) {
        int64_t v = queue[head++];
        for (int a = 0; a < 3; ++a)
            for (int dir = -1; dir <= 1; dir += 2) {
                int64_t w = v + dir * stride[a];
                if (m->vox[w] != VSL_VOX_IN) continue;
                m->vox[w] = VSL_VOX_KEPT;
                queue[tail++] = w;
            }
    }
    free(queue);
    m->kept = tail;
    return CMRS_OK;
}

/* Natural order: kept voxels ranked lexicographically (x fastest); inside
 * voxels that reach no outlet are dropped (else A would be singular). */
static void rank_voxels(vsl_mesh *m)
{
    const int64_t *n = m->grid.n;
    int64_t total = n[0] * n[1] * n[2];
    int32_t rank = 0;
    for (int64_t v = 0; v < total; ++v) {
        if (m->vox[v] == VSL_VOX_KEPT) m->vox[v] = rank++;
        else if (m->vox[v] == VSL_VOX_IN) m->vox[v] = VSL_VOX_OUT;
    }
}

static cmrs_code build_mesh(vsl_mesh *m, int64_t target)
{
    double h = 0;
    int64_t inside = 0;
    vsl_geom_build(&m->geom);
    CMRS_CHECK(choose_h(&m->geom, target, &h));
    grid_make(&m->geom, h, &m->grid);
    CMRS_CHECK(voxelise(m, &inside));
    CMRS_CHECK(keep_connected(m, inside));
    CMRS_ENSURE(m->kept > 0, CMRS_E_USAGE, "vessel: --cells %lld is too few "
                "to resolve the vessel (no cell reaches an outlet)",
                (long long)target);
    CMRS_ENSURE(m->kept <= INT32_MAX / 6, CMRS_E_LIMIT, "vessel: %lld cells "
                "exceed 32-bit column indices", (long long)(6 * m->kept));
    rank_voxels(m);
    return CMRS_OK;
}

/* The peak from the target alone, before any voxel is counted: the voxel
 * grid (~3.5 bytes per cell) with A (at most 5 entries per row: a
 * tetrahedron has 4 faces) and b; the actual count is within ~10%. */
static cmrs_code check_memory(int64_t cells)
{
    double rows = 1.1 * (double)cells, nnz = 5.0 * rows;
    double bytes = 3.5 * rows + (rows + 1) * 8.0 + nnz * 12.0 + 8.0 * rows;
    char option[48];
    snprintf(option, sizeof option, "--cells %lld", (long long)cells);
    CMRS_CHECK(cases_check_memory("vessel", option, rows, nnz, bytes));
    return CMRS_OK;
}

cmrs_code cmrs_gen_vessel(const cmrs_vessel_opts *o, cmrs_system *sys)
{
    memset(sys, 0, sizeof *sys);
    CMRS_ENSURE(o->cells >= CMRS_VESSEL_MIN_CELLS &&
                    o->cells <= CMRS_VESSEL_MAX_CELLS, CMRS_E_USAGE,
                "vessel: --cells %lld is out of range [%lld, %lld]",
                (long long)o->cells, CMRS_VESSEL_MIN_CELLS,
                CMRS_VESSEL_MAX_CELLS);
    CMRS_CHECK(check_memory(o->cells));
    vsl_mesh m;
    memset(&m, 0, sizeof m);
    cmrs_code rc = CMRS_OK;
    CMRS_TRY(build_mesh(&m, o->cells));
    CMRS_TRY(vsl_assemble(&m, sys));
    CMRS_TRY(cases_finish(sys, "vessel"));
done:
    free(m.vox);
    if (rc != CMRS_OK) cmrs_system_free(sys);
    return rc;
}
