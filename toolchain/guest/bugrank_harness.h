/* bugrank_harness.h: what a problem's C or C++ harness writes its results with.
 *
 * In a function-level assignment the students hand in functions, not programs: the
 * problem's harness (harness.c, with the functions' declarations in interface.h) is the
 * program's main. It reads the test input (typically one command a line), calls the
 * student's functions, and writes what they returned with bh_printf. bugrank builds every
 * program, the reference included, as the harness plus the one file that defines the
 * functions, with the same flags and in the same sandbox.
 *
 * What bh_printf writes is the program's output, the one judged: a stream of its own,
 * which the student's code does not write to. A student's printf (a debugging line, a
 * prompt) goes to stdout as usual and is not judged, so it cannot make a right answer
 * wrong nor a wrong one right. The students' files are compiled with BUGRANK_HARNESS
 * defined: a main kept for their own tests can be left out with #ifndef BUGRANK_HARNESS.
 *
 * Example: a harness of a counter whose interface.h declares `void counter_add(int n);`
 * and `int counter_total(void);`, on input lines `add N` and `total`:
 *
 *     #include <stdio.h>
 *     #include <string.h>
 *     #include "bugrank_harness.h"
 *     #include "interface.h"
 *
 *     int main(void) {
 *         char line[100];
 *         int n;
 *         while (fgets(line, sizeof line, stdin)) {
 *             if (sscanf(line, "add %d", &n) == 1) {
 *                 counter_add(n);
 *                 bh_printf("ok\n");
 *             } else if (strncmp(line, "total", 5) == 0) {
 *                 bh_printf("%d\n", counter_total());
 *             }
 *         }
 *         return 0;
 *     }
 *
 * Write one output line per input line: bug lists then show a failing test as the calls
 * in order, each beside what the reference and the hand-in gave.
 *
 * Built natively (`cc harness.c answer.c`), bh_printf writes to stdout, mixed with
 * whatever the student's code prints, to try a harness out.
 */
#ifndef BUGRANK_HARNESS_H
#define BUGRANK_HARNESS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__wasm__)
__attribute__((import_module("bugrank"), import_name("output"))) int32_t bh_host_output_(const void *data, size_t len);
#endif

/* Writes `len` bytes of `data` to the judged output. */
static inline void bh_write(const void *data, size_t len) {
#if defined(__wasm__)
    (void)bh_host_output_(data, len);
#else
    fwrite(data, 1, len, stdout);
    fflush(stdout);
#endif
}

/* printf to the judged output. */
static inline int bh_printf(const char *format, ...) {
    char small[512];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(small, sizeof small, format, args);
    va_end(args);
    if (n < 0) {
        return n;
    }
    if ((size_t)n < sizeof small) {
        bh_write(small, (size_t)n);
        return n;
    }
    char *large = (char *)malloc((size_t)n + 1);
    if (large == NULL) {
        return -1;
    }
    va_start(args, format);
    vsnprintf(large, (size_t)n + 1, format, args);
    va_end(args);
    bh_write(large, (size_t)n);
    free(large);
    return n;
}

#ifdef __cplusplus
}
#endif

#endif /* BUGRANK_HARNESS_H */
