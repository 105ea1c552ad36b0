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

#ifdef __cplusplus
/* std::ios_base::sync_with_stdio(false) as GCC's libstdc++ (the judges') makes it: from
 * then on std::cin reads through a buffer of its own, filled by read(2) with what is
 * there (a dialogue's reply included: it never waits for a full buffer). libc++'s
 * sync_with_stdio does nothing, and its std::cin takes one character at a time from C's
 * stdin: reading 100,000 numbers with `cin >>` took 944 million fuel, 442 million through
 * this buffer (scanf: 88 million). As with libstdc++, C's stdio and std::cin no longer
 * share what they have read ahead once unsynchronised. The program's calls of
 * sync_with_stdio reach this function through the linker (-Wl,--wrap: see
 * toolchain/src/compat.rs). */
#include <iostream>
#include <streambuf>
#include <unistd.h>

namespace {
class BugrankStdin : public std::streambuf {
    char buffer[1 << 16];

protected:
    int_type underflow() override {
        ssize_t got = read(0, buffer, sizeof buffer);
        if (got <= 0) return traits_type::eof();
        setg(buffer, buffer, buffer + got);
        return traits_type::to_int_type(*gptr());
    }
};
BugrankStdin bugrank_stdin;
}  // namespace

extern "C" bool __real__ZNSt3__28ios_base15sync_with_stdioEb(bool sync);

extern "C" bool __wrap__ZNSt3__28ios_base15sync_with_stdioEb(bool sync) {
    bool was = __real__ZNSt3__28ios_base15sync_with_stdioEb(sync);
    if (!sync && std::cin.rdbuf() != &bugrank_stdin) std::cin.rdbuf(&bugrank_stdin);
    return was;
}
#endif
