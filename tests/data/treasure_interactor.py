#!/usr/bin/env python3
# The interactor of Buried Treasure (fixtures/packages/treasure) in Python, as judges
# write them: the import test puts it in place of the package's C++ one, which it
# follows rule for rule. Run as `interactor.py input answer feedback_dir`, the
# submission's output on stdin and its input on stdout; exit 42 accepts, 43 rejects with
# the reason in judgemessage.txt.
import os
import sys

MOST_DIGS = 30


def wrong_answer(message):
    with open(os.path.join(sys.argv[3], "judgemessage.txt"), "w") as feedback:
        feedback.write(message + "\n")
    sys.exit(43)


def words():
    """The submission's words, read a line at a time as they come."""
    for line in sys.stdin:
        yield from line.split()


with open(sys.argv[1]) as judge_in:
    n, treasure = map(int, judge_in.read().split())
print(n, flush=True)
said = words()
dig = 0
while True:
    dig += 1
    word = next(said, None)
    if word is None:
        wrong_answer("dig %d: the program ended without finding the treasure" % dig)
    if word != "dig":
        wrong_answer("dig %d: expected `dig k`, got `%s`" % (dig, word))
    number = next(said, None)
    try:
        k = int(number)
    except (TypeError, ValueError):
        wrong_answer("dig %d: `dig` is not followed by a number" % dig)
    if not 1 <= k <= n:
        wrong_answer("dig %d: flagstone %d does not exist (there are %d)" % (dig, k, n))
    if dig > MOST_DIGS:
        wrong_answer("more than %d digs" % MOST_DIGS)
    if k == treasure:
        print("found", flush=True)
        break
    print("left" if treasure < k else "right", flush=True)
more = next(said, None)
if more is not None:
    wrong_answer("the program wrote `%s` after the treasure was found" % more)
sys.exit(42)
