/* The test generator of {{TITLE}}: one input per run, every decision a choice
 * (bugrank_gen.h), 0 always the simplest, so that bugrank can shrink a failing input.
 * All-zero choices give the simplest input: an empty line. */
#include <stdio.h>
#include "bugrank_gen.h"

int main(void) {
    bg_many many = bg_many_new(8);
    int first = 1;
    while (bg_many_more(&many)) {
        printf(first ? "%d" : " %d", (int)bg_i32_any());
        first = 0;
    }
    printf("\n");
    return 0;
}
