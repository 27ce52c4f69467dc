/* What the graph engine's one-thread scalar kernels share: reading a
 * cuBLAS result slot in the precision it was written, writing a
 * coefficient in both precisions, and launching one thread of
 * kernel<float> or kernel<double>. */
#ifndef CMRS_SOLVER_DEV_SCALAR_CUH
#define CMRS_SOLVER_DEV_SCALAR_CUH

#include "dev_reduce.cuh"

namespace cmrs_dev {

/* Result slot i of a cuBLAS reduction, in the precision it was written. */
template <typename T> __device__ double red(const cmrs_dstate *st, int i);
template <> __device__ inline double red<float>(const cmrs_dstate *st, int i)
{
    return st->red_f[i];
}
template <> __device__ inline double red<double>(const cmrs_dstate *st, int i)
{
    return st->red_d[i];
}

__device__ inline void set_coef(cmrs_dstate *st, int i, double c)
{
    st->coef_d[i] = c;
    st->coef_f[i] = (float)c;
}

inline cmrs_code launch_one(void (*kernel)(cmrs_dev_args),
                            const cmrs_dev_args *a)
{
    kernel<<<1, 1, 0, a->stream>>>(*a);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

} // namespace cmrs_dev

/* One thread of kernel<float> or kernel<double>. */
#define CMRS_SCALAR(a, kernel)                                              \
    cmrs_dev::launch_one((a)->prec == CMRS_PREC_SINGLE ? kernel<float>      \
                                                       : kernel<double>,    \
                         a)

/* `extern "C" cmrs_code fn(const cmrs_dev_args *)`: one thread of kernel. */
#define CMRS_DEV_SCALAR_ENTRY(fn, kernel)                                   \
    extern "C" cmrs_code fn(const cmrs_dev_args *a)                         \
    {                                                                       \
        return CMRS_SCALAR(a, kernel);                                      \
    }

#endif
