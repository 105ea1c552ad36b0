//! harness.rs: reads one command a line, calls the hand-in's `Stack` and writes one line
//! for each with `outln!` (bugrank_harness.rs): only those lines are judged, not what the
//! hand-in prints itself. bugrank builds every program as this crate, the hand-in's file
//! being the module `answer`, with the cfg `bugrank_harness`. (bugrank_harness.rs beside
//! it is a copy for native builds: copy reference.rs to answer.rs, then
//! `rustc harness.rs`; bugrank uses its own.)
//!
//! The hand-in defines:
//!
//! ```ignore
//! pub struct Stack { ... }
//! impl Stack {
//!     pub fn new(capacity: usize) -> Stack;
//!     pub fn push(&mut self, value: i32) -> bool;
//!     pub fn pop(&mut self) -> Option<i32>;
//!     pub fn len(&self) -> usize;
//! }
//! ```

mod answer;
mod bugrank_harness;

use answer::Stack;

fn main() {
    let mut stack: Option<Stack> = None;
    for line in std::io::stdin().lines().map_while(Result::ok) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = words.get(1).and_then(|w| w.parse::<i32>().ok()).unwrap_or(0);
        match (words.first().copied(), &mut stack) {
            (Some("init"), _) => {
                stack = Some(Stack::new(number.max(1) as usize));
                outln!("ok");
            }
            (Some("push"), Some(stack)) => outln!("{}", u8::from(stack.push(number))),
            (Some("pop"), Some(stack)) => outln!("{}", stack.pop().unwrap_or(-1)),
            (Some("size"), Some(stack)) => outln!("{}", stack.len()),
            _ => outln!("? {line}"),
        }
    }
}
