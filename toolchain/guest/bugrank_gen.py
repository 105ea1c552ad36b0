"""bugrank_gen: the generator guest library, for Python generators.

The same functions as the Rust crate `bugrank_gen` and the C header `bugrank_gen.h`,
giving the same values for the same choices (bugrank's tests check it across the three).

A bugrank *generator* writes exactly one test input to stdout. It never draws its own
randomness: every decision is a call of `choice(max)`, answered by the host with a value
in 0..=max. The host records the sequence of choices and shrinks a failing test by editing
it (deleting spans, lowering values toward 0) and replaying the generator; once the
recorded choices are used up, every further choice is 0. So:

1. smaller values mean simpler data: 0 is always the simplest option;
2. any sequence of choices is valid: nothing here raises or loops;
3. collections are "continue?" sequences: before each element one choice says whether
   there is another (0 = stop), so deleting a span of choices deletes elements.

`size()` is a hint in 0..=100 that grows during a run; collections are bounded by it.

Inside bugrank the choices come from the host (the interpreter's built-in module
`_bugrank_gen`; bugrank's own copy of this file is the one a generator imports). Run with
plain `python3`, a local source stands in, driven by environment variables:

    BUGRANK_SEED     seed of the built-in PRNG (default 1)
    BUGRANK_SIZE     value of size() (default 30, clamped to 0..=100)
    BUGRANK_ZERO     if 1, every choice is 0 (the simplest test)
    BUGRANK_CHOICES  comma-separated choices to replay, then zeros (like the host)
    BUGRANK_TRACE    if 1, print every `choice(max) = value` to stderr

Example:

    import bugrank_gen as g
    xs = g.vec_of(5, g.small_int)
    g.emit(" ".join(map(str, xs)) + "\\n")
"""

import os
import sys

U64 = (1 << 64) - 1

try:
    import _bugrank_gen as _host
except ImportError:  # plain python3: the local stand-in

    def _env(name):
        """The variable's value, unless unset or blank (not trimmed: as the Rust crate)."""
        value = os.environ.get(name)
        return value if value is not None and value.strip() else None

    def _parse(text, lo, hi):
        """`text` (trimmed) as an integer in lo..=hi, read as Rust's `parse` reads it:
        an optional sign, ASCII digits only; None otherwise."""
        text = text.strip()
        if lo >= 0 and text.startswith("-"):
            return None
        digits = text[1:] if text[:1] in ("+", "-") else text
        if not digits or not all("0" <= c <= "9" for c in digits):
            return None
        value = int(text)
        return value if lo <= value <= hi else None

    class _Local:
        def __init__(self):
            size = _parse(_env("BUGRANK_SIZE") or "", -(1 << 63), (1 << 63) - 1)
            self._size = 30 if size is None else max(0, min(100, size))
            self._trace = _env("BUGRANK_TRACE") == "1"
            self._replay = None
            if _env("BUGRANK_ZERO") == "1":
                self._replay = []
            elif _env("BUGRANK_CHOICES"):
                values = (_parse(v, 0, U64) for v in _env("BUGRANK_CHOICES").split(","))
                self._replay = [v for v in values if v is not None]
            seed = _parse(_env("BUGRANK_SEED") or "", 0, U64)
            self._state = 1 if seed is None else seed
            self._position = 0

        def _splitmix64(self):
            self._state = (self._state + 0x9E3779B97F4A7C15) & U64
            z = self._state
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & U64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & U64
            return z ^ (z >> 31)

        def choice(self, maximum):
            if self._replay is not None:
                value = self._replay[self._position] if self._position < len(self._replay) else 0
                self._position += 1
            else:
                x = self._splitmix64()
                value = x if maximum == U64 else x % (maximum + 1)
            if self._trace:
                print(f"choice({maximum}) = {value}", file=sys.stderr)
            return value

        def size(self):
            return self._size

    _host = _Local()


def choice(maximum):
    """A value in 0..=maximum (an integer below 2**64); 0 is the simplest. `choice(0)` is
    0 without asking the host (it is not recorded)."""
    if maximum == 0:
        return 0
    value = _host.choice(maximum)
    return value if value <= maximum else value % (maximum + 1)


def size():
    """The size hint, clamped to 0..=100."""
    return max(0, min(100, _host.size()))


def bool_():
    """False (simplest) or True. (`bool` is Python's own name: this one has a `_`.)"""
    return choice(1) == 1


def int_in(lo, hi):
    """An integer in lo..=hi (swapped if lo > hi): choice 0 is the value nearest 0, larger
    choices move away from it, alternating sides while both have room: 0, 1, -1, 2, ..."""
    if lo > hi:
        lo, hi = hi, lo
    k = choice(hi - lo)
    if lo >= 0:
        return lo + k
    if hi <= 0:
        return hi - k
    pos, neg = hi, -lo
    m = min(pos, neg)
    if k <= 2 * m:
        return (k + 1) // 2 if k % 2 == 1 else -(k // 2)
    return k - m if pos > neg else -(k - m)


def small_int():
    """An integer in -10..=10: 0, 1, -1, 2, -2, ... in order of simplicity."""
    return int_in(-10, 10)


I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1

#: The 32-bit corner cases: the extremes and their neighbours.
I32_CORNERS = (I32_MAX, I32_MIN, I32_MAX - 1, I32_MIN + 1, I32_MAX - 2, I32_MIN + 2)


def i32_any():
    """Any 32-bit integer, with corner cases: mostly a small_int (the simplest branch),
    sometimes one of I32_CORNERS, sometimes any (shrinking toward 0)."""
    branch = weighted([6, 2, 1])
    if branch == 0:
        return small_int()
    if branch == 1:
        return one_of(I32_CORNERS)
    return int_in(I32_MIN, I32_MAX)


def weighted(weights):
    """The index of one of `weights` (non-negative integers), with probability
    proportional to its weight; index 0 is the simplest; 0 if every weight is 0."""
    total = min(sum(weights), U64)
    if total == 0:
        return 0
    k = choice(total - 1)
    for i, w in enumerate(weights):
        if k < w:
            return i
        k -= w
    return len(weights) - 1


def one_of(items):
    """One of `items` (a non-empty sequence; the first is the simplest)."""
    if not items:
        raise ValueError("one_of: no items")
    return items[choice(len(items) - 1)]


def frequency(items):
    """QuickCheck's frequency: one of the values of `items`, a list of (weight, value),
    chosen with probability proportional to its weight; the first is the simplest."""
    if not items:
        raise ValueError("frequency: no items")
    return items[weighted([w for w, _ in items])][1]


def length_cap(max_len):
    """The largest length a collection may have now:
    min(max_len, max(1 + size() // 4, max_len * size() // 100)): 1 + size() // 4 for a
    maximum up to 26, and a larger maximum is reached at the largest size (100)."""
    return min(max_len, max(1 + size() // 4, max_len * size() // 100))


def sized_cap(max_len):
    """The largest length a *sized* collection may have now: max_len at the largest size
    (100), in proportion below it, at least 1 (0 when max_len is 0)."""
    if max_len == 0:
        return 0
    return max(1, max_len * size() // 100)


def more():
    """One "continue?" choice: 0 (the simplest) stops; its range widens with the size."""
    return choice(1 + size() // 10) != 0


class Many:
    """A loop guard for collections built element by element:

        many = Many(6)
        while many.more():
            ...  # draw one element
    """

    def __init__(self, max_len, sized=False):
        """At most length_cap(max_len) elements; with sized=True, up to sized_cap(max_len),
        each "continue?" choice in 0..=max(1, cap // 2), so that it can reach max_len."""
        self.cap = sized_cap(max_len) if sized else length_cap(max_len)
        self._range = max(1, self.cap // 2) if sized else 1 + size() // 10
        self._count = 0

    def more(self):
        """Whether to draw one more element (no choice once the cap is reached)."""
        if self._count >= self.cap or choice(self._range) == 0:
            return False
        self._count += 1
        return True

    def count(self):
        """How many elements have been accepted so far."""
        return self._count

    def collect(self, element):
        """The elements `element()` draws while more() says so."""
        out = []
        while self.more():
            out.append(element())
        return out

    def chars_of(self, alphabet):
        """Characters of `alphabet` (the first is the simplest) drawn while more() says so."""
        if not alphabet:
            return ""
        return "".join(self.collect(lambda: one_of(alphabet)))


def vec_of(max_len, element):
    """A list of elements drawn by `element()`, at most length_cap(max_len) long."""
    return Many(max_len).collect(element)


def sized_vec_of(max_len, element):
    """vec_of that can reach max_len elements (Many(max_len, sized=True))."""
    return Many(max_len, sized=True).collect(element)


def string_of(alphabet, max_len):
    """A string of characters of `alphabet` (the first is the simplest), at most
    length_cap(max_len) long."""
    return Many(max_len).chars_of(alphabet)


def sized_string_of(alphabet, max_len):
    """string_of that can reach max_len characters."""
    return Many(max_len, sized=True).chars_of(alphabet)


def emit(text):
    """Writes the test input to stdout exactly as given (add the newline yourself) and
    flushes. Call it once, at the end."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError:
        pass
