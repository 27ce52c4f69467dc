/* The partition of a distributed solve in the summary and the JSON. */
#include "dist_report.h"

#include "app/report_fields.h"
#include "dist/dist.h"

void dist_report_print(FILE *f, const cmrs_backend *be)
{
    const cmrs_partition *pt = cmrs_backend_dist_partition(be);
    if (!pt) return;
    fprintf(f, "  partition  %d parts by %s: edge cut %lld, halo %lld "
            "values (most in one part %lld, from at most %d parts), nnz "
            "imbalance %.3f%s\n", pt->nparts,
            cmrs_part_method_name(pt->method), (long long)pt->edge_cut,
            (long long)pt->halo, (long long)pt->max_halo, pt->max_nbrs,
            pt->imbalance, pt->by_rows ? "; each rank read its rows" : "");
    const cmrs_dist_setup_times *t = cmrs_backend_dist_times(be);
    fprintf(f, "             setup: partition %.3f s, halo lists %.3f s, "
            "parts' back ends %.3f s, exchange %.3f s, its warm-up and probe "
            "%.3f s\n", t->partition, t->halo, t->parts, t->exchange,
            t->warm);
    if (t->halo_s > 0 && t->link_bps > 0)
        fprintf(f, "             exchange: %.1f us a halo (at most %.1f KB "
                "into one part), floor %.2f us at %.0f GB/s (the link, "
                "measured by a 256 MB all-reduce)\n", 1e6 * t->halo_s,
                t->halo_bytes / 1024.0, 1e6 * t->halo_bytes / t->link_bps,
                t->link_bps / 1e9);
}

void dist_report_json(cmrs_json *j, const cmrs_backend *be)
{
    const cmrs_partition *pt = cmrs_backend_dist_partition(be);
    if (!pt) return;
    const cmrs_dist_setup_times *t = cmrs_backend_dist_times(be);
    const app_field partition[] = {
        APP_INT("parts", pt->nparts),
        APP_STR("method", cmrs_part_method_name(pt->method)),
        APP_INT("edge_cut", pt->edge_cut),
        APP_INT("halo", pt->halo),
        APP_INT("max_halo", pt->max_halo),
        APP_INT("max_neighbours", pt->max_nbrs),
        APP_NUM("imbalance", pt->imbalance),
        APP_INT("rows_by_rank", pt->by_rows),
        APP_NUM("setup_partition", t->partition),
        APP_NUM("setup_halo", t->halo),
        APP_NUM("setup_parts", t->parts),
        APP_NUM("setup_exchange", t->exchange),
        APP_NUM("setup_warm", t->warm),
        APP_NUM("halo_seconds", t->halo_s),
        APP_NUM("halo_bytes", t->halo_bytes),
        APP_NUM("link_bytes_per_second", t->link_bps),
    };
    app_json_object(j, "partition", partition, APP_FIELDS_LEN(partition));
}
