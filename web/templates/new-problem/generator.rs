//! The test generator of {{TITLE}}: one input per run, every decision a choice
//! (the crate `bugrank_gen`, in bugrank_gen.rs), 0 always the simplest, so that bugrank
//! can shrink a failing input. All-zero choices give the simplest input: an empty line.
use bugrank_gen as g;

fn main() {
    let xs = g::vec_of(8, g::i32_any);
    let words: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
    g::emit(&format!("{}\n", words.join(" ")));
}
