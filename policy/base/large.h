/* Where libplace's large zeroed arrays lie: in .lbss, which the linker lays out after
 * .bss. A process writes a few words of most of libplace's small variables and little or
 * nothing of most arrays of a page or more (the policy text's buffer, the report's
 * tables, the thread slots past its threads'); mixed together, each small variable
 * beside an array took a page of its own. Apart, they share a few. Only for arrays that
 * start zeroed: .lbss holds no data. */
#ifndef PLACE_LARGE_H
#define PLACE_LARGE_H

#define PLACE_LARGE __attribute__((section(".lbss")))

#endif
