#include "fold.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../base/glibc.h"
#include "../base/out.h"
#include "../base/pages.h"

enum { BUFFER = PLACE_FOLD_BUFFER };

static int buffer = -1;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Its descriptor goes high, like every descriptor libplace keeps: the program's open()
 * calls get the numbers they would without libplace. */
static void make_buffer(void)
{
    int fd = memfd_create("libplace-fold", MFD_CLOEXEC);
    if (fd < 0)
        return;
    if (ftruncate(fd, BUFFER) != 0) {
        close(fd);
        return;
    }
    buffer = place_fd_move_high(fd, true);
}

static size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

void *place_fold_alloc(size_t size, size_t align)
{
    pthread_once(&once, make_buffer);
    size_t page = page_size();
    if (buffer < 0 || align > page)
        return NULL;
    /* the pointer at the header's end, rounded up to the alignment: within the first
     * page, which stays private (it holds the header) */
    size_t head = align > 2 * PLACE_GLIBC_WORD ? align : 2 * PLACE_GLIBC_WORD;
    if (size > SIZE_MAX - head - page)
        return NULL;
    size_t total = (head + size + page - 1) & ~(page - 1);
    char *base = place_reserve(&total, total, MAP_NORESERVE);
    if (!base)
        return NULL;
    for (size_t at = page; at < total; at += BUFFER) {
        size_t len = total - at < BUFFER ? total - at : BUFFER;
        if (mmap(base + at, len, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_FIXED | MAP_POPULATE, buffer, 0) ==
            MAP_FAILED) {
            munmap(base, total);
            return NULL;
        }
    }
    place_glibc_mmapped_header(base + head, base, total);
    return base + head;
}

void place_fold_free(void *p)
{
    size_t len;
    void *base = place_glibc_mmapped_span(p, &len);
    munmap(base, len);
}
