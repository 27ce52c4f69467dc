#include "model.h"

#include <math.h>

double cmrs_model_f(int h, double mu, double b, double lambda)
{
    if (mu <= 0) return 1.0;
    return 1.0 + (lambda - b) / ((double)h * mu * b);
}

double cmrs_model_accel(int h, double mu, double b, double lambda)
{
    return cmrs_model_f(1, mu, b, lambda) / cmrs_model_f(h, mu, b, lambda);
}

int cmrs_model_suggest_height(double mu, double b, double lambda)
{
    double best = cmrs_model_accel(16, mu, b, lambda);
    for (int h = 1; h <= 16; ++h)
        if (cmrs_model_accel(h, mu, b, lambda) >= 0.9 * best) return h;
    return 16;
}

double cmrs_chunk_fill(int h, double mu)
{
    double entries = (double)h * mu;
    return entries / (CMRS_KERNEL_CHUNK * ceil((entries + 1) / CMRS_KERNEL_CHUNK));
}

int cmrs_default_height(double mu)
{
    (void)mu;
    return CMRS_TILE_DEFAULT_HEIGHT;
}

int cmrs_seg_height(double mu)
{
    if (!(mu > 0)) return 16; /* empty matrix: any height works */
    double best = 0;
    for (int h = 1; h <= 16; ++h)
        if (cmrs_chunk_fill(h, mu) > best) best = cmrs_chunk_fill(h, mu);
    for (int h = 16; h > 1; --h)
        if (cmrs_chunk_fill(h, mu) >= best - 0.01) return h;
    return 1;
}
