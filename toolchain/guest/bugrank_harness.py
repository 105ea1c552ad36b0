"""bugrank_harness: what a problem's Python harness writes its results with.

In a function-level assignment the students hand in functions, not programs: the
problem's harness (`harness.py`) is the program. It imports the hand-in as the module
`answer`, reads the test input (typically one command a line), calls `answer`'s functions
and writes what they return with `out` (like `print`) or `write`.

What it writes there is the program's output, the one judged: a stream of its own, which
the student's code does not write to. A student's `print` goes to stdout as usual and is
not judged. The hand-in is imported as `answer`, not run as `__main__`: code under
`if __name__ == "__main__":` is left out.

    import sys
    import answer
    from bugrank_harness import out

    for line in sys.stdin:
        words = line.split()
        if words[0] == "add":
            answer.add(int(words[1]))
            out("ok")
        elif words[0] == "total":
            out(answer.total())

Write one output line per input line: bug lists then show a failing test as the calls in
order, each beside what the reference and the hand-in gave. bugrank's CPython has this
module built in; run natively (`python3 harness.py` beside a copy of it and `answer.py`),
the output goes to stdout.
"""

import sys

try:
    from _bugrank_gen import output as _output, out as _out
except ImportError:  # natively: stdout
    _out = None

    def _output(data):
        sys.stdout.buffer.write(data)
        sys.stdout.flush()


def write(data):
    """Writes `data` (bytes or text) to the judged output."""
    _output(data.encode("utf-8") if isinstance(data, str) else bytes(data))


def out(*values, sep=" ", end="\n"):
    """`print` to the judged output: one write per call."""
    write(sep.join(str(value) for value in values) + end)


# In bugrank's CPython, the same function in C: a harness calls it once a line.
if _out is not None:
    out = _out
