/* The setup profile's JSON object and --verbose line (profile_report.h). */
#include "profile_report.h"

void profile_report_json(cmrs_json *j, const cmrs_setup_profile *p)
{
    if (!p->valid) return;
    cmrs_json_object_begin(j, "setup_profile");
    cmrs_json_num(j, "host_staging_s", p->host_staging);
    cmrs_json_num(j, "transfer_s", p->transfer);
    cmrs_json_num(j, "conversion_s", p->conversion);
    cmrs_json_num(j, "precond_s", p->precond);
    cmrs_json_num(j, "other_s", p->other);
    cmrs_json_num(j, "libraries_s", p->libraries);
    cmrs_json_num(j, "allocation_s", p->allocation);
    cmrs_json_num(j, "total_s", p->total);
    cmrs_json_num(j, "transfer_bytes", p->transfer_bytes);
    cmrs_json_num(j, "csr_bytes", p->csr_bytes);
    if (p->h2d_pinned_gbs > 0) {
        cmrs_json_num(j, "h2d_pinned_gbs", p->h2d_pinned_gbs);
        cmrs_json_num(j, "transfer_floor_s", p->transfer_floor);
    } else {
        cmrs_json_null(j, "h2d_pinned_gbs");
        cmrs_json_null(j, "transfer_floor_s");
    }
    if (p->upload[0]) cmrs_json_str(j, "upload", p->upload);
    else cmrs_json_null(j, "upload");
    if (p->upload_threads > 0)
        cmrs_json_int(j, "upload_threads", p->upload_threads);
    else
        cmrs_json_null(j, "upload_threads");
    cmrs_json_bool(j, "backend_reused", p->backend_reused);
    cmrs_json_object_end(j);
}

void profile_report_print(FILE *f, const cmrs_setup_profile *p)
{
    if (!p->valid) return;
    fprintf(f, "setup profile: total %.4f s = host staging %.4f + transfer "
            "%.4f + conversion %.4f + precond %.4f + libraries %.4f + "
            "allocation %.4f + other %.4f s; %.1f MB uploaded", p->total,
            p->host_staging, p->transfer, p->conversion, p->precond,
            p->libraries, p->allocation, p->other,
            1e-6 * p->transfer_bytes);
    if (p->transfer > 0 && p->transfer_bytes > 0)
        fprintf(f, " (%.2f GB/s)", 1e-9 * p->transfer_bytes / p->transfer);
    if (p->upload[0]) fprintf(f, " %s", p->upload);
    if (p->upload_threads > 1) fprintf(f, " x%d threads", p->upload_threads);
    if (p->h2d_pinned_gbs > 0)
        fprintf(f, "; pinned H2D %.2f GB/s, CSR %.1f MB floor %.4f s",
                p->h2d_pinned_gbs, 1e-6 * p->csr_bytes, p->transfer_floor);
    fputc('\n', f);
}
