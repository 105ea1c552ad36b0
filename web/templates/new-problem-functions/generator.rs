//! The test generator of {{TITLE}}: `init C`, then commands that are always valid, every
//! decision a choice (bugrank_gen), 0 always the simplest, so that bugrank can shrink a
//! failing sequence to the few calls that matter. All-zero choices give `init 1` alone.
//! A command is `push` (the simplest), `pop`, `size` or `init` again, weighted 6:4:2:1.

use bugrank_gen as g;

fn main() {
    let mut out = format!("init {}\n", 1 + g::choice(4));
    let mut many = g::Many::new(30);
    while many.more() {
        match g::weighted(&[6, 4, 2, 1]) {
            0 => out.push_str(&format!("push {}\n", g::int_in(0, 1000))),
            1 => out.push_str("pop\n"),
            2 => out.push_str("size\n"),
            _ => out.push_str(&format!("init {}\n", 1 + g::choice(4))),
        }
    }
    g::emit(&out);
}
