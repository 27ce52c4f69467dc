/* The partition of a distributed solve in the summary and the JSON. */
#include "dist_report.h"

#include "dist/dist.h"

void dist_report_print(FILE *f, const cmrs_backend *be)
{
    const cmrs_partition *pt = cmrs_backend_dist_partition(be);
    if (!pt) return;
    fprintf(f, "  partition  %d parts by %s: edge cut %lld, halo %lld "
            "values (most in one part %lld, from at most %d parts), nnz "
            "imbalance %.3f\n", pt->nparts,
            cmrs_part_method_name(pt->method), (long long)pt->edge_cut,
            (long long)pt->halo, (long long)pt->max_halo, pt->max_nbrs,
            pt->imbalance);
    const cmrs_dist_setup_times *t = cmrs_backend_dist_times(be);
    fprintf(f, "             setup: partition %.3f s, halo lists %.3f s, "
            "parts' back ends %.3f s, exchange %.3f s\n", t->partition,
            t->halo, t->parts, t->exchange);
}

void dist_report_json(cmrs_json *j, const cmrs_backend *be)
{
    const cmrs_partition *pt = cmrs_backend_dist_partition(be);
    if (!pt) return;
    cmrs_json_object_begin(j, "partition");
    cmrs_json_int(j, "parts", pt->nparts);
    cmrs_json_str(j, "method", cmrs_part_method_name(pt->method));
    cmrs_json_int(j, "edge_cut", pt->edge_cut);
    cmrs_json_int(j, "halo", pt->halo);
    cmrs_json_int(j, "max_halo", pt->max_halo);
    cmrs_json_int(j, "max_neighbours", pt->max_nbrs);
    cmrs_json_num(j, "imbalance", pt->imbalance);
    const cmrs_dist_setup_times *t = cmrs_backend_dist_times(be);
    cmrs_json_num(j, "setup_partition", t->partition);
    cmrs_json_num(j, "setup_halo", t->halo);
    cmrs_json_num(j, "setup_parts", t->parts);
    cmrs_json_num(j, "setup_exchange", t->exchange);
    cmrs_json_object_end(j);
}
