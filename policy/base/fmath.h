/* expm1 and log1p without libm. The profile's sampling needs only these two (the bytes to
 * the next sample, a sampled block's probability), and libm is one more library loaded
 * into every process libplace runs in: its IFUNC resolvers run at load, which left 316
 * KiB of its pages resident, a third of what libplace added to a small program's max
 * RSS. Each is a short series after a range reduction, within a few units in the last
 * place of libm's (tests/unit/test_fmath.c), for the arguments libplace passes: expm1
 * of x <= 700, log1p of x > -1. */
#ifndef PLACE_FMATH_H
#define PLACE_FMATH_H

#include <stdint.h>
#include <string.h>

#define PLACE_LN2_HI 6.93147180369123816490e-01 /* ln 2, its high bits exact in a double */
#define PLACE_LN2_LO 1.90821492927058770002e-10

/* 2^k as a double, for -1022 <= k <= 1023 */
static inline double place_pow2(int k)
{
    uint64_t bits = (uint64_t)(k + 1023) << 52;
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* e^r - 1 for |r| <= 0.35: Taylor's series, Horner's form (the 18th term is below 1e-23) */
static inline double place_expm1_near(double r)
{
    double s = 1;
    for (int n = 18; n >= 2; n--)
        s = 1 + s * r / n;
    return r * s;
}

static inline double place_expm1(double x)
{
    if (x > -0.35 && x < 0.35)
        return place_expm1_near(x);
    if (x < -40) /* e^x is below half an ulp of 1 */
        return -1;
    /* x = k ln 2 + r, |r| <= ln 2 / 2; e^x - 1 = 2^k (e^r - 1) + 2^k - 1 */
    int k = (int)(x / (PLACE_LN2_HI + PLACE_LN2_LO) + (x < 0 ? -0.5 : 0.5));
    double r = (x - k * PLACE_LN2_HI) - k * PLACE_LN2_LO;
    double p = place_pow2(k);
    return p * place_expm1_near(r) + (p - 1);
}

/* 2 atanh(z) = ln((1 + z) / (1 - z)) for |z| <= 0.18: its odd series (the 15th term is
 * below 1e-23) */
static inline double place_atanh2(double z)
{
    double z2 = z * z, s = 0;
    for (int n = 29; n >= 1; n -= 2)
        s = 1.0 / n + z2 * s;
    return 2 * z * s;
}

static inline double place_log1p(double x)
{
    if (x > -0.29 && x < 0.41) /* 1 + x = (1 + z) / (1 - z), z = x / (2 + x), |z| < 0.18 */
        return place_atanh2(x / (2 + x));
    if (!(x > -1))
        return x == -1 ? -1.0 / 0.0 : 0.0 / 0.0;
    /* 1 + x = m 2^e with m in [sqrt(1/2), sqrt(2)) */
    double y = 1 + x;
    uint64_t bits;
    memcpy(&bits, &y, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff) - 1023;
    bits = (bits & ((1ull << 52) - 1)) | (1023ull << 52); /* m in [1, 2) */
    double m;
    memcpy(&m, &bits, sizeof m);
    if (m > 1.41421356237309504880) {
        m /= 2;
        e++;
    }
    /* the rounding of 1 + x, put back: ln(y + c) = ln y + c / y to first order */
    double c = (x - (y - 1)) / y;
    return e * PLACE_LN2_HI + (place_atanh2((m - 1) / (m + 1)) + (e * PLACE_LN2_LO + c));
}

#endif
