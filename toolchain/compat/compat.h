/* Included before every C and C++ hand-in (clang's -include): what C on Linux has and
 * WASI's C library leaves out, so that students' programs build and run as they do
 * natively. bugrank's own file: students never see it, nor can a hand-in replace it. */
#ifndef BUGRANK_COMPAT_H
#define BUGRANK_COMPAT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* gets: gone from C11 and from WASI's library, still in many courses' code. It reads one
 * line from stdin into s, without its line break, with no bound on the line's length: a
 * line longer than the array overwrites the program's own memory (inside the sandbox), as
 * natively. Every use gets this warning, kept beside the program's results. */
char *bugrank_gets(char *s)
    __attribute__((deprecated("gets has no bound on the length of the line it reads; use fgets(s, size, stdin)")));
#define gets(s) bugrank_gets(s)

/* alarm: no signal ever arrives in the sandbox (its time limit ends a run), so alarm sets
 * nothing and returns 0, as when no alarm was pending. signal() and raise() are WASI's
 * emulation (-D_WASI_EMULATED_SIGNAL): a handler runs on raise() only. */
unsigned alarm(unsigned seconds);

#ifdef __cplusplus
}
#endif

#endif
