/* The aggregates of the host AMG, pinned: a hash of every level's aggregate
 * map (aggregation, tentative P, Galerkin, aggregation again down to the
 * coarsest level) for each method on a vessel, a Poisson matrix, an
 * unsymmetric-weight upwind operator and a matrix whose strength graph is
 * one-way (the transpose-and-merge path). The hashes of the sequential
 * methods were recorded before their rewrite for speed, those of handshake
 * and MIS-2 aggregation when they were added (2026-11-23); a change of
 * any aggregate changes the hierarchy, so it must be deliberate and
 * measured (iterations), and then the table below is updated. */
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solver/amg/amg_host.h"
#include "solver/systems.h"
#include "tamg.h"

static uint64_t fnv(uint64_t h, const int32_t *a, int64_t n)
{
    for (int64_t i = 0; i < n; ++i) {
        h ^= (uint32_t)a[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* The hash of every level's aggregates, the levels and the coarsest rows. */
static uint64_t hierarchy_hash(const cmrs_csr *A0, const cmrs_amg_params *p,
                               int *levels, int64_t *coarse)
{
    uint64_t h = 1469598103934665603ULL;
    cmrs_csr A = *A0, P, R, Ac;
    int owned = 0;
    *levels = 1;
    while (A.rows > p->coarse_rows) {
        int32_t *agg = malloc((size_t)A.rows * sizeof *agg);
        int64_t nc = 0;
        CHECK_OK(cmrs_amg_aggregate(&A, p, agg, &nc));
        h = fnv(h, agg, A.rows);
        int stop = nc * 10 > A.rows * 9;
        if (!stop) {
            CHECK_OK(cmrs_amg_prolongator(&A, agg, nc, p, &P));
            CHECK_OK(cmrs_csr_transpose(&P, &R));
            CHECK_OK(cmrs_amg_galerkin_host(&R, &A, &P, &Ac));
            cmrs_csr_free(&P);
            cmrs_csr_free(&R);
        }
        free(agg);
        if (stop) break;
        if (owned) cmrs_csr_free(&A);
        A = Ac;
        owned = 1;
        ++*levels;
    }
    *coarse = A.rows;
    if (owned) cmrs_csr_free(&A);
    return h;
}

/* 2-D Laplacian whose entries above the diagonal in every third row are
 * weakened 100x: those edges are strong one way only. */
static void lap2d_oneway(cmrs_csr *A, int64_t m)
{
    lap2d(A, m);
    for (int64_t i = 0; i < A->rows; i += 3)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            if (A->indices[k] > i) A->values[k] *= 0.01;
}

typedef struct golden {
    const char *matrix;
    cmrs_amg_agg agg;
    int size;
    uint64_t hash;
} golden;

static const golden table[] = {
{"vessel", CMRS_AMG_AGG_PAIRWISE, 2, 0x3cd970da90dcbd81ULL}, /* 11 levels, 47 rows */
{"vessel", CMRS_AMG_AGG_PAIRWISE, 4, 0x9ede361e470d951eULL}, /* 6 levels, 45 rows */
{"vessel", CMRS_AMG_AGG_PAIRWISE, 8, 0xc1b03194e7ffe20eULL}, /* 5 levels, 11 rows */
{"vessel", CMRS_AMG_AGG_PAIRWISE, 16, 0x7a352ad389393dbbULL}, /* 4 levels, 10 rows */
{"vessel", CMRS_AMG_AGG_GREEDY, 8, 0xb4eb79a50a5d891eULL}, /* 5 levels, 24 rows */
{"vessel", CMRS_AMG_AGG_HANDSHAKE, 2, 0xc052ba305d6a2ca3ULL}, /* 10 levels, 49 rows */
{"vessel", CMRS_AMG_AGG_HANDSHAKE, 8, 0x6605d8f14a4edfc8ULL}, /* 4 levels, 50 rows */
{"vessel", CMRS_AMG_AGG_MIS2, 8, 0x63eeb5d7af247550ULL}, /* 5 levels, 13 rows */
{"poisson", CMRS_AMG_AGG_PAIRWISE, 2, 0x4676ed8d54877b28ULL}, /* 12 levels, 31 rows */
{"poisson", CMRS_AMG_AGG_PAIRWISE, 4, 0x67112e74e1946a1dULL}, /* 7 levels, 15 rows */
{"poisson", CMRS_AMG_AGG_PAIRWISE, 8, 0x821840d48e5ebcf7ULL}, /* 5 levels, 15 rows */
{"poisson", CMRS_AMG_AGG_PAIRWISE, 16, 0xe7c4874cc82c80fbULL}, /* 4 levels, 15 rows */
{"poisson", CMRS_AMG_AGG_GREEDY, 8, 0x27eaf653dc5f546fULL}, /* 5 levels, 22 rows */
{"poisson", CMRS_AMG_AGG_HANDSHAKE, 2, 0xfb52f2c76174c936ULL}, /* 10 levels, 47 rows */
{"poisson", CMRS_AMG_AGG_HANDSHAKE, 8, 0x0289cdcf1a445f8bULL}, /* 4 levels, 48 rows */
{"poisson", CMRS_AMG_AGG_MIS2, 8, 0xf41e3cf378046ae9ULL}, /* 5 levels, 8 rows */
{"contrast", CMRS_AMG_AGG_PAIRWISE, 2, 0x4c44d315d230e13fULL}, /* 10 levels, 50 rows */
{"contrast", CMRS_AMG_AGG_PAIRWISE, 4, 0x683850471aef74d2ULL}, /* 6 levels, 45 rows */
{"contrast", CMRS_AMG_AGG_PAIRWISE, 8, 0x648a7b396d94c29dULL}, /* 5 levels, 24 rows */
{"contrast", CMRS_AMG_AGG_PAIRWISE, 16, 0x6c38f10c12dcfbfaULL}, /* 4 levels, 22 rows */
{"contrast", CMRS_AMG_AGG_GREEDY, 8, 0x87ca336d5a722604ULL}, /* 5 levels, 42 rows */
{"contrast", CMRS_AMG_AGG_HANDSHAKE, 2, 0x40eabd89acbef27eULL}, /* 10 levels, 45 rows */
{"contrast", CMRS_AMG_AGG_HANDSHAKE, 8, 0x51a7ce4c1fbd0d55ULL}, /* 4 levels, 49 rows */
{"contrast", CMRS_AMG_AGG_MIS2, 8, 0x53896790bb46fec6ULL}, /* 5 levels, 33 rows */
{"upwind", CMRS_AMG_AGG_PAIRWISE, 2, 0x3f761d70c9e7f755ULL}, /* 10 levels, 43 rows */
{"upwind", CMRS_AMG_AGG_PAIRWISE, 4, 0x9cab6558d4d0e00dULL}, /* 6 levels, 21 rows */
{"upwind", CMRS_AMG_AGG_PAIRWISE, 8, 0x41915362fd92923dULL}, /* 4 levels, 43 rows */
{"upwind", CMRS_AMG_AGG_PAIRWISE, 16, 0xb26b2cfdae050bffULL}, /* 4 levels, 5 rows */
{"upwind", CMRS_AMG_AGG_GREEDY, 8, 0xd0c2a74e571d0f4cULL}, /* 5 levels, 12 rows */
{"upwind", CMRS_AMG_AGG_HANDSHAKE, 2, 0xf3fd3967e872ebb2ULL}, /* 9 levels, 39 rows */
{"upwind", CMRS_AMG_AGG_HANDSHAKE, 8, 0xb318b2b82b44698aULL}, /* 4 levels, 18 rows */
{"upwind", CMRS_AMG_AGG_MIS2, 8, 0xac3f57a0002231f7ULL}, /* 4 levels, 47 rows */
{"oneway", CMRS_AMG_AGG_PAIRWISE, 2, 0x1a5958d3eb77d85eULL}, /* 10 levels, 30 rows */
{"oneway", CMRS_AMG_AGG_PAIRWISE, 4, 0x8409eaa5bc86ca29ULL}, /* 6 levels, 30 rows */
{"oneway", CMRS_AMG_AGG_PAIRWISE, 8, 0xed4700b5c2a55ba3ULL}, /* 4 levels, 30 rows */
{"oneway", CMRS_AMG_AGG_PAIRWISE, 16, 0x0198eabeb4d2c65cULL}, /* 4 levels, 30 rows */
{"oneway", CMRS_AMG_AGG_GREEDY, 8, 0x8fb1b2d7c906d61fULL}, /* 5 levels, 29 rows */
{"oneway", CMRS_AMG_AGG_HANDSHAKE, 2, 0x8ab6d696d56d209fULL}, /* 9 levels, 42 rows */
{"oneway", CMRS_AMG_AGG_HANDSHAKE, 8, 0x43a151ce2045f873ULL}, /* 4 levels, 47 rows */
{"oneway", CMRS_AMG_AGG_MIS2, 8, 0x8742b6d2c335f718ULL}, /* 5 levels, 25 rows */
};

static void matrix_of(const char *name, cmrs_csr *A)
{
    cmrs_system sys;
    memset(&sys, 0, sizeof sys);
    if (!strcmp(name, "vessel")) {
        cmrs_vessel_opts o = {60000, 0};
        CHECK_OK(cmrs_gen_vessel(&o, &sys));
    } else if (!strcmp(name, "poisson")) {
        cmrs_poisson_opts o = {40, 7, 0.0, 1};
        CHECK_OK(cmrs_gen_poisson3d(&o, &sys));
    } else if (!strcmp(name, "contrast")) {
        cmrs_poisson_opts o = {32, 7, 3.0, 5};
        CHECK_OK(cmrs_gen_poisson3d(&o, &sys));
    } else if (!strcmp(name, "upwind")) {
        upwind2d(A, 150, 0.7);
        return;
    } else {
        lap2d_oneway(A, 150);
        return;
    }
    *A = sys.A;
    memset(&sys.A, 0, sizeof sys.A);
    cmrs_system_free(&sys);
}

static const char *const agg_name[] = {"CMRS_AMG_AGG_PAIRWISE",
                                       "CMRS_AMG_AGG_GREEDY",
                                       "CMRS_AMG_AGG_HANDSHAKE",
                                       "CMRS_AMG_AGG_MIS2"};

int main(int argc, char **argv)
{
    int record = argc > 1 && !strcmp(argv[1], "--record");
    static const char *mats[] = {"vessel", "poisson", "contrast", "upwind",
                                 "oneway"};
    /* 0: greedy; negative: handshake of that size; 1: MIS-2 */
    static const int sizes[] = {2, 4, 8, 16, 0, -2, -8, 1};
    size_t t = 0;
    for (size_t m = 0; m < sizeof mats / sizeof *mats; ++m) {
        cmrs_csr A;
        memset(&A, 0, sizeof A);
        matrix_of(mats[m], &A);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s, ++t) {
            /* The parameters the hashes were recorded with. */
            cmrs_amg_params p = amg_plain_params(
                sizes[s] == 1  ? CMRS_AMG_AGG_MIS2
                : sizes[s] > 0 ? CMRS_AMG_AGG_PAIRWISE
                : sizes[s] < 0 ? CMRS_AMG_AGG_HANDSHAKE
                               : CMRS_AMG_AGG_GREEDY,
                sizes[s] > 1 || sizes[s] < 0 ? abs(sizes[s]) : 8);
            p.coarse_rows = 50;
            int levels;
            int64_t coarse;
            uint64_t h = hierarchy_hash(&A, &p, &levels, &coarse);
            if (record) {
                printf("{\"%s\", %s, %d, 0x%016llxULL}, /* %d levels, "
                       "%lld rows */\n", mats[m], agg_name[p.agg],
                       p.agg_size, (unsigned long long)h, levels,
                       (long long)coarse);
                continue;
            }
            CHECK(t < sizeof table / sizeof *table &&
                      !strcmp(table[t].matrix, mats[m]) &&
                      table[t].agg == p.agg && table[t].size == p.agg_size &&
                      table[t].hash == h,
                  "%s, %s size %d: aggregates changed (hash %016llx)",
                  mats[m], agg_name[p.agg], p.agg_size,
                  (unsigned long long)h);
        }
        cmrs_csr_free(&A);
    }
    if (record) return 0;
    return check_summary();
}
