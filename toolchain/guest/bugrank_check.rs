//! `bugrank_check`: the library of bugrank checkers written in Rust (its C twin is
//! `bugrank_check.h`). A checker is the oracle of a problem where several outputs can be
//! right: bugrank runs it with three parts on its standard input (the test's input, the
//! model answer's output, the hand-in's output, each as its length in bytes on a line of
//! its own and then exactly those bytes) and it says `accept`, or `reject: REASON`, the
//! reason shown to the student as written. A checker that cannot make sense of its input
//! (the protocol broken, a model answer that is no answer) is the problem's fault, not the
//! student's: it says so on stderr and exits 2, and bugrank reports a problem error.
//!
//! ```no_run
//! use bugrank_check as check;
//!
//! fn main() {
//!     let parts = check::read();
//!     // The sum must be right; the numbers may be in any order.
//!     let expected: i64 = check::number(&parts.expected, "the model answer");
//!     let mut got = check::Tokens::new(&parts.actual);
//!     let sum: i64 = got.number("the sum");
//!     got.end();
//!     if sum != expected {
//!         check::reject(format!("the sum is {sum} where {expected} is expected"));
//!     }
//!     check::accept();
//! }
//! ```
//!
//! Built natively (`rustc checker.rs` beside this file, `--extern`), a checker reads the
//! same three parts from its standard input, so it can be tried on a file.

use std::fmt::Display;
use std::io::Read;
use std::str::FromStr;

/// The three parts a checker is given.
pub struct Parts {
    pub input: String,
    /// The model answer's output: what the reference wrote.
    pub expected: String,
    /// The hand-in's output: what is judged.
    pub actual: String,
}

/// Reads the three parts from standard input as text (bytes that are not UTF-8 read as
/// U+FFFD); a broken protocol is a [`problem_error`].
pub fn read() -> Parts {
    let [input, expected, actual] = read_bytes().map(|part| String::from_utf8_lossy(&part).into_owned());
    Parts { input, expected, actual }
}

/// Reads the three parts from standard input as they are: the input, the model answer's
/// output, the hand-in's output. For a checker that quotes a hand-in's bytes exactly.
pub fn read_bytes() -> [Vec<u8>; 3] {
    let mut all = Vec::new();
    if std::io::stdin().read_to_end(&mut all).is_err() {
        problem_error("cannot read standard input");
    }
    let mut rest = &all[..];
    let parts = ["input", "model answer's output", "hand-in's output"].map(|name| part(&mut rest, name).to_vec());
    if !rest.is_empty() {
        problem_error("stdin: bytes after the third part");
    }
    parts
}

/// One `<length>\n<bytes>` part from the front of `rest`.
fn part<'a>(rest: &mut &'a [u8], name: &str) -> &'a [u8] {
    let Some(newline) = rest.iter().position(|&b| b == b'\n') else { problem_error(&format!("stdin: no length line for the {name}")) };
    let digits = &rest[..newline];
    if digits.is_empty() || digits.len() > 12 || !digits.iter().all(u8::is_ascii_digit) {
        problem_error(&format!("stdin: bad length line for the {name}"));
    }
    let length = digits.iter().fold(0usize, |n, &d| n * 10 + (d - b'0') as usize);
    let body = &rest[newline + 1..];
    if body.len() < length {
        problem_error(&format!("stdin: the {name} is shorter than its length {length}"));
    }
    *rest = &body[length..];
    &body[..length]
}

/// Accepts the hand-in's output and ends the checker.
pub fn accept() -> ! {
    println!("accept");
    std::process::exit(0)
}

/// Rejects the hand-in's output with `reason` (one line: what the student reads) and ends
/// the checker.
pub fn reject(reason: impl Display) -> ! {
    let reason = reason.to_string().replace('\n', " ");
    println!("reject: {reason}");
    std::process::exit(0)
}

/// Ends the checker with the problem's fault (exit status 2): never held against a hand-in.
pub fn problem_error(message: &str) -> ! {
    eprintln!("checker: {message}");
    std::process::exit(2)
}

/// At most this many characters of a hand-in's token are quoted in a reason.
pub const QUOTED_CHARS: usize = 40;

/// `token` as a reason quotes it: in backticks, cut to [`QUOTED_CHARS`].
pub fn quoted(token: &str) -> String {
    match token.char_indices().nth(QUOTED_CHARS) {
        Some((end, _)) => format!("`{}…`", &token[..end]),
        None => format!("`{token}`"),
    }
}

/// The model answer's whole output read as one value; a [`problem_error`] when it is not
/// one (the model answer is the problem's).
pub fn number<T: FromStr>(text: &str, what: &str) -> T {
    text.trim().parse().unwrap_or_else(|_| problem_error(&format!("{what} is not a number: {}", quoted(text.trim()))))
}

/// The words of an output, read one by one; what the hand-in got wrong is a [`reject`]
/// naming the word and what was expected there.
pub struct Tokens<'a> {
    words: std::str::SplitWhitespace<'a>,
    read: usize,
}

impl<'a> Tokens<'a> {
    pub fn new(text: &'a str) -> Tokens<'a> {
        Tokens { words: text.split_whitespace(), read: 0 }
    }

    /// The next word; a [`reject`] when the output ends before `what`.
    pub fn word(&mut self, what: &str) -> &'a str {
        match self.words.next() {
            Some(word) => {
                self.read += 1;
                word
            }
            None => reject(format!("the output stops after {}, where {what} comes next", words(self.read))),
        }
    }

    /// The next word as a number; a [`reject`] when it is not one.
    pub fn number<T: FromStr>(&mut self, what: &str) -> T {
        let word = self.word(what);
        word.parse().unwrap_or_else(|_| reject(format!("word {} of the output, {what}, is {}: not a number", self.read, quoted(word))))
    }

    /// The rest of the output must be empty; a [`reject`] names the first word too many.
    pub fn end(&mut self) {
        if let Some(extra) = self.words.next() {
            reject(format!("the output goes on after the {} expected, with {}", words(self.read), quoted(extra)));
        }
    }
}

/// "1 word", "3 words".
fn words(n: usize) -> String {
    if n == 1 { "1 word".to_owned() } else { format!("{n} words") }
}

/// Whether `actual` is within `absolute` or `relative` of `expected` (Kattis's
/// `float_tolerance` rule: either suffices).
pub fn close(expected: f64, actual: f64, absolute: f64, relative: f64) -> bool {
    let difference = (expected - actual).abs();
    difference <= absolute || difference <= relative * expected.abs()
}

/// Compares two outputs word by word, as the judges' default validator does: the same words
/// whatever the white space, `case_sensitive` or not, numbers within `absolute` or
/// `relative` of each other where both words are numbers. `Err` is the reason for the first
/// difference.
pub fn compare_tokens(expected: &str, actual: &str, case_sensitive: bool, absolute: f64, relative: f64) -> Result<(), String> {
    let (mut want, mut got) = (expected.split_whitespace(), actual.split_whitespace());
    let mut n = 0;
    loop {
        n += 1;
        match (want.next(), got.next()) {
            (None, None) => return Ok(()),
            (Some(w), None) => return Err(format!("the output stops after {}, where {} comes next", words(n - 1), quoted(w))),
            (None, Some(g)) => return Err(format!("the output goes on after the {} expected, with {}", words(n - 1), quoted(g))),
            (Some(w), Some(g)) => {
                let same = match (w.parse::<f64>(), g.parse::<f64>()) {
                    (Ok(a), Ok(b)) if absolute > 0.0 || relative > 0.0 => close(a, b, absolute, relative),
                    _ if case_sensitive => w == g,
                    _ => w.eq_ignore_ascii_case(g),
                };
                if !same {
                    return Err(format!("word {n} of the output is {} where {} is expected", quoted(g), quoted(w)));
                }
            }
        }
    }
}
