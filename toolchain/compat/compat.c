/* The definitions compat.h declares, linked into every C and C++ program (compiled as the
 * program's own language: the code is both C and C++). */
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

char *bugrank_gets(char *s) {
    char *end = s;
    int c;
    while ((c = getchar()) != EOF && c != '\n') {
        *end++ = (char)c;
    }
    if (c == EOF && end == s) {
        return NULL;
    }
    *end = '\0';
    return s;
}

unsigned alarm(unsigned seconds) {
    (void)seconds;
    return 0;
}

#ifdef __cplusplus
}
#endif
