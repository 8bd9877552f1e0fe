/* base/fmath.h against libm's expm1 and log1p, over the arguments libplace passes and
 * past them: each within a few units in the last place (a relative error under 1e-15). */
#include <math.h>

#include "../../policy/base/fmath.h"
#include "check.h"

static int close_to(double ours, double theirs)
{
    if (ours == theirs)
        return 1;
    return fabs(ours - theirs) <= 1e-15 * fabs(theirs);
}

int main(void)
{
    unsigned bad = 0;
    /* expm1: the profile's -size / rate, from tiny to the clamp, and a few positive */
    for (double x = -800; x < 700; x += 0.0137) {
        if (!close_to(place_expm1(x), expm1(x)) && bad++ < 5)
            fprintf(stderr, "expm1(%.17g): %.17g, libm %.17g\n", x, place_expm1(x), expm1(x));
    }
    for (double x = 1e-300; x < 1; x *= 1.37) {
        if ((!close_to(place_expm1(-x), expm1(-x)) || !close_to(place_expm1(x), expm1(x))) &&
            bad++ < 5)
            fprintf(stderr, "expm1(+-%.17g): %.17g %.17g, libm %.17g %.17g\n", x,
                    place_expm1(-x), place_expm1(x), expm1(-x), expm1(x));
    }
    /* log1p: the interval's -u, u in [0, 1) (53-bit uniforms), and the rest of its range */
    for (double u = 0; u < 1; u += 1.0 / 65536 + 1e-9) {
        if (!close_to(place_log1p(-u), log1p(-u)) && bad++ < 5)
            fprintf(stderr, "log1p(%.17g): %.17g, libm %.17g\n", -u, place_log1p(-u), log1p(-u));
    }
    for (double x = 1e-300; x < 1e300; x *= 1.37) {
        if ((!close_to(place_log1p(x), log1p(x)) ||
             (x < 1 && !close_to(place_log1p(-x), log1p(-x)))) &&
            bad++ < 5)
            fprintf(stderr, "log1p(+-%.17g): %.17g %.17g, libm %.17g %.17g\n", x, place_log1p(x),
                    place_log1p(-x), log1p(x), log1p(-x));
    }
    double u = 1 - 1.0 / 9007199254740992.0; /* the largest uniform */
    CHECK(close_to(place_log1p(-u), log1p(-u)));
    CHECK(place_log1p(-1) == -INFINITY);
    CHECK(isnan(place_log1p(-2)));
    CHECK(place_expm1(-1000) == -1);
    CHECK(place_expm1(0) == 0 && place_log1p(0) == 0);
    CHECK(bad == 0);
    return CHECK_DONE();
}
