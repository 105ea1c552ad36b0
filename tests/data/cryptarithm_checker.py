"""Checker for the cryptarithm problem, in Python: the same verdicts and reasons as
fixtures/problems/cryptarithm/checker.rs (read that file for the rules), written as an
author who prefers Python would. The end-to-end tests grade the cryptarithm cohort with it
in place of the compiled checker and expect the same suite, ranking and points.

Protocol: stdin holds the test input, the reference's output and the answer's output, each
as its length in bytes, a newline, then the bytes. One line on stdout: `accept` or
`reject: <reason>`. The problem's own faults go to stderr with exit status 2.
"""

import sys

MAX_WORD = 8
MAX_LETTERS = 10
QUOTE_CHARS = 40


def problem_error(message):
    print("checker: " + message, file=sys.stderr)
    sys.exit(2)


def field(data, start, name):
    newline = data.find(b"\n", start)
    if newline < 0:
        problem_error("stdin: no length line for the " + name)
    digits = data[start:newline]
    if not digits or len(digits) > 12 or not digits.isdigit():
        problem_error("stdin: bad length line for the " + name)
    length = int(digits)
    body = newline + 1
    if len(data) - body < length:
        problem_error("stdin: the %s is shorter than its length %d" % (name, length))
    return data[body:body + length], body + length


def trim_end(data):
    return data.rstrip(b" \t\n\r\x0c")


def debug_string(text):
    """A string as Rust's `{:?}` writes it (for the ASCII and common cases)."""
    escapes = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", '"': '\\"', "'": "'", "\0": "\\0"}
    out = []
    for c in text:
        if c in escapes:
            out.append(escapes[c])
        elif c.isprintable():
            out.append(c)
        else:
            out.append("\\u{%x}" % ord(c))
    return '"' + "".join(out) + '"'


def quote(data):
    text = data.decode("utf-8", errors="replace")
    short = text[:QUOTE_CHARS]
    if len(text) > QUOTE_CHARS:
        short += "..."
    return debug_string(short)


def parse_puzzle(data):
    try:
        text = trim_end(data).decode("utf-8")
    except UnicodeDecodeError:
        problem_error("test input is not UTF-8")
    if "=" not in text:
        problem_error("test input %s has no '='" % debug_string(text))
    lhs, rhs = text.split("=", 1)
    addends = lhs.split("+")
    if len(addends) < 2:
        problem_error("test input %s has fewer than two addends" % debug_string(text))
    for word in addends + [rhs]:
        if not word or len(word) > MAX_WORD or not all("a" <= c <= "z" for c in word):
            problem_error("test input %s has a bad word" % debug_string(text))
    letters = sorted(set("".join(addends) + rhs))
    if len(letters) > MAX_LETTERS:
        problem_error("test input %s has more than %d letters" % (debug_string(text), MAX_LETTERS))
    return addends, rhs, letters


class Malformed(Exception):
    pass


def parse_output(data):
    """None for `no solution`, else a dict letter -> digit; Malformed with the reason."""
    text = trim_end(data)
    if not text:
        raise Malformed("no output")
    if b"\n" in text:
        raise Malformed("more than one output line: " + quote(text))
    if text == b"no solution":
        return None
    digits = {}
    previous = None
    for item in text.split(b" "):
        if len(item) == 3 and 97 <= item[0] <= 122 and item[1:2] == b"=" and 48 <= item[2] <= 57:
            letter, digit = chr(item[0]), item[2] - 48
            if letter in digits:
                raise Malformed("letter %s is given twice" % letter)
            if previous is not None and letter < previous:
                raise Malformed("letters not in alphabetical order: %s after %s" % (letter, previous))
            previous = letter
            digits[letter] = digit
        else:
            raise Malformed("malformed output line " + quote(text))
    return digits


def value(word, digits):
    v = 0
    for letter in word:
        v = v * 10 + digits.get(letter, 0)
    return v


def defect(puzzle, digits):
    """Why `digits` is not a solution, or None if it is one."""
    addends, result, letters = puzzle
    for letter in sorted(digits):
        if letter not in letters:
            return "letter %s is not in the puzzle" % letter
    for letter in letters:
        if letter not in digits:
            return "letter %s has no digit" % letter
    for i, x in enumerate(letters):
        for y in letters[i + 1:]:
            if digits[x] == digits[y]:
                return "letters %s and %s both get %d" % (x, y, digits[x])
    for word in addends + [result]:
        if len(word) >= 2 and digits[word[0]] == 0:
            return word + " starts with 0"
    values = [value(word, digits) for word in addends]
    total = sum(values)
    if total != value(result, digits):
        return "%s = %d, not %d" % (" + ".join(str(v) for v in values), total, value(result, digits))
    return None


def verdict(puzzle, reference, answer):
    """None to accept, else the reason to reject."""
    try:
        expected = parse_output(reference)
    except Malformed as why:
        problem_error("the reference's output is malformed: %s" % why)
    if expected is not None:
        why = defect(puzzle, expected)
        if why is not None:
            problem_error("the reference's output is not a solution: " + why)
    try:
        given = parse_output(answer)
    except Malformed as why:
        return str(why)
    if given is None:
        return None if expected is None else "says no solution but one exists"
    why = defect(puzzle, given)
    if expected is not None:
        return why
    if why is None:
        problem_error("the reference says no solution, but the answer's solution is valid")
    return "no solution exists, yet it gives one (%s)" % why


def main():
    data = sys.stdin.buffer.read()
    test_input, at = field(data, 0, "test input")
    reference, at = field(data, at, "reference's output")
    answer, at = field(data, at, "answer's output")
    if at != len(data):
        problem_error("stdin: bytes after the answer's output")
    why = verdict(parse_puzzle(test_input), reference, answer)
    print("accept" if why is None else "reject: " + why)


main()
