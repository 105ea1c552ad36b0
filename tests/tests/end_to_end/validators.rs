//! Output validators as judges write them (issue 46): a C++ program given the test's input
//! and the judges' answer as files, the team's output on stdin and a feedback directory
//! for its messages, built in the sandbox and run there with its files in memory.

use end_to_end::{can_build, root, sandbox, tools};
use sandbox::{Files, Limits, Outcome, Role};
use toolchain::{Built, Language, Source};

/// The header of `fixtures/packages/divisors`' validator, in the style of problemtools'
/// `validate.h`: `init_io` opens the files its arguments name and checks the feedback
/// directory with `stat`, a message is appended to a file of that directory with `fopen(...,
/// "a")`, and the verdict is the exit status, 42 or 43.
fn validate_h() -> String {
    std::fs::read_to_string(root().join("fixtures/packages/divisors/output_validators/divisors/validate.h")).unwrap()
}

/// The validator of a problem whose answers may come in any order: the input's first
/// number is how many there are, the answer file holds them; the team's must be the same
/// numbers in some order.
const ANY_ORDER: &str = r#"#include "validate.h"
#include <algorithm>
#include <vector>
int main(int argc, char **argv) {
    init_io(argc, argv);
    int n;
    judge_in >> n;
    std::vector<long long> expected(n), got;
    for (auto &x : expected) judge_ans >> x;
    long long x;
    while (std::cin >> x) got.push_back(x);
    if ((int)got.size() != n) wrong_answer("expected %d numbers, got %d\n", n, (int)got.size());
    std::sort(expected.begin(), expected.end());
    std::sort(got.begin(), got.end());
    if (expected != got) wrong_answer("not the same numbers\n");
    accept();
}
"#;

/// Builds the validator `main` with `validate.h` beside it, loaded as a validator.
fn validator(main: &str) -> sandbox::Program {
    let source =
        Source { language: Language::Cpp, files: vec![("validator.cpp".into(), main.as_bytes().to_vec()), ("validate.h".into(), validate_h().into_bytes())] };
    let wasm = match tools().builder.build(&source).unwrap() {
        Built::Module { wasm, .. } => wasm,
        Built::Failed { failure, message } => panic!("the validator did not build ({failure:?}): {message}"),
    };
    sandbox().load("validator.cpp", &wasm, Role::Validator).unwrap()
}

/// The judges' protocol: `validator /judge/input /judge/answer /judge/feedback/ < output`.
fn files(input: &str, answer: &str) -> Files {
    Files {
        args: vec!["/judge/input".into(), "/judge/answer".into(), "/judge/feedback/".into()],
        read: vec![("/judge/input".into(), input.as_bytes().to_vec()), ("/judge/answer".into(), answer.as_bytes().to_vec())],
        directory: "/judge/feedback".into(),
    }
}

fn limits() -> Limits {
    Limits { fuel: 200_000_000, ..Limits::default() }
}

/// Runs `program` on the team's `output`: its outcome and the files it wrote, as text.
fn check(program: &sandbox::Program, files: Files, output: &str) -> (Outcome, Vec<(String, String)>) {
    let run = sandbox().run_with_files(program, output.as_bytes(), files, &limits()).unwrap();
    let written = run.written.iter().map(|(name, bytes)| (name.clone(), String::from_utf8_lossy(bytes).into_owned())).collect();
    (run.outcome, written)
}

/// `program`, given one argument more, floods a file of its feedback directory: the run
/// ends at the output limit, and no more is kept.
fn floods_to_the_output_limit(program: &sandbox::Program) {
    let mut flooding = files("word\n", "");
    flooding.args.push("flood".into());
    let run = sandbox().run_with_files(program, b"", flooding, &limits()).unwrap();
    assert_eq!(run.outcome, Outcome::OutputLimit);
    let total: usize = run.written.iter().map(|(_, bytes)| bytes.len()).sum();
    assert!(total <= limits().output_bytes, "{total} bytes kept");
}

fn wrote(name: &str, text: &str) -> Vec<(String, String)> {
    vec![(name.to_owned(), text.to_owned())]
}

#[test]
fn a_cpp_validator_reads_its_files_judges_by_exit_status_and_says_why_in_its_feedback_directory() {
    if !can_build(&[Language::Cpp]) {
        return;
    }
    let program = validator(ANY_ORDER);
    assert_eq!(check(&program, files("3\n", "1 2 3\n"), "3 1 2\n"), (Outcome::Exited(42), vec![]));
    assert_eq!(check(&program, files("3\n", "1 2 3\n"), "1 2\n"), (Outcome::Exited(43), wrote("judgemessage.txt", "expected 3 numbers, got 2\n")));
    assert_eq!(check(&program, files("3\n", "1 2 3\n"), "1 2 4\n"), (Outcome::Exited(43), wrote("judgemessage.txt", "not the same numbers\n")));
    // Every run starts with an empty feedback directory.
    assert_eq!(check(&program, files("1\n", "7\n"), "7\n"), (Outcome::Exited(42), vec![]));
}

#[test]
fn a_validator_given_no_such_file_or_directory_finds_none() {
    if !can_build(&[Language::Cpp]) {
        return;
    }
    let program = validator(ANY_ORDER);
    // A judge error is said in judgeerror.txt, and the validator aborts.
    let mut missing_answer = files("1\n", "7\n");
    missing_answer.read.pop();
    let (outcome, written) = check(&program, missing_answer, "7\n");
    assert!(matches!(outcome, Outcome::Trap(_)), "{outcome:?}");
    assert_eq!(written, wrote("judgeerror.txt", "validator.cpp: failed to open /judge/answer\n"));
    // Without its feedback directory it has nowhere to say so.
    let mut no_directory = files("1\n", "7\n");
    no_directory.args[2] = "/judge/elsewhere".into();
    let (outcome, written) = check(&program, no_directory, "7\n");
    assert!(matches!(outcome, Outcome::Trap(_)) && written.is_empty(), "{outcome:?} {written:?}");
    // Without files it has no arguments but its name.
    let run = sandbox().run(&program, b"7\n", &limits()).unwrap();
    assert_eq!(run.outcome, Outcome::Exited(1), "argc is 1: {}", String::from_utf8_lossy(&run.stderr));
    assert!(String::from_utf8_lossy(&run.stderr).contains("judge_in judge_ans feedback_dir < author_out"));
}

#[test]
fn a_validator_writes_only_new_files_of_its_feedback_directory_and_within_the_output_limit() {
    if !can_build(&[Language::Cpp]) {
        return;
    }
    // What a hostile or careless validator tries: writing the files it reads, climbing out
    // of its directory, creating a file in a directory of its own, and a flood of output.
    let attempts = r#"#include "validate.h"
int main(int argc, char **argv) {
    init_io(argc, argv);
    int refused = 0;
    refused += std::fopen("/judge/input", "w") == nullptr;
    refused += std::fopen("/judge/answer", "a") == nullptr;
    refused += std::fopen("/judge/feedback/../input", "w") == nullptr;
    refused += std::fopen("/judge/feedback/../../../etc/passwd", "r") == nullptr;
    refused += std::fopen("/etc/passwd", "r") == nullptr;
    refused += std::fopen("/judge/feedback/sub/file.txt", "w") == nullptr;
    refused += std::fopen("/judge/new.txt", "w") == nullptr;
    std::string rest;
    judge_in >> rest;
    FILE *f = std::fopen("/judge/feedback/judgemessage.txt", "w");
    std::fprintf(f, "%d refused, input %s", refused, rest.c_str());
    std::fclose(f);
    if (argc > 4) {
        FILE *flood = std::fopen("/judge/feedback/teammessage.txt", "w");
        for (;;) std::fputs("flood ", flood);
    }
    wrong_answer("; done\n");
}
"#;
    let program = validator(attempts);
    assert_eq!(check(&program, files("word\n", ""), ""), (Outcome::Exited(43), wrote("judgemessage.txt", "7 refused, input word; done\n")));
    floods_to_the_output_limit(&program);
}

#[test]
fn a_program_that_opens_files_sees_them_only_as_a_validator_and_its_build_says_so() {
    if !can_build(&[Language::Cpp]) {
        return;
    }
    let source = Source {
        language: Language::Cpp,
        files: vec![("validator.cpp".into(), ANY_ORDER.as_bytes().to_vec()), ("validate.h".into(), validate_h().into_bytes())],
    };
    let Built::Module { wasm, warnings } = tools().builder.build(&source).unwrap() else { panic!("the validator did not build") };
    assert!(warnings.contains(toolchain::OPENS_FILES), "{warnings}");
    // As any other program it loads and runs, without a validator's arguments or files.
    let program = sandbox().load("validator.cpp", &wasm, Role::Answer).unwrap();
    let run = sandbox().run(&program, b"1 2\n", &Limits::default()).unwrap();
    assert_eq!((run.outcome, String::from_utf8_lossy(&run.stderr).trim()), (Outcome::Exited(1), "validator.cpp: judge_in judge_ans feedback_dir < author_out"));
}

#[test]
fn a_validator_may_measure_seek_and_read_again_the_files_it_is_given() {
    if !can_build(&[Language::Cpp]) {
        return;
    }
    let measures = r#"#include "validate.h"
#include <unistd.h>
int main(int argc, char **argv) {
    init_io(argc, argv);
    FILE *f = std::fopen(argv[2], "r");
    std::fseek(f, 0, SEEK_END);
    long size = std::ftell(f);
    struct stat st;
    fstat(fileno(f), &st);
    std::fseek(f, -3, SEEK_END);
    char tail[4] = {0};
    std::fread(tail, 1, 3, f);
    std::rewind(f);
    char head[4] = {0};
    std::fread(head, 1, 3, f);
    judge_ans.seekg(0, std::ios::end);
    long streamed = (long)judge_ans.tellg();
    wrong_answer("%ld %lld %ld %s %s %d", size, (long long)st.st_size, streamed, head, tail, S_ISREG(st.st_mode));
}
"#;
    let program = validator(measures);
    assert_eq!(check(&program, files("1\n", "abcdefgh"), ""), (Outcome::Exited(43), wrote("judgemessage.txt", "8 8 8 abc fgh 1")));
}

/// The Python validator `source`, compiled by bugrank's Python.
fn python_validator(source: &str) -> sandbox::Program {
    let python = course::load::python(sandbox()).unwrap();
    sandbox().load_interpreted(&python, "validate.py", source.as_bytes()).unwrap().unwrap_or_else(|message| panic!("{message}"))
}

/// [`ANY_ORDER`] as judges write it in Python.
const ANY_ORDER_PY: &str = r#"import sys

def wrong_answer(message):
    with open(sys.argv[3] + "judgemessage.txt", "w") as feedback:
        feedback.write(message + "\n")
    sys.exit(43)

with open(sys.argv[1]) as judge_in:
    n = int(judge_in.read())
with open(sys.argv[2]) as judge_ans:
    expected = sorted(map(int, judge_ans.read().split()))
got = sorted(map(int, sys.stdin.read().split()))
if len(got) != n:
    wrong_answer("expected %d numbers, got %d" % (n, len(got)))
if got != expected:
    wrong_answer("not the same numbers")
sys.exit(42)
"#;

#[test]
fn a_python_validator_reads_the_files_its_arguments_name_and_says_why_in_its_feedback_directory() {
    let program = python_validator(ANY_ORDER_PY);
    assert_eq!(check(&program, files("3\n", "1 2 3\n"), "3 1 2\n"), (Outcome::Exited(42), vec![]));
    assert_eq!(check(&program, files("3\n", "1 2 3\n"), "1 2\n"), (Outcome::Exited(43), wrote("judgemessage.txt", "expected 3 numbers, got 2\n")));
    assert_eq!(check(&program, files("3\n", "1 2 3\n"), "1 2 4\n"), (Outcome::Exited(43), wrote("judgemessage.txt", "not the same numbers\n")));
    assert_eq!(check(&program, files("1\n", "7\n"), "7\n"), (Outcome::Exited(42), vec![]), "every run starts with an empty feedback directory");
    // Without files a Python program has no arguments but its name, and finds no file.
    let run = sandbox().run(&program, b"7\n", &limits()).unwrap();
    assert_eq!(run.outcome, Outcome::Uncaught("IndexError: list index out of range".into()));
    let run = sandbox().run(&python_validator("import sys\nprint(sys.argv)\nopen('/judge/input')\n"), b"", &limits()).unwrap();
    assert_eq!(
        (run.outcome, String::from_utf8_lossy(&run.stdout).into_owned()),
        (Outcome::Uncaught("FileNotFoundError: [Errno 44] No such file or directory: '/judge/input'".into()), "['validate.py']\n".into())
    );
}

#[test]
fn a_python_validator_writes_only_new_files_of_its_feedback_directory_and_within_the_output_limit() {
    // The hostile or careless validator of the C++ test above, in Python.
    let attempts = r#"import sys

def refused(path, mode):
    try:
        open(path, mode).close()
        return 0
    except OSError:
        return 1

count = sum(refused(path, mode) for path, mode in [
    ("/judge/input", "w"), ("/judge/answer", "a"), ("/judge/feedback/../input", "w"),
    ("/judge/feedback/../../../etc/passwd", "r"), ("/etc/passwd", "r"),
    ("/judge/feedback/sub/file.txt", "w"), ("/judge/new.txt", "w"), ("/usr/local/lib/python313.zip", "r"),
])
with open(sys.argv[1]) as judge_in:
    rest = judge_in.read().strip()
with open(sys.argv[3] + "judgemessage.txt", "w") as feedback:
    feedback.write("%d refused, input %s, arguments %s" % (count, rest, sys.argv[1:]))
if len(sys.argv) > 4:
    with open(sys.argv[3] + "teammessage.txt", "w") as flood:
        while True:
            flood.write("flood " * 1000)
sys.exit(43)
"#;
    let program = python_validator(attempts);
    let said = "8 refused, input word, arguments ['/judge/input', '/judge/answer', '/judge/feedback/']";
    assert_eq!(check(&program, files("word\n", ""), ""), (Outcome::Exited(43), wrote("judgemessage.txt", said)));
    floods_to_the_output_limit(&program);
}
