/* A small seeded random generator (splitmix64) for the generators and the
 * random reordering: same seed, same stream, on every platform. Not for
 * cryptography. */
#ifndef CMRS_CASES_RNG_H
#define CMRS_CASES_RNG_H

#include <stdint.h>

typedef struct cmrs_rng { uint64_t state; } cmrs_rng;

static inline cmrs_rng cmrs_rng_make(uint64_t seed)
{
    cmrs_rng r = {seed ^ 0x6a09e667f3bcc909ull};
    return r;
}

static inline uint64_t cmrs_rng_next(cmrs_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double cmrs_rng_uniform(cmrs_rng *r)
{
    return (double)(cmrs_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n > 0, without modulo bias: draws below
 * 2^64 mod n are rejected so every residue is equally likely. */
static inline uint64_t cmrs_rng_below(cmrs_rng *r, uint64_t n)
{
    uint64_t reject_below = (0 - n) % n;
    for (;;) {
        uint64_t x = cmrs_rng_next(r);
        if (x >= reject_below) return x % n;
    }
}

#endif
