/* libplace is compiled with -fvisibility=hidden, which hides what a file defines but
 * not what a header declares: code in another file reaches an extern variable through
 * the GOT (one load more per access, on the paths every malloc and free takes). Every
 * extern variable of libplace is declared PLACE_HIDDEN, so it is reached directly. */
#ifndef PLACE_HIDDEN_H
#define PLACE_HIDDEN_H

#define PLACE_HIDDEN __attribute__((visibility("hidden")))

#endif
