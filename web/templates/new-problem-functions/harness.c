/* harness.c: reads one command a line, calls the hand-in's functions (interface.h) and
 * writes one line for each with bh_printf (bugrank_harness.h): only those lines are judged,
 * not what the hand-in prints itself. bugrank builds every program as this file plus the
 * hand-in's, with BUGRANK_HARNESS defined. (bugrank_harness.h beside it is a copy for
 * native builds: `cc harness.c reference.c`; bugrank uses its own.) */
#include <stdio.h>
#include <string.h>
#include "bugrank_harness.h"
#include "interface.h"

int main(void) {
    char line[100];
    int n;
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "init %d", &n) == 1) {
            stack_init(n);
            bh_printf("ok\n");
        } else if (sscanf(line, "push %d", &n) == 1) {
            bh_printf("%d\n", stack_push(n));
        } else if (strncmp(line, "pop", 3) == 0) {
            bh_printf("%d\n", stack_pop());
        } else if (strncmp(line, "size", 4) == 0) {
            bh_printf("%d\n", stack_size());
        } else {
            bh_printf("? %s", line);
        }
    }
    return 0;
}
