//! An example of a correct submission: it passes every test.
use std::io::Read;

fn main() {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).unwrap();
    let mut largest: Option<i64> = None;
    for word in input.split_whitespace() {
        let x: i64 = word.parse().unwrap();
        largest = Some(largest.map_or(x, |l| l.max(x)));
    }
    println!("{}", largest.map_or("empty".to_string(), |l| l.to_string()));
}
