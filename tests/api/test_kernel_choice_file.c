/* The kernel choice's file across processes (api/kernel_choice.h,
 * CMRS_KERNEL_CHOICE_CACHE): a choice written is found again for the same
 * signature, version and GPU only; the last line of a key wins; malformed
 * lines and unknown formats are skipped; a file that does not exist or
 * cannot be written is no cache. Host only: the GPU search itself is
 * test_gpu_kernel_choice's. */
#include <string.h>

#include "api/kernel_choice.h"
#include "cmrs.h"
#include "tdir.h"

static const char *const k_gpu = "NVIDIA H200";

static void round_trip(void)
{
    const char *f = path_of("choices.txt");
    char fmt[16] = "";
    int slice = 9;
    CHECK(!cmrs_choice_file_find(f, 42, k_gpu, fmt, &slice),
          "a file that does not exist holds a choice");
    CHECK(cmrs_choice_file_put(f, 42, k_gpu, "cmrs-mod", 0), "put");
    CHECK(cmrs_choice_file_put(f, 7, k_gpu, "cmrs", 1), "put another");
    CHECK(cmrs_choice_file_find(f, 42, k_gpu, fmt, &slice) &&
              strcmp(fmt, "cmrs-mod") == 0 && slice == 0,
          "42: %s %d", fmt, slice);
    CHECK(cmrs_choice_file_find(f, 7, k_gpu, fmt, &slice) &&
              strcmp(fmt, "cmrs") == 0 && slice == 1, "7: %s %d", fmt, slice);
    CHECK(!cmrs_choice_file_find(f, 43, k_gpu, fmt, &slice),
          "another signature found");
    CHECK(!cmrs_choice_file_find(f, 42, "NVIDIA H100 80GB HBM3", fmt, &slice),
          "another GPU's choice taken");
    CHECK(cmrs_choice_file_put(f, 42, k_gpu, "cmrs", -1), "put again");
    CHECK(cmrs_choice_file_find(f, 42, k_gpu, fmt, &slice) &&
              strcmp(fmt, "cmrs") == 0 && slice == -1,
          "the last line of a key wins: %s %d", fmt, slice);
}

static void bad_lines(void)
{
    const char *f = path_of("bad.txt");
    char fmt[16] = "", line[256];
    int slice = 0;
    FILE *w = fopen(f, "w");
    CHECK(w != NULL, "cannot write %s", f);
    if (!w) return;
    snprintf(line, sizeof line, "cmrs-choice %s %016llx hyb 0 %s\n",
             cmrs_version(), 5ULL, k_gpu); /* a format it cannot build */
    fputs(line, w);
    snprintf(line, sizeof line, "cmrs-choice %s %016llx cmrs 7 %s\n",
             cmrs_version(), 6ULL, k_gpu); /* a slice out of range */
    fputs(line, w);
    snprintf(line, sizeof line, "cmrs-choice 0.0.0-old %016llx cmrs 0 %s\n",
             8ULL, k_gpu); /* another version's */
    fputs(line, w);
    fputs("garbage\ncmrs-choice\n\n", w);
    fclose(w);
    CHECK(!cmrs_choice_file_find(f, 5, k_gpu, fmt, &slice), "hyb taken");
    CHECK(!cmrs_choice_file_find(f, 6, k_gpu, fmt, &slice), "slice 7 taken");
    CHECK(!cmrs_choice_file_find(f, 8, k_gpu, fmt, &slice),
          "another version's choice taken");
    CHECK(cmrs_choice_file_put(f, 5, k_gpu, "cmrs", 0) &&
              cmrs_choice_file_find(f, 5, k_gpu, fmt, &slice),
          "a good line after bad ones");
    CHECK(!cmrs_choice_file_put(path_of("no/such/folder/x.txt"), 1, k_gpu,
                                "cmrs", 0),
          "a file that cannot be written reported written");
}

int main(void) { return TDIR_MAIN("kchoice", round_trip, bad_lines); }
