/* The memo's lifetime: a thread's table is made at its first site lookup, from the
 * kernel (with the guard up, so not from glibc: a signal handler's malloc meanwhile goes
 * to glibc, and would deadlock on the glibc lock this thread held), and goes with its
 * thread. */
#include "memo.h"

#include <pthread.h>

#include "../base/pages.h"

const uintptr_t place_memo_end_slot = 0;
__thread bool place_memos_none __attribute__((tls_model("initial-exec")));
static pthread_key_t memo_key;
static pthread_once_t memo_once = PTHREAD_ONCE_INIT;

/* pthread key destructor: a lookup after this one has no table (it unwinds). With the
 * guard up: a signal handler's lookup in between would find the table still there and
 * fill it anew, its generation and its caller's masks, just before it goes. */
static void drop_memos(void *table)
{
    uint8_t was = place_guard_enter();
    place_self.memos_gen = 0; /* a lookup tests it alone */
    place_self.caller_ra = 0;
    munmap(table, PLACE_MEMO_SETS * sizeof *place_self.memos);
    place_self.memos = NULL;
    place_memos_none = true;
    place_guard_leave(was);
}

static void make_memo_key(void)
{
    pthread_key_create(&memo_key, drop_memos);
}

struct place_memo_set *place_memos_make(void)
{
    pthread_once(&memo_once, make_memo_key);
    size_t size = PLACE_MEMO_SETS * sizeof *place_self.memos;
    if (!(place_self.memos = place_reserve(&size, size, 0)) ||
        pthread_setspecific(memo_key, place_self.memos) != 0) {
        if (place_self.memos)
            munmap(place_self.memos, size);
        place_self.memos = NULL;
        place_memos_none = true;
    }
    return place_self.memos;
}
