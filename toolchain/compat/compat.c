/* The definitions compat.h declares, linked into every C and C++ program (compiled as the
 * program's own language: the code is both C and C++). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* -fstack-protector-strong's canary and its failure, which wasi-libc leaves out. A
 * function with a local array keeps the canary above its locals and checks it before it
 * returns: writing past the array (gets, scanf("%s"), an index one too far) is a crash with
 * glibc's words, as on Ubuntu, whose GCC protects every program so, and on macOS. The
 * canary is fixed (every run alike); its first byte is 0, as glibc's, so that an overflow
 * by a string's copy stops at it. */
uintptr_t __stack_chk_guard = 0x5b3e9100u;

void __stack_chk_fail(void) {
    fputs("*** stack smashing detected ***: terminated\n", stderr);
    abort();
}

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
