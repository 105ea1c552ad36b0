"""The test generator of {{TITLE}}: `init C`, then commands that are always valid, every
decision a choice (bugrank_gen), 0 always the simplest, so that bugrank can shrink a
failing sequence to the few calls that matter. All-zero choices give `init 1` alone. A
command is `push` (the simplest), `pop`, `size` or `init` again, weighted 6:4:2:1."""

import bugrank_gen as g

lines = [f"init {1 + g.choice(4)}"]
many = g.Many(30)
while many.more():
    command = g.weighted([6, 4, 2, 1])
    if command == 0:
        lines.append(f"push {g.int_in(0, 1000)}")
    elif command == 1:
        lines.append("pop")
    elif command == 2:
        lines.append("size")
    else:
        lines.append(f"init {1 + g.choice(4)}")
g.emit("\n".join(lines) + "\n")
