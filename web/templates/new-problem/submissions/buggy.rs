//! An example of a buggy submission: it starts from 0, so a list of negative numbers
//! gets 0 (bugrank shrinks that to the simplest such input: `-1`).
use std::io::Read;

fn main() {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).unwrap();
    let mut largest = 0i64;
    let mut any = false;
    for word in input.split_whitespace() {
        largest = largest.max(word.parse().unwrap());
        any = true;
    }
    if any { println!("{largest}") } else { println!("empty") }
}
