/* The report, written by one walk of the gathered snapshot in either form: text for a
 * person (aligned tables, each line prefixed "libplace: "), JSON for tools
 * (docs/report.schema.json). The walk visits each thing once and says it to the writer
 * (report/emit.h), which keeps what the form shows; a pure reader of the snapshot. */
#ifndef PLACE_WALK_H
#define PLACE_WALK_H

#include "gather.h"

void place_report_walk(int fd, enum place_report_format form, const struct place_gathered *g);

#endif
