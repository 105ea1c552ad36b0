"""The test generator of {{TITLE}}: one input per run, every decision a choice
(bugrank_gen), 0 always the simplest, so that bugrank can shrink a failing input.
All-zero choices give the simplest input: an empty line.

Inside bugrank, `import bugrank_gen` finds bugrank's own copy; the copy beside this file
is for trying the generator with plain python3 (BUGRANK_SEED=7 python3 generator.py)."""
import bugrank_gen as g

numbers = g.vec_of(8, g.i32_any)
g.emit(" ".join(str(n) for n in numbers) + "\n")
