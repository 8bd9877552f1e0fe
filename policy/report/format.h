/* The report's two forms, pure formatters of one gathered snapshot: text for a person
 * (aligned tables), JSON for tools (docs/report.schema.json). */
#ifndef PLACE_FORMAT_H
#define PLACE_FORMAT_H

#include "gather.h"

void place_report_text(int fd, const struct place_gathered *g);
void place_report_json(int fd, const struct place_gathered *g);

#endif
