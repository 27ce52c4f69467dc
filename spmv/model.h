/* The CMRS performance model of paper 000 §5 (eq. 5.1-5.2).
 *
 * f(h, mu) = 1 + (lambda - b) / (h mu b): bytes transferred over bytes
 * requested when a warp reads h*mu contiguous b-byte items in lambda-byte
 * segments; a(h, mu) = f(1, mu) / f(h, mu): predicted acceleration of CMRS
 * with strip height h over a one-row-per-warp CSR (vector) kernel. */
#ifndef CMRS_MODEL_H
#define CMRS_MODEL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Segment size lambda used by default: 128 bytes, the L1 line the paper
 * uses and the granularity a warp's coalesced request is served in. */
#define CMRS_MODEL_LAMBDA 128.0

double cmrs_model_f(int h, double mu, double b, double lambda);
double cmrs_model_accel(int h, double mu, double b, double lambda);
/* Suggested strip height: the smallest h in 1..16 whose predicted
 * acceleration reaches 90% of a(16, mu) (a grows with h and flattens). */
int cmrs_model_suggest_height(double mu, double b, double lambda);

/* The default strip height of the `cmrs` format with its default kernels
 * (rows and tile, cmrs_rows.cu, cmrs_tile.cu): 16, the most rows the 4-bit
 * row field allows, so the fewest strip-pointer bytes. Neither kernel's
 * cost depends on h otherwise (a tile spans as many strips as fill a
 * chunk; a row's range comes from its own offset). Kept a function of mu
 * so a measured rule can replace it. */
#define CMRS_TILE_DEFAULT_HEIGHT 16
int cmrs_default_height(double mu);

/* The height for the segmented-scan kernels (CMRS_CMRS_VARIANT=seg,
 * cmrs_seg.cu), one strip per warp, from how they spend their lanes: it reads a strip of ~h*mu entries
 * (plus one when the strip starts at an odd entry) in 64-entry chunks, so
 * the fraction of loaded slots that hold entries is
 *   fill(h) = h*mu / (64 * ceil((h*mu + 1) / 64)).
 * The default is the largest h in 1..16 whose fill is within 1% of the
 * best. Measured on an H200 (docs/BENCHMARKS.md), the best heights sit
 * where strips just fill whole chunks, not where the paper's model
 * saturates: mu = 4.95 -> 12, mu = 6.97 -> 9, mu = 26.6 -> 14. */
#define CMRS_KERNEL_CHUNK 64
int cmrs_seg_height(double mu);
/* fill(h) above: the fraction of loaded chunk slots that hold entries. */
double cmrs_chunk_fill(int h, double mu);

#ifdef __cplusplus
}
#endif

#endif
