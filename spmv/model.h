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

#ifdef __cplusplus
}
#endif

#endif
