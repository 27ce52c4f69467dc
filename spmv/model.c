#include "model.h"

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

int cmrs_default_height(double mu)
{
    if (!(mu > 0)) return 16; /* empty matrix: any height works */
    int h = (int)((CMRS_KERNEL_CHUNK - 1) / mu);
    return h < 1 ? 1 : h > 16 ? 16 : h;
}
