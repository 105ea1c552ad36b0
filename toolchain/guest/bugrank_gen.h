/* bugrank_gen.h: the generator guest library, for C and C++.
 *
 * The same library as the Rust crate `bugrank_gen` (bugrank_gen.rs beside this file): the
 * same choices give the same values in both languages. Rust's `one_of` and `frequency`
 * are bg_one_of (an index) and bg_weighted here, and its `vec_of` a bg_many loop.
 *
 * A bugrank *generator* is a WASI program that writes exactly one test input to stdout.
 * It never draws its own randomness: every decision is a call to bg_choice(max), which
 * asks the host for a value in 0..=max. The host records the sequence of choices and
 * shrinks a failing test by editing that sequence (deleting spans, lowering values toward
 * 0) and running the generator again. Once the recorded choices are used up, every
 * further choice is 0. So, whatever the choices are:
 *
 *   1. smaller values mean simpler data: 0 is always the simplest option (the number
 *      nearest 0, false, the first alternative, "stop");
 *   2. any sequence is valid: nothing here fails, overflows or loops, and all-zero
 *      choices end every collection at once;
 *   3. collections are "continue?" sequences: before each element one choice says whether
 *      there is another (0 = stop), so deleting a span of choices deletes elements.
 *
 * bg_size() is a hint in 0..=100 that grows during a run; the collections use it to bound
 * their length (QuickCheck's `sized`).
 *
 * Example: a generator of the input "N x1 ... xN\n", a short list of integers with their
 * count first, the simplest being "0\n":
 *
 *     #include <stdio.h>
 *     #include "bugrank_gen.h"
 *
 *     int main(void) {
 *         int xs[8];
 *         int n = 0;
 *         bg_many many = bg_many_new(8);
 *         while (bg_many_more(&many)) xs[n++] = bg_i32_any();
 *         printf("%d", n);
 *         for (int i = 0; i < n; i++) printf(" %d", xs[i]);
 *         printf("\n");
 *         return 0;
 *     }
 *
 * Pitfall: draw each value in its own statement. C leaves the order in which a call's
 * arguments are evaluated open, so printf("%d %d", bg_bool(), bg_bool()) may draw them in
 * either order (clang: left to right; gcc: right to left), and a native build would not
 * replay what bugrank's build makes.
 *
 * Built by bugrank (`bugrank check-problem`, or a problem uploaded to the service), a
 * generator.c in a problem directory gets this header; a copy in the directory itself is
 * used instead, if there is one. Built natively (`cc generator.c`), the host is replaced
 * by a local source of choices, driven by environment variables, to try a generator out:
 *
 *   BUGRANK_SEED     seed of the built-in generator of numbers (default 1)
 *   BUGRANK_SIZE     the value of bg_size() (default 30, clamped to 0..=100)
 *   BUGRANK_ZERO     if 1, every choice is 0 (the simplest test)
 *   BUGRANK_CHOICES  comma-separated choices to replay, then zeros (as the host does)
 *   BUGRANK_TRACE    if 1, print every `choice(max) = value` to stderr
 */
#ifndef BUGRANK_GEN_H
#define BUGRANK_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------- */
/* The host                                                                              */
/* ------------------------------------------------------------------------------------- */

#if defined(__wasm__)

__attribute__((import_module("bugrank"), import_name("choice"))) int64_t bg_host_choice_(int64_t max);
__attribute__((import_module("bugrank"), import_name("size"))) int32_t bg_host_size_(void);

static inline uint64_t bg_host_choice(uint64_t max) { return (uint64_t)bg_host_choice_((int64_t)max); }
static inline int32_t bg_host_size(void) { return bg_host_size_(); }

#else /* a local stand-in for the host, driven by environment variables */

#include <stdlib.h>

static struct {
    int ready, replay, trace;
    int32_t size;
    uint64_t state;         /* splitmix64 state, when not replaying */
    const char *next;       /* the rest of BUGRANK_CHOICES, when replaying */
} bg_local_;

/* An environment variable, NULL when unset or only white space (as the Rust crate). */
static inline const char *bg_env_(const char *name) {
    const char *value = getenv(name), *p;
    if (!value) return NULL;
    for (p = value; *p; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') return value;
    return NULL;
}

/* Parses [start, end) as Rust's `str::trim().parse::<u64>()` does: optional white space
 * around an optional '+' and decimal digits, no overflow. Returns 1 with *out set, or 0. */
static inline int bg_parse_u64_(const char *start, const char *end, uint64_t *out) {
    uint64_t v = 0;
    while (start < end && (*start == ' ' || *start == '\t' || *start == '\n' || *start == '\r')) start++;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r')) end--;
    if (start < end && *start == '+') start++;
    if (start == end) return 0;
    for (; start < end; start++) {
        if (*start < '0' || *start > '9' || v > (UINT64_MAX - (uint64_t)(*start - '0')) / 10) return 0;
        v = v * 10 + (uint64_t)(*start - '0');
    }
    *out = v;
    return 1;
}

static inline void bg_local_init_(void) {
    const char *size = bg_env_("BUGRANK_SIZE"), *seed = bg_env_("BUGRANK_SEED");
    const char *zero = bg_env_("BUGRANK_ZERO"), *choices = bg_env_("BUGRANK_CHOICES");
    const char *trace = bg_env_("BUGRANK_TRACE");
    uint64_t s = 30;
    /* The size is a signed number in Rust: a negative one clamps to 0, a bad one is 30. */
    if (size) {
        const char *p = size;
        uint64_t magnitude;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '-') s = bg_parse_u64_(p + 1, size + strlen(size), &magnitude) ? 0 : 30;
        else if (!bg_parse_u64_(size, size + strlen(size), &s)) s = 30;
    }
    bg_local_.size = (int32_t)(s > 100 ? 100 : s);
    bg_local_.trace = trace && strcmp(trace, "1") == 0;
    bg_local_.replay = (zero && strcmp(zero, "1") == 0) || choices;
    bg_local_.next = (zero && strcmp(zero, "1") == 0) ? "" : choices;
    if (!seed || !bg_parse_u64_(seed, seed + strlen(seed), &bg_local_.state)) bg_local_.state = 1;
    bg_local_.ready = 1;
}

static inline uint64_t bg_host_choice(uint64_t max) {
    uint64_t value = 0;
    if (!bg_local_.ready) bg_local_init_();
    if (bg_local_.replay) {
        /* The next entry that parses (the Rust crate drops the others), then zeros. */
        const char *p = bg_local_.next;
        while (p && *p) {
            const char *end = strchr(p, ',');
            int parsed;
            if (!end) end = p + strlen(p);
            parsed = bg_parse_u64_(p, end, &value);
            p = *end ? end + 1 : end;
            if (parsed) break;
        }
        bg_local_.next = p;
    } else {
        uint64_t z = (bg_local_.state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        value = max == UINT64_MAX ? z : z % (max + 1);
    }
    if (bg_local_.trace) fprintf(stderr, "choice(%llu) = %llu\n", (unsigned long long)max, (unsigned long long)value);
    return value;
}

static inline int32_t bg_host_size(void) {
    if (!bg_local_.ready) bg_local_init_();
    return bg_local_.size;
}

#endif

/* ------------------------------------------------------------------------------------- */
/* Primitive choices                                                                     */
/* ------------------------------------------------------------------------------------- */

/* A value in 0..=max; 0 is the simplest. bg_choice(0) has one answer and is not recorded:
 * it is 0 without asking the host. */
static inline uint64_t bg_choice(uint64_t max) {
    uint64_t v;
    if (max == 0) return 0;
    v = bg_host_choice(max);
    return v <= max ? v : v % (max + 1);
}

/* The size hint, 0..=100: it grows during a run and bounds the length of collections. */
static inline uint32_t bg_size(void) {
    int32_t s = bg_host_size();
    return (uint32_t)(s < 0 ? 0 : s > 100 ? 100 : s);
}

/* 0 (false, the simplest) or 1 (true). */
static inline int bg_bool(void) { return bg_choice(1) == 1; }

/* An integer in lo..=hi (the bounds are swapped if lo > hi). Choice 0 gives the value
 * nearest 0 in the range; larger choices move away from it, alternating sides while both
 * sides have room: 0, 1, -1, 2, -2, ..., so shrinking moves toward 0. */
static inline int64_t bg_int_in(int64_t lo, int64_t hi) {
    uint64_t k, pos, neg, m;
    if (lo > hi) {
        int64_t t = lo;
        lo = hi;
        hi = t;
    }
    k = bg_choice((uint64_t)hi - (uint64_t)lo);
    if (lo >= 0) return (int64_t)((uint64_t)lo + k);
    if (hi <= 0) return (int64_t)((uint64_t)hi - k);
    pos = (uint64_t)hi;
    neg = 0 - (uint64_t)lo;
    m = pos < neg ? pos : neg;
    if (k <= 2 * m) return k % 2 == 1 ? (int64_t)((k + 1) / 2) : -(int64_t)(k / 2);
    return pos > neg ? (int64_t)(k - m) : (int64_t)(0 - (k - m));
}

/* An integer in -10..=10: 0, 1, -1, 2, -2, ... in order of simplicity. */
static inline int32_t bg_small_int(void) { return (int32_t)bg_int_in(-10, 10); }

/* The 32-bit corner cases: the extremes and their neighbours. */
static const int32_t BG_I32_CORNERS[6] = {INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, INT32_MAX - 2, INT32_MIN + 2};

/* The index of one of the n weights, chosen with probability proportional to its weight.
 * Index 0 is the simplest. A zero weight is never chosen, unless all are 0 (then 0). */
static inline size_t bg_weighted(const uint64_t *weights, size_t n) {
    uint64_t total = 0, k;
    size_t i;
    for (i = 0; i < n; i++) total = weights[i] > UINT64_MAX - total ? UINT64_MAX : total + weights[i];
    if (total == 0) return 0;
    k = bg_choice(total - 1);
    for (i = 0; i < n; i++) {
        if (k < weights[i]) return i;
        k -= weights[i];
    }
    return n - 1;
}

/* The index of one of n alternatives (0, the first, is the simplest), each equally
 * likely; 0 when n is 0. BG_ONE_OF(array) is the element itself, for an array (not a
 * pointer) of at least one element: BG_ONE_OF(BG_I32_CORNERS). */
static inline size_t bg_one_of(size_t n) { return n == 0 ? 0 : (size_t)bg_choice(n - 1); }
#define BG_ONE_OF(array) ((array)[bg_one_of(sizeof(array) / sizeof((array)[0]))])

/* Any int32_t, with corner cases. The first choice picks the kind: mostly a
 * bg_small_int() (kind 0, the simplest), sometimes one of BG_I32_CORNERS, sometimes any
 * int32_t (shrinking toward 0). */
static inline int32_t bg_i32_any(void) {
    static const uint64_t kinds[3] = {6, 2, 1};
    switch (bg_weighted(kinds, 3)) {
    case 0: return bg_small_int();
    case 1: return BG_ONE_OF(BG_I32_CORNERS);
    default: return (int32_t)bg_int_in(INT32_MIN, INT32_MAX);
    }
}

/* ------------------------------------------------------------------------------------- */
/* Collections                                                                           */
/* ------------------------------------------------------------------------------------- */

/* n * size / 100 rounded down, without overflow whatever n. */
static inline size_t bg_in_proportion(size_t n) {
    size_t size = bg_size();
    return n / 100 * size + n % 100 * size / 100;
}

/* The largest length a collection may have at the current size:
 * min(max_len, max(1 + size/4, max_len * size/100)): 1 + size/4 for a maximum up to 26, and
 * a larger maximum is reached at the largest size (100) all the same. */
static inline size_t bg_length_cap(size_t max_len) {
    size_t cap = 1 + bg_size() / 4, scaled = bg_in_proportion(max_len);
    if (scaled > cap) cap = scaled;
    return max_len < cap ? max_len : cap;
}

/* The largest length a *sized* collection may have at the current size: max_len at the
 * largest size (100), in proportion below it, at least 1 (0 when max_len is 0). For
 * collections that must be able to reach their maximum: 40 lines, a 100-letter word. */
static inline size_t bg_sized_cap(size_t max_len) {
    if (max_len == 0) return 0;
    size_t cap = bg_in_proportion(max_len);
    return cap < 1 ? 1 : cap;
}

/* One "continue?" choice: 0 means stop (the simplest), anything else one more element.
 * Its range widens with the size (0..=1 at size 0, 0..=11 at size 100). */
static inline int bg_more(void) { return bg_choice(1 + bg_size() / 10) != 0; }

/* A loop guard for a collection built element by element:
 *
 *     bg_many many = bg_many_new(6);
 *     while (bg_many_more(&many)) { draw one element }
 *
 * bg_many_more draws a bg_more() choice, and is 0 without drawing anything once
 * bg_length_cap(max_len) elements have been accepted; many.count counts them. */
typedef struct {
    size_t cap, count;
    uint64_t range; /* each "continue?" choice is in 0..=range */
} bg_many;

static inline bg_many bg_many_new(size_t max_len) {
    bg_many many;
    many.cap = bg_length_cap(max_len);
    many.count = 0;
    many.range = 1 + (uint64_t)bg_size() / 10;
    return many;
}

/* A collection that can reach max_len elements: at most bg_sized_cap(max_len), each
 * "continue?" choice in 0..=max(1, cap / 2), so about half the cap long on average, and the
 * whole cap now and then (one run in seven at a cap of 100). */
static inline bg_many bg_many_sized(size_t max_len) {
    bg_many many;
    many.cap = bg_sized_cap(max_len);
    many.count = 0;
    many.range = many.cap / 2 < 1 ? 1 : many.cap / 2;
    return many;
}

static inline int bg_many_more(bg_many *many) {
    if (many->count >= many->cap || bg_choice(many->range) == 0) return 0;
    many->count++;
    return 1;
}

/* A string of characters of `alphabet` (its first character is the simplest), at most
 * bg_length_cap(max_len) long, written into `out`, which must hold max_len + 1 bytes.
 * Returns its length. An empty alphabet gives the empty string. (Characters are bytes:
 * give an ASCII alphabet.) */
static inline size_t bg_chars_of(bg_many many, const char *alphabet, char *out);

static inline size_t bg_string_of(const char *alphabet, size_t max_len, char *out) {
    return bg_chars_of(bg_many_new(max_len), alphabet, out);
}

/* bg_string_of that can reach max_len characters (bg_many_sized). */
static inline size_t bg_sized_string_of(const char *alphabet, size_t max_len, char *out) {
    return bg_chars_of(bg_many_sized(max_len), alphabet, out);
}

/* Characters of `alphabet` drawn while bg_many_more(&many) says so, into `out` (which
 * must hold many.cap + 1 bytes); returns their count. */
static inline size_t bg_chars_of(bg_many many, const char *alphabet, char *out) {
    size_t n = strlen(alphabet), len = 0;
    if (n > 0)
        while (bg_many_more(&many)) out[len++] = alphabet[bg_one_of(n)];
    out[len] = '\0';
    return len;
}

/* ------------------------------------------------------------------------------------- */
/* Output                                                                                */
/* ------------------------------------------------------------------------------------- */

/* Writes the test input to stdout exactly as given (add the "\n" yourself if the input
 * format wants one) and flushes. printf does as well; call fflush(stdout) at the end. */
static inline void bg_emit(const char *text) {
    fputs(text, stdout);
    fflush(stdout);
}

#ifdef __cplusplus
}
#endif

#endif /* BUGRANK_GEN_H */
