/* cmrs_touch_pages and the helper that runs it beside other work
 * (base/thread.h): every 4 KiB page of each region written, only zeros,
 * nothing outside the regions (guard bytes on both sides), for arrays of
 * one byte to several pages, split between threads (CMRS_HOST_THREADS and
 * CMRS_PARALLEL_GRAIN set to make small arrays take the threaded path)
 * and not; the helper's join is idempotent and a zeroed job joins as
 * nothing. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "base/thread.h"

#define GUARD 64

/* buf: GUARD bytes of 0xAB, `bytes` of 0xCD, GUARD of 0xAB. */
static unsigned char *filled(size_t bytes)
{
    unsigned char *buf = malloc(bytes + 2 * GUARD);
    memset(buf, 0xAB, bytes + 2 * GUARD);
    memset(buf + GUARD, 0xCD, bytes);
    return buf;
}

/* Whether every 4 KiB window of the region holds a zero and every byte is
 * 0 or untouched, the guards intact. */
static int touched_right(const unsigned char *buf, size_t bytes)
{
    for (size_t i = 0; i < GUARD; ++i)
        if (buf[i] != 0xAB || buf[GUARD + bytes + i] != 0xAB) return 0;
    const unsigned char *p = buf + GUARD;
    for (size_t i = 0; i < bytes; ++i)
        if (p[i] != 0 && p[i] != 0xCD) return 0;
    for (size_t w = 0; w + 4096 <= bytes; w += 4096) {
        int zero = 0;
        for (size_t i = w; i < w + 4096 && !zero; ++i) zero = p[i] == 0;
        if (!zero) return 0;
    }
    return bytes == 0 || p[0] == 0;
}

static void sizes(const char *how)
{
    static const size_t n[] = {0, 1, 4095, 4096, 4097, 3 * 4096 + 17,
                               1 << 20, (1 << 20) + 4099};
    for (size_t k = 0; k < sizeof n / sizeof *n; ++k) {
        unsigned char *buf = filled(n[k]);
        cmrs_touch_pages(buf + GUARD, n[k]);
        CHECK(touched_right(buf, n[k]), "%s: %zu bytes touched wrongly", how,
              n[k]);
        free(buf);
    }
}

static void helper(void)
{
    unsigned char *a = filled(5 * 4096 + 3), *b = filled(1 << 20);
    cmrs_touch t;
    memset(&t, 0, sizeof t);
    cmrs_touch_join(&t); /* zeroed: nothing */
    t.r[0].p = a + GUARD;
    t.r[0].bytes = 5 * 4096 + 3;
    t.r[1].p = b + GUARD;
    t.r[1].bytes = 1 << 20;
    t.r[2].p = NULL; /* an empty region */
    t.n = 3;
    cmrs_touch_start(&t);
    cmrs_touch_join(&t);
    cmrs_touch_join(&t); /* again: nothing */
    CHECK(touched_right(a, 5 * 4096 + 3) && touched_right(b, 1 << 20),
          "the helper's regions touched wrongly");
    free(a), free(b);
}

int main(void)
{
    sizes("default");
    setenv("CMRS_HOST_THREADS", "7", 1);
    setenv("CMRS_PARALLEL_GRAIN", "1", 1);
    sizes("7 threads");
    helper();
    return check_summary();
}
