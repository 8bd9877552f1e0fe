/* libplace is built with hidden visibility; the interposed entry points are the only
 * symbols it exports. */
#ifndef PLACE_EXPORT_H
#define PLACE_EXPORT_H

#define PLACE_EXPORT __attribute__((visibility("default")))

#endif
