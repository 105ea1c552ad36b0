/* The test generator of {{TITLE}}: `init C`, then commands that are always valid, every
 * decision a choice (bugrank_gen.h), 0 always the simplest, so that bugrank can shrink a
 * failing sequence to the few calls that matter. All-zero choices give `init 1` alone.
 * A command is `push` (the simplest), `pop`, `size` or `init` again, weighted 6:4:2:1. */
#include <stdio.h>
#include "bugrank_gen.h"

int main(void) {
    printf("init %d\n", (int)(1 + bg_choice(4)));
    bg_many many = bg_many_new(30);
    static const uint64_t weights[] = {6, 4, 2, 1};
    while (bg_many_more(&many)) {
        switch (bg_weighted(weights, 4)) {
            case 0: {
                int value = (int)bg_int_in(0, 1000);
                printf("push %d\n", value);
                break;
            }
            case 1: printf("pop\n"); break;
            case 2: printf("size\n"); break;
            default: printf("init %d\n", (int)(1 + bg_choice(4))); break;
        }
    }
    return 0;
}
