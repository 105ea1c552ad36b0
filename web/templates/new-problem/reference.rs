//! The reference solution of {{TITLE}}: what every answer is compared with.
use std::io::Read;

fn main() {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).expect("the input is text");
    let largest = input.split_whitespace().map(|word| word.parse::<i64>().expect("an integer")).max();
    match largest {
        Some(x) => println!("{x}"),
        None => println!("empty"),
    }
}
