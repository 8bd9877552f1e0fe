/* The memo's lifetime: a thread's table is made at its first site lookup, from the
 * kernel (with the guard up, so not from glibc: a signal handler's malloc meanwhile goes
 * to glibc, and would deadlock on the glibc lock this thread held), and goes with its
 * thread. */
#include "memo.h"

#include <pthread.h>

#include "../base/pages.h"

__thread struct place_memo_set *place_memos __attribute__((tls_model("initial-exec")));
__thread uint64_t place_memos_tag __attribute__((tls_model("initial-exec")));
__thread bool place_memos_none __attribute__((tls_model("initial-exec")));
static pthread_key_t memo_key;
static pthread_once_t memo_once = PTHREAD_ONCE_INIT;

/* pthread key destructor: a lookup after this one has no table (it unwinds) */
static void drop_memos(void *table)
{
    munmap(table, PLACE_MEMO_SETS * sizeof *place_memos);
    place_memos = NULL;
    place_memos_none = true;
}

static void make_memo_key(void)
{
    pthread_key_create(&memo_key, drop_memos);
}

struct place_memo_set *place_memos_make(void)
{
    pthread_once(&memo_once, make_memo_key);
    size_t size = PLACE_MEMO_SETS * sizeof *place_memos;
    if (!(place_memos = place_reserve(&size, size, 0)) ||
        pthread_setspecific(memo_key, place_memos) != 0) {
        if (place_memos)
            munmap(place_memos, size);
        place_memos = NULL;
        place_memos_none = true;
    }
    return place_memos;
}
