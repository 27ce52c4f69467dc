/* The power iteration's fixed start vector (pc_chebyshev.c), one formula
 * for the host array and the device kernel (precond.cu): entry i is
 * 1 + ((i * 7919) mod 101) / 101, with no symmetry a smooth eigenvector
 * could share, and deterministic, so setups repeat exactly. */
#ifndef CMRS_SOLVER_PC_START_H
#define CMRS_SOLVER_PC_START_H

#include <stdint.h>

#ifdef __CUDACC__
__host__ __device__
#endif
static inline double cmrs_pc_start_value(int64_t i)
{
    return 1.0 + (double)((i * 7919) % 101) / 101.0;
}

#endif
