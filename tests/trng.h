/* The tests' random numbers: xorshift64 (Marsaglia), seeded per file so
 * that every run sees the same matrices. */
#ifndef CMRS_TEST_TRNG_H
#define CMRS_TEST_TRNG_H

#include <stdint.h>

static inline uint64_t trng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif
