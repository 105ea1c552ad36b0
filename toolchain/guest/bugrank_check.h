/* bugrank_check.h: the library of bugrank checkers written in C or C++, header only (its
 * Rust twin is bugrank_check.rs). A checker is the oracle of a problem where several
 * outputs can be right: bugrank runs it with three parts on its standard input (the
 * test's input, the model answer's output, the hand-in's output, each as its length in
 * bytes on a line of its own and then exactly those bytes) and it says `accept`, or
 * `reject: REASON`, the reason shown to the student as written. A checker that cannot make
 * sense of its input (the protocol broken, a model answer that is no answer) is the
 * problem's fault: it says so on stderr and exits 2, and bugrank reports a problem error.
 *
 *     #include "bugrank_check.h"
 *
 *     int main(void) {
 *         bc_parts parts = bc_read();
 *         long long expected = bc_number(parts.expected, "the model answer");
 *         bc_tokens got = bc_tokens_of(parts.actual);
 *         long long sum = bc_next_number(&got, "the sum");
 *         bc_end(&got);
 *         if (sum != expected) bc_reject("the sum is %lld where %lld is expected", sum, expected);
 *         bc_accept();
 *     }
 *
 * Built natively (cc checker.c), a checker reads the same three parts from its standard
 * input, so it can be tried on a file. Parts are NUL-terminated copies: an output with a
 * NUL byte in it is read up to that byte.
 */
#ifndef BUGRANK_CHECK_H
#define BUGRANK_CHECK_H

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The three parts a checker is given. */
typedef struct {
    char *input;
    char *expected; /* the model answer's output: what the reference wrote */
    char *actual;   /* the hand-in's output: what is judged */
} bc_parts;

/* At most this many characters of a hand-in's word are quoted in a reason. */
#define BC_QUOTED_CHARS 40

/* Ends the checker with the problem's fault (exit status 2): never held against a hand-in. */
static inline void bc_problem_error(const char *message) {
    fprintf(stderr, "checker: %s\n", message);
    exit(2);
}

/* Accepts the hand-in's output and ends the checker. */
static inline void bc_accept(void) {
    printf("accept\n");
    exit(0);
}

/* Rejects the hand-in's output with a reason (printf's format; one line: what the student
 * reads) and ends the checker. */
static inline void bc_reject(const char *format, ...) {
    char reason[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(reason, sizeof reason, format, args);
    va_end(args);
    for (char *c = reason; *c; c++)
        if (*c == '\n') *c = ' ';
    printf("reject: %s\n", reason);
    exit(0);
}

/* One `<length>\n<bytes>` part from standard input. */
static inline char *bc_part(const char *name) {
    char message[128];
    size_t length = 0;
    int digits = 0, c;
    while ((c = getchar()) != '\n') {
        if (c == EOF || !isdigit(c) || ++digits > 12) {
            snprintf(message, sizeof message, "stdin: bad length line for the %s", name);
            bc_problem_error(message);
        }
        length = length * 10 + (size_t)(c - '0');
    }
    if (digits == 0) {
        snprintf(message, sizeof message, "stdin: bad length line for the %s", name);
        bc_problem_error(message);
    }
    char *text = (char *)malloc(length + 1);
    if (!text) bc_problem_error("out of memory");
    if (fread(text, 1, length, stdin) != length) {
        snprintf(message, sizeof message, "stdin: the %s is shorter than its length %zu", name, length);
        bc_problem_error(message);
    }
    text[length] = '\0';
    return text;
}

/* Reads the three parts from standard input; a broken protocol is a bc_problem_error. */
static inline bc_parts bc_read(void) {
    bc_parts parts;
    parts.input = bc_part("input");
    parts.expected = bc_part("model answer's output");
    parts.actual = bc_part("hand-in's output");
    if (getchar() != EOF) bc_problem_error("stdin: bytes after the third part");
    return parts;
}

/* `word` (of `length` bytes) as a reason quotes it, into `out`: cut to BC_QUOTED_CHARS. */
static inline const char *bc_quoted(const char *word, size_t length, char out[BC_QUOTED_CHARS + 8]) {
    size_t shown = length < BC_QUOTED_CHARS ? length : BC_QUOTED_CHARS;
    snprintf(out, BC_QUOTED_CHARS + 8, "`%.*s%s`", (int)shown, word, length > shown ? "…" : "");
    return out;
}

/* The words of an output, read one by one. */
typedef struct {
    const char *rest;
    int read;
} bc_tokens;

static inline bc_tokens bc_tokens_of(const char *text) {
    bc_tokens tokens = {text, 0};
    return tokens;
}

/* The next word (its start, its length in *length); a bc_reject when the output ends
 * before `what`. */
static inline const char *bc_next_word(bc_tokens *tokens, const char *what, size_t *length) {
    while (*tokens->rest && isspace((unsigned char)*tokens->rest)) tokens->rest++;
    if (!*tokens->rest) bc_reject("the output stops after %d word%s, where %s comes next", tokens->read, tokens->read == 1 ? "" : "s", what);
    const char *start = tokens->rest;
    while (*tokens->rest && !isspace((unsigned char)*tokens->rest)) tokens->rest++;
    *length = (size_t)(tokens->rest - start);
    tokens->read++;
    return start;
}

/* The next word as an integer; a bc_reject when it is not one. */
static inline long long bc_next_number(bc_tokens *tokens, const char *what) {
    size_t length;
    const char *word = bc_next_word(tokens, what, &length);
    char copy[64], quoted[BC_QUOTED_CHARS + 8], *end;
    if (length >= sizeof copy) bc_reject("word %d of the output, %s, is %s: not a number", tokens->read, what, bc_quoted(word, length, quoted));
    memcpy(copy, word, length);
    copy[length] = '\0';
    long long value = strtoll(copy, &end, 10);
    if (*end || end == copy) bc_reject("word %d of the output, %s, is %s: not a number", tokens->read, what, bc_quoted(word, length, quoted));
    return value;
}

/* The rest of the output must be empty; a bc_reject names the first word too many. */
static inline void bc_end(bc_tokens *tokens) {
    while (*tokens->rest && isspace((unsigned char)*tokens->rest)) tokens->rest++;
    if (*tokens->rest) {
        const char *start = tokens->rest;
        size_t length = 0;
        while (start[length] && !isspace((unsigned char)start[length])) length++;
        char quoted[BC_QUOTED_CHARS + 8];
        bc_reject("the output goes on after the %d word%s expected, with %s", tokens->read, tokens->read == 1 ? "" : "s", bc_quoted(start, length, quoted));
    }
}

/* The model answer's whole output read as one integer; a bc_problem_error when it is not. */
static inline long long bc_number(const char *text, const char *what) {
    char *end;
    long long value = strtoll(text, &end, 10);
    while (*end && isspace((unsigned char)*end)) end++;
    if (end == text || *end) {
        char message[160];
        snprintf(message, sizeof message, "%s is not a number", what);
        bc_problem_error(message);
    }
    return value;
}

/* Whether `actual` is within `absolute` or `relative` of `expected` (Kattis's
 * float_tolerance rule: either suffices). */
static inline int bc_close(double expected, double actual, double absolute, double relative) {
    double difference = fabs(expected - actual);
    return difference <= absolute || difference <= relative * fabs(expected);
}

/* Whether two words are the same: numbers within a tolerance when either is set and both
 * are numbers, else the same text (ignoring ASCII case unless case_sensitive). */
static inline int bc_same_word(const char *w, size_t wl, const char *g, size_t gl, int case_sensitive, double absolute, double relative) {
    if (absolute > 0 || relative > 0) {
        char a[64], b[64], *end_a, *end_b;
        if (wl < sizeof a && gl < sizeof b) {
            memcpy(a, w, wl), a[wl] = '\0';
            memcpy(b, g, gl), b[gl] = '\0';
            double x = strtod(a, &end_a), y = strtod(b, &end_b);
            if (!*end_a && !*end_b && end_a != a && end_b != b) return bc_close(x, y, absolute, relative);
        }
    }
    if (wl != gl) return 0;
    for (size_t i = 0; i < wl; i++)
        if (case_sensitive ? w[i] != g[i] : tolower((unsigned char)w[i]) != tolower((unsigned char)g[i])) return 0;
    return 1;
}

/* Compares two outputs word by word, as the judges' default validator does: the same words
 * whatever the white space, case_sensitive or not, numbers within `absolute` or `relative`
 * of each other. Returns 1 when they match; else 0, with the first difference in `reason`. */
static inline int bc_compare_tokens(const char *expected, const char *actual, int case_sensitive, double absolute, double relative, char *reason, size_t size) {
    char quoted_w[BC_QUOTED_CHARS + 8], quoted_g[BC_QUOTED_CHARS + 8];
    for (int n = 1;; n++) {
        while (*expected && isspace((unsigned char)*expected)) expected++;
        while (*actual && isspace((unsigned char)*actual)) actual++;
        size_t wl = 0, gl = 0;
        while (expected[wl] && !isspace((unsigned char)expected[wl])) wl++;
        while (actual[gl] && !isspace((unsigned char)actual[gl])) gl++;
        if (!wl && !gl) return 1;
        if (!gl) {
            snprintf(reason, size, "the output stops after %d word%s, where %s comes next", n - 1, n == 2 ? "" : "s", bc_quoted(expected, wl, quoted_w));
            return 0;
        }
        if (!wl) {
            snprintf(reason, size, "the output goes on after the %d word%s expected, with %s", n - 1, n == 2 ? "" : "s", bc_quoted(actual, gl, quoted_g));
            return 0;
        }
        if (!bc_same_word(expected, wl, actual, gl, case_sensitive, absolute, relative)) {
            snprintf(reason, size, "word %d of the output is %s where %s is expected", n, bc_quoted(actual, gl, quoted_g), bc_quoted(expected, wl, quoted_w));
            return 0;
        }
        expected += wl, actual += gl;
    }
}

#endif
