/* Keeping the n largest of a stream, largest first: what the report's tables of sites
 * do, over tables far larger than what they list. */
#ifndef PLACE_TOP_H
#define PLACE_TOP_H

/* Puts item among out[0 .. *got), kept in decreasing order of their member `key` and at
 * most n long: the smaller ones move down one, the last falls off a full list, and an
 * item smaller than all of a full list is dropped. */
#define PLACE_TOP_INSERT(out, n, got, item, key)                                                   \
    do {                                                                                           \
        unsigned at_ = *(got) < (n) ? (*(got))++ : (n);                                            \
        while (at_ > 0 && (out)[at_ - 1].key < (item).key) {                                       \
            if (at_ < (n))                                                                         \
                (out)[at_] = (out)[at_ - 1];                                                       \
            at_--;                                                                                 \
        }                                                                                          \
        if (at_ < (n))                                                                             \
            (out)[at_] = (item);                                                                   \
    } while (0)

#endif
