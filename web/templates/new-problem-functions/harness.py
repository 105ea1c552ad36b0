"""harness.py: reads one command a line, calls the hand-in's functions (the module
`answer`) and writes one line for each with `out` (bugrank_harness): only those lines are
judged, not what the hand-in prints itself. bugrank runs every program as this file with
the hand-in's imported as `answer`. (bugrank_harness.py beside it is a copy for native
runs: copy reference.py to answer.py, then `python3 harness.py`; bugrank has its own.)

The hand-in defines:

    def init(capacity): ...   # an empty stack of at most `capacity` values
    def push(value): ...      # True if pushed, False if full
    def pop(): ...            # the value removed, or None if empty
    def size(): ...           # how many values it holds
"""

import sys

import answer
from bugrank_harness import out

for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "init":
        answer.init(int(words[1]))
        out("ok")
    elif words[0] == "push":
        out(1 if answer.push(int(words[1])) else 0)
    elif words[0] == "pop":
        value = answer.pop()
        out(-1 if value is None else value)
    elif words[0] == "size":
        out(answer.size())
    else:
        out("?", line.rstrip("\n"))
