/* The setup profile's JSON object and --verbose line (profile_report.h). */
#include "profile_report.h"

#include "app/report_fields.h"

void profile_report_json(cmrs_json *j, const cmrs_setup_profile *p)
{
    if (!p->valid) return;
    const int pinned = p->h2d_pinned_gbs > 0; /* and so its floor measured */
    const app_field profile[] = {
        APP_NUM("host_staging_s", p->host_staging),
        APP_NUM("transfer_s", p->transfer),
        APP_NUM("conversion_s", p->conversion),
        APP_NUM("precond_s", p->precond),
        APP_NUM("other_s", p->other),
        APP_NUM("libraries_s", p->libraries),
        APP_NUM("allocation_s", p->allocation),
        APP_NUM("total_s", p->total),
        APP_NUM("transfer_bytes", p->transfer_bytes),
        APP_NUM("csr_bytes", p->csr_bytes),
        APP_NUM_IF(pinned, "h2d_pinned_gbs", p->h2d_pinned_gbs),
        APP_NUM_IF(pinned, "transfer_floor_s", p->transfer_floor),
        APP_STR_IF(p->upload[0], "upload", p->upload),
        APP_INT_IF(p->upload_threads > 0, "upload_threads",
                   p->upload_threads),
        APP_BOOL("backend_reused", p->backend_reused),
    };
    app_json_object(j, "setup_profile", profile, APP_FIELDS_LEN(profile));
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
