//! C and C++ as students and judges write them (issue 32): `gets`, `<bits/stdc++.h>`,
//! `signal`, `alarm` and `syslog` build; a stack of 8 MiB as on Linux, and overflowing it is said to
//! be a stack overflow; a problem may judge the output whatever the exit status.

use end_to_end::{Written, can_build, grade_without_roster, sandbox, tools};
use sandbox::{Limits, Outcome, Role};
use toolchain::{Built, Language, Source};

/// Builds `text` as `name` and runs it on `input`: the build's warnings and the run.
fn run(language: Language, name: &str, text: &str, input: &str) -> (String, sandbox::Run) {
    let source = Source { language, files: vec![(name.to_owned(), text.as_bytes().to_vec())] };
    let (wasm, warnings) = match tools().builder.build(&source).unwrap() {
        Built::Module { wasm, warnings } => (wasm, warnings),
        Built::Failed { failure, message } => panic!("{name} did not build ({failure:?}): {message}"),
    };
    let program = sandbox().load(name, &wasm, Role::Answer).unwrap();
    let limits = Limits { fuel: 2_000_000_000, memory_bytes: 256 << 20, ..Limits::default() };
    (warnings, sandbox().run(&program, input.as_bytes(), &limits).unwrap())
}

fn stdout(run: &sandbox::Run) -> String {
    String::from_utf8_lossy(&run.stdout).into_owned()
}

#[test]
fn gets_a_prompt_signal_and_alarm_build_and_run_as_natively_with_a_warning_for_gets() {
    if !can_build(&[Language::C]) {
        return;
    }
    let program = "#include <stdio.h>\n#include <string.h>\n#include <signal.h>\n#include <unistd.h>\n\
        void on_alarm(int s) { (void)s; }\n\
        int main() {\n    char name[100];\n    signal(SIGALRM, on_alarm);\n    alarm(2);\n    printf(\"Enter your name: \");\n    gets(name);\n    printf(\"Hello, %s (%d letters)\\n\", name, (int)strlen(name));\n    return 0;\n}\n";
    let (warnings, run) = run(Language::C, "hello.c", program, "Ada Lovelace\nnext line\n");
    assert_eq!(run.outcome, Outcome::Exited(0), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(stdout(&run), "Enter your name: Hello, Ada Lovelace (12 letters)\n");
    assert!(warnings.contains("hello.c:11:") && warnings.contains("gets has no bound on the length of the line it reads"), "{warnings}");
}

#[test]
fn a_program_that_writes_to_the_system_log_builds_and_its_messages_go_nowhere() {
    if !can_build(&[Language::C, Language::Cpp]) {
        return;
    }
    // DOMjudge's test-fill-syslog (a wrong answer: the log is not the output).
    let program = "#include <stdio.h>\n#include <syslog.h>\nint main(void) {\n    int i;\n    openlog(\"fill\", LOG_PID, LOG_USER);\n    for (i = 0; i < 3; i++) syslog(LOG_NOTICE, \"nonsense (%06d).\", i);\n    closelog();\n    printf(\"%d lines written to syslog.\\n\", i);\n    return 0;\n}\n";
    for (language, name) in [(Language::C, "fill.c"), (Language::Cpp, "fill.cpp")] {
        let (_, run) = run(language, name, program, "");
        assert_eq!((run.outcome.clone(), stdout(&run), run.stderr.len()), (Outcome::Exited(0), "3 lines written to syslog.\n".to_owned(), 0), "{name}");
    }
}

#[test]
fn a_program_that_opens_files_runs_with_a_note_and_finds_none() {
    if !can_build(&[Language::C]) {
        return;
    }
    // Code to read a file when given one, never run by a judge: the program is right.
    let guarded = "#include <stdio.h>\nint main(int argc, char **argv) {\n    int a, b;\n    if (argc > 1) freopen(argv[1], \"r\", stdin);\n    if (scanf(\"%d %d\", &a, &b) != 2) return 1;\n    printf(\"%d\\n\", a + b);\n    return 0;\n}\n";
    let (warnings, summed) = run(Language::C, "sum.c", guarded, "2 3\n");
    assert_eq!((summed.outcome.clone(), stdout(&summed)), (Outcome::Exited(0), "5\n".to_owned()));
    assert!(warnings.contains(toolchain::OPENS_FILES), "{warnings}");
    // A program that reads its input from a file finds none, as natively without it (in
    // WASI's words: no folder is open to look in).
    let from_file = "#include <stdio.h>\nint main(void) {\n    FILE *in = fopen(\"input.txt\", \"r\");\n    if (!in) { perror(\"input.txt\"); return 1; }\n    return 0;\n}\n";
    let (_, failed) = run(Language::C, "file.c", from_file, "2 3\n");
    assert_eq!(
        (failed.outcome, String::from_utf8_lossy(&failed.stderr).into_owned()),
        (Outcome::Exited(1), "input.txt: Capabilities insufficient\n".to_owned())
    );
}

#[test]
fn judge_style_cpp_with_bits_stdcxx_builds_and_runs() {
    if !can_build(&[Language::Cpp]) {
        return;
    }
    let program = "#include <bits/stdc++.h>\nusing namespace std;\nint main() {\n    ios::sync_with_stdio(false);\n    cin.tie(nullptr);\n    int n; cin >> n;\n    vector<long long> v(n);\n    for (auto &x : v) cin >> x;\n    sort(v.begin(), v.end());\n    map<long long, int> seen;\n    for (auto x : v) seen[x]++;\n    cout << v.back() << ' ' << seen.size() << '\\n';\n}\n";
    let (_, run) = run(Language::Cpp, "main.cpp", program, "5\n3 9 3 1 9\n");
    assert_eq!((run.outcome.clone(), stdout(&run)), (Outcome::Exited(0), "9 3\n".to_owned()));
}

#[test]
fn a_large_local_array_runs_as_natively_and_a_stack_too_small_for_its_locals_is_a_stack_overflow() {
    if !can_build(&[Language::C, Language::Rust]) {
        return;
    }
    // 100,000 bytes: far below Linux's 8 MiB; crashed with WASI's default stack.
    let line = "#include <stdio.h>\n#include <string.h>\nint main(void) {\n    char line[100000];\n    if (!fgets(line, sizeof line, stdin)) return 0;\n    printf(\"%zu\\n\", strlen(line));\n    return 0;\n}\n";
    let (_, ok) = run(Language::C, "line.c", line, "hello\n");
    assert_eq!((ok.outcome.clone(), stdout(&ok)), (Outcome::Exited(0), "6\n".to_owned()));
    // 16 MiB of locals: more than the stack holds.
    let huge = "#include <stdio.h>\nint main(void) {\n    char grid[4096][4096];\n    if (!fgets(grid[4000], 100, stdin)) return 0;\n    printf(\"%s\", grid[4000]);\n    return 0;\n}\n";
    let (_, overflow) = run(Language::C, "grid.c", huge, "x");
    assert_eq!(overflow.outcome, Outcome::StackOverflow, "not any bad access: the stack");
    // A bad pointer is not a stack overflow.
    let bad = "#include <stdio.h>\nint main(void) {\n    int *p = (int *)0xfffffff0;\n    printf(\"%d\\n\", *p);\n    return 0;\n}\n";
    let (_, crashed) = run(Language::C, "bad.c", bad, "");
    assert!(matches!(&crashed.outcome, Outcome::Trap(m) if m.contains("out of bounds memory access")), "{:?}", crashed.outcome);
    // Rust gets the same stack.
    let rust = "use std::io::Read;\nfn main() {\n    let mut buf = [0u8; 1_000_000];\n    let n = std::io::stdin().read(&mut buf).unwrap();\n    println!(\"{}\", buf[..n].iter().filter(|&&b| b == b'a').count());\n}\n";
    let (_, rust) = run(Language::Rust, "main.rs", rust, "banana");
    assert_eq!((rust.outcome.clone(), stdout(&rust)), (Outcome::Exited(0), "3\n".to_owned()));
}

/// The problem `bugrank new-problem` writes (the largest of a line of integers), in a
/// temporary folder, with `exit_status` set as given, and a class of two: the template's
/// correct answer, and the same answer ending with `return 1`.
fn graded_with_exit_status(exit_status: &str) -> Written {
    let dir = tempfile::tempdir().unwrap();
    let problem = dir.path().join("largest");
    web::cli::new_problem::new_problem(&problem, "Largest", web::cli::new_problem::AuthorLanguage::C, false).unwrap();
    let toml = std::fs::read_to_string(problem.join("problem.toml")).unwrap();
    std::fs::write(problem.join("problem.toml"), toml.replace("exit_status = \"zero\"", &format!("exit_status = \"{exit_status}\""))).unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    let correct = std::fs::read_to_string(problem.join("submissions/correct.c")).unwrap();
    std::fs::write(class.join("correct.c"), &correct).unwrap();
    std::fs::write(class.join("returns1.c"), correct.replace("return 0;", "return 1;")).unwrap();
    let (problem, class) = (problem.display().to_string(), class.display().to_string());
    grade_without_roster(&[("--problem", &problem), ("--submissions", &class), ("--stable-after", "300")])
}

#[test]
fn a_problem_may_judge_the_output_whatever_the_exit_status_and_by_default_a_status_but_0_fails_in_words() {
    if !can_build(&[Language::C]) {
        return;
    }
    let returns1 = |written: &Written| written.graded.analysis.answers.iter().find(|a| a.id == "returns1").unwrap().clone();
    let any = graded_with_exit_status("any");
    assert_eq!(returns1(&any).passed, any.graded.analysis.scored_tests(), "the output alone is judged");
    assert_eq!(returns1(&any).points.unwrap().points, 100.0);
    let zero = graded_with_exit_status("zero");
    let failed = returns1(&zero);
    assert_eq!(failed.passed, 0);
    let detail = failed.failures.values().next().unwrap();
    assert!(format!("{detail:?}").contains("ended with exit status 1 instead of 0 (main returned 1, or exit(1) was called)"), "{detail:?}");
}

#[test]
fn an_uninitialised_read_is_the_same_wrong_value_on_every_run_and_the_warning_names_it() {
    if !can_build(&[Language::C]) {
        return;
    }
    // clang -O2 folds `m` into `n * 2` without the pattern: the bug would pass every test.
    let program = "#include <stdio.h>\nint main(void) {\n    int n, m;\n    if (scanf(\"%d\", &n) != 1) return 0;\n    if (n > 0) m = n * 2;\n    printf(\"%d\\n\", m);\n    return 0;\n}\n";
    let (warnings, negative) = run(Language::C, "double.c", program, "-3\n");
    assert_eq!(stdout(&negative), "-1\n", "every byte 0xFF: an int reads as -1");
    let (_, positive) = run(Language::C, "double.c", program, "4\n");
    assert_eq!(stdout(&positive), "8\n");
    let said = present::uninitialised_in_words(&warnings).expect("the warning is read");
    assert!(said.contains("double.c line 5: variable 'm' is used uninitialized whenever 'if' condition is false"), "{said}");
}

#[test]
fn a_problem_may_leave_locals_as_the_compiler_makes_them_instead_of_the_pattern() {
    if !can_build(&[Language::C]) {
        return;
    }
    let program = "#include <stdio.h>\nint main(void) {\n    int n, m;\n    if (scanf(\"%d\", &n) != 1) return 0;\n    if (n > 0) m = n * 2;\n    printf(\"%d\\n\", m);\n    return 0;\n}\n";
    let source = Source { language: Language::C, files: vec![("double.c".to_owned(), program.as_bytes().to_vec())] };
    let dir = tempfile::tempdir().unwrap();
    let printed = |setting: &str| {
        std::fs::write(dir.path().join("problem.toml"), format!("title = \"Double\"\n{setting}\n")).unwrap();
        let toml = course::problem_dir::ProblemToml::read(dir.path()).unwrap();
        let accepted = course::problem_dir::accepted(dir.path(), &toml).unwrap();
        let Built::Module { wasm, .. } = course::load::built(&tools().builder, &accepted, &source, None).unwrap() else { panic!("{setting}: not built") };
        let program = sandbox().load("double.c", &wasm, Role::Answer).unwrap();
        stdout(&sandbox().run(&program, b"-3\n", &Limits::default()).unwrap())
    };
    assert_eq!(printed(""), "-1\n", "the default: every byte 0xFF");
    assert_eq!(printed("uninitialised_locals = \"pattern\""), "-1\n");
    assert_eq!(printed("uninitialised_locals = \"uninitialized\""), "-6\n", "-O2 folds the read into n * 2: the bug hides");
    let refused = course::problem_dir::ProblemToml::read({
        std::fs::write(dir.path().join("problem.toml"), "title = \"Double\"\nuninitialised_locals = \"random\"\n").unwrap();
        dir.path()
    });
    assert!(refused.unwrap_err().to_string().contains("unknown variant `random`, expected `pattern` or `uninitialized`"));
}

#[test]
fn when_no_hand_in_compiles_the_analysis_is_still_written_with_each_compilers_message() {
    if !can_build(&[Language::C]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let problem = dir.path().join("largest");
    web::cli::new_problem::new_problem(&problem, "Largest", web::cli::new_problem::AuthorLanguage::C, false).unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    std::fs::write(class.join("s1.c"), "int main(void) { return 0 }\n").unwrap();
    std::fs::write(class.join("s2.c"), "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", x); return 0; }\n").unwrap();
    let (problem, class) = (problem.display().to_string(), class.display().to_string());
    let written = grade_without_roster(&[("--problem", &problem), ("--submissions", &class)]);
    let analysis = &written.graded.analysis;
    assert_eq!(analysis.answers.len(), 2);
    for (id, says) in [("s1", "s1.c:1:"), ("s2", "use of undeclared identifier 'x'")] {
        let answer = analysis.answers.iter().find(|a| a.id == id).unwrap();
        assert!(answer.not_built(), "{id}");
        let error = answer.build.as_ref().and_then(|b| b.error.clone()).unwrap();
        assert!(error.contains(says), "{id}: {error}");
        assert_eq!(answer.points.as_ref().unwrap().points, 0.0);
    }
    assert!(written.files.contains_key("analysis.json") && written.files["scores.csv"].contains("s2"));
    assert!(written.graded.warnings.iter().any(|w| w.contains("none of the 2 hand-ins compiled")), "{:?}", written.graded.warnings);
}

#[test]
fn a_tokens_problem_accepts_any_spacing_and_numbers_within_its_tolerance_and_says_the_first_differing_word() {
    if !can_build(&[Language::C]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let problem = dir.path().join("mean");
    web::cli::new_problem::new_problem(&problem, "Mean", web::cli::new_problem::AuthorLanguage::C, false).unwrap();
    let mean = |format: &str| {
        format!(
            "#include <stdio.h>\nint main(void) {{\n    long long x, sum = 0;\n    int n = 0;\n    while (scanf(\"%lld\", &x) == 1) {{ sum += x; n++; }}\n    if (n) printf(\"{format}\", (double)sum / n); else printf(\"empty\\n\");\n    return 0;\n}}\n"
        )
    };
    std::fs::write(problem.join("reference.c"), mean("%.6f\\n")).unwrap();
    let toml = std::fs::read_to_string(problem.join("problem.toml")).unwrap();
    let toml = toml.replace("oracle = \"trim-trailing-whitespace\"", "oracle = \"tokens\"") + "\n[tokens]\nfloat_absolute = 1e-3\n";
    assert!(toml.contains("float_absolute"));
    std::fs::write(problem.join("problem.toml"), toml).unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    std::fs::write(class.join("close.c"), mean("%.3f\\n")).unwrap();
    std::fs::write(class.join("spaced.c"), mean("  %f \\n\\n")).unwrap();
    std::fs::write(class.join("rough.c"), mean("%.1f\\n")).unwrap();
    let (problem, class) = (problem.display().to_string(), class.display().to_string());
    let written = grade_without_roster(&[("--problem", &problem), ("--submissions", &class), ("--stable-after", "500")]);
    let analysis = &written.graded.analysis;
    let answer = |id: &str| analysis.answers.iter().find(|a| a.id == id).unwrap();
    for id in ["close", "spaced"] {
        assert!(answer(id).failed.is_empty(), "{id} is within the tolerance: {:?}", answer(id).failures);
    }
    let rough = answer("rough");
    assert!(!rough.failed.is_empty(), "one decimal is outside 1e-3 on some input");
    let reason = rough.failures.values().next().unwrap().failure.reason.clone().unwrap();
    assert!(reason.starts_with("word 1 of the output is `") && reason.contains("` where `") && reason.ends_with("` is expected"), "{reason}");
}

#[test]
fn long_double_is_read_and_written_as_natively_in_c_and_cpp() {
    if !can_build(&[Language::C, Language::Cpp]) {
        return;
    }
    // Judges' solutions print `long double` with cout and printf's `%Lf`, and read it with
    // scanf's `%Lf`: wasi-libc's formatting of it is left out unless linked.
    let cpp = "#include <bits/stdc++.h>\nusing namespace std;\ntypedef long double ld;\nint main() {\n    ld x;\n    cin >> x;\n    cout << fixed << setprecision(6) << x / 3 << '\\n';\n    printf(\"%.3Lf\\n\", x * 2);\n}\n";
    let (_, run_cpp) = run(Language::Cpp, "main.cpp", cpp, "10\n");
    assert_eq!(
        (run_cpp.outcome.clone(), stdout(&run_cpp)),
        (Outcome::Exited(0), "3.333333\n20.000\n".to_owned()),
        "{}",
        String::from_utf8_lossy(&run_cpp.stderr)
    );
    let c = "#include <stdio.h>\nint main(void) {\n    long double x;\n    if (scanf(\"%Lf\", &x) != 1) return 1;\n    printf(\"%.4Lf %Lg\\n\", x / 8, x);\n    return 0;\n}\n";
    let (_, run_c) = run(Language::C, "main.c", c, "2.5\n");
    assert_eq!((run_c.outcome.clone(), stdout(&run_c)), (Outcome::Exited(0), "0.3125 2.5\n".to_owned()), "{}", String::from_utf8_lossy(&run_c.stderr));
}

#[test]
fn cpp_exceptions_are_thrown_and_caught_by_type_and_one_nobody_catches_is_a_crash_that_names_it() {
    if !can_build(&[Language::Cpp]) {
        return;
    }
    // As students write it: their own exception type, the library's `at`, a rethrow, an
    // exception through a recursion with destructors to run, and one left uncaught.
    let program = r#"#include <bits/stdc++.h>
using namespace std;
struct Negative : runtime_error { Negative() : runtime_error("negative") {} };
struct Counted { static int alive; Counted() { alive++; } ~Counted() { alive--; } };
int Counted::alive = 0;
int pick(const vector<int>& v, int i) { if (i < 0) throw Negative(); return v.at(i); }
int deep(int n) { Counted c; string s(50, 'x'); if (n == 0) throw n; return deep(n - 1) + (int)s.size(); }
int main() {
    vector<int> v = {10, 20, 30};
    int i;
    while (cin >> i) {
        try {
            cout << pick(v, i) << '\n';
        } catch (const out_of_range& e) {
            cout << "out of range\n";
        } catch (const exception& e) {
            cout << "error: " << e.what() << '\n';
        }
        if (i == 9) throw logic_error("nine is not allowed");
    }
    try { deep(1000); } catch (int k) { cout << "caught " << k << ", alive " << Counted::alive << '\n'; }
    try {
        try { throw string("inner"); } catch (string& s) { s += " again"; throw; }
    } catch (const string& s) { cout << s << '\n'; }
    return 0;
}
"#;
    let (_, ok) = run(Language::Cpp, "main.cpp", program, "1 -2 5\n");
    assert_eq!(
        (ok.outcome.clone(), stdout(&ok)),
        (Outcome::Exited(0), "20\nerror: negative\nout of range\ncaught 0, alive 0\ninner again\n".to_owned()),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let (_, uncaught) = run(Language::Cpp, "main.cpp", program, "0 9 1\n");
    assert!(matches!(uncaught.outcome, Outcome::Trap(_)), "{:?}", uncaught.outcome);
    // As natively: `cin` flushes `cout` before each read, and an abort loses what was
    // written since ("out of range" for the 9).
    assert_eq!(stdout(&uncaught), "10\n");
    assert_eq!(String::from_utf8_lossy(&uncaught.stderr), "libc++abi: terminating due to uncaught exception of type std::logic_error: nine is not allowed\n");
}

#[test]
fn writing_past_a_local_array_is_a_crash_that_says_stack_smashing_as_on_ubuntu() {
    if !can_build(&[Language::C, Language::Cpp]) {
        return;
    }
    // A name read into 8 bytes: a longer one overwrites what lies beside the array, which
    // Ubuntu's GCC (and macOS's clang) catch when the function returns.
    let program = "#include <stdio.h>\nint main(void) {\n    char name[8];\n    int count = 3;\n    scanf(\"%s\", name);\n    printf(\"%s %d\\n\", name, count);\n    return 0;\n}\n";
    for (language, name) in [(Language::C, "main.c"), (Language::Cpp, "main.cpp")] {
        let (_, fits) = run(language, name, program, "Ada\n");
        assert_eq!((fits.outcome.clone(), stdout(&fits)), (Outcome::Exited(0), "Ada 3\n".to_owned()), "{name}");
        let (_, smashed) = run(language, name, program, "Grace_Brewster_Murray_Hopper\n");
        assert!(matches!(smashed.outcome, Outcome::Trap(_)), "{name}: {:?}", smashed.outcome);
        assert_eq!(String::from_utf8_lossy(&smashed.stderr), "*** stack smashing detected ***: terminated\n", "{name}");
    }
}

#[test]
fn cpp_exceptions_through_constructors_function_try_blocks_lambdas_and_exception_ptr_give_what_gcc_gives() {
    if !can_build(&[Language::Cpp]) {
        return;
    }
    // A member whose constructor throws (the members built before it destroyed), frames
    // unwound with their destructors, a function-try-block, a lambda in std::function,
    // exception_ptr, a rethrow after a nested handler, bad_optional_access. The expected
    // output is what GCC 12's build of the same source prints natively.
    let program = r#"#include <bits/stdc++.h>
using namespace std;
struct Noisy { string name; Noisy(string n) : name(n) {} ~Noisy() { cout << "~" << name << "\n"; } };
struct Thrower { Thrower(int x) { if (x > 2) throw invalid_argument("too big: " + to_string(x)); } };
struct Holder { Noisy a{"a"}; Thrower t; Noisy b{"b"}; Holder(int x) : t(x) {} };
int f(int depth) {
    Noisy n("f" + to_string(depth));
    try {
        if (depth == 0) throw runtime_error("bottom");
        return f(depth - 1) + 1;
    } catch (const logic_error&) {
        return -100;
    }
}
int g(int x) try {
    if (x < 0) throw x;
    return x;
} catch (int v) {
    return -v * 10;
}
int main() {
    try { Holder h(3); } catch (const exception& e) { cout << "holder: " << e.what() << "\n"; }
    try { f(3); } catch (const runtime_error& e) { cout << "f: " << e.what() << "\n"; }
    cout << "g: " << g(-4) << " " << g(5) << "\n";
    function<int(int)> fn = [](int x) -> int { if (x % 2) throw string("odd"); return x / 2; };
    int ok = 0, bad = 0;
    for (int i = 0; i < 10; i++) { try { ok += fn(i); } catch (const string& s) { bad++; } }
    cout << "fn: " << ok << " " << bad << "\n";
    vector<int> v(5);
    try { v.at(10) = 1; } catch (out_of_range&) { cout << "oor\n"; }
    exception_ptr p;
    try { throw length_error("stored"); } catch (...) { p = current_exception(); }
    try { if (p) rethrow_exception(p); } catch (const length_error& e) { cout << "rethrown: " << e.what() << "\n"; }
    map<string, int> m;
    try { m.at("x"); } catch (...) { cout << "map at\n"; }
    try {
        try { throw 1; }
        catch (int) {
            try { throw 2.5; } catch (double d) { cout << "inner " << d << "\n"; }
            throw;
        }
    } catch (int i) { cout << "outer " << i << "\n"; }
    optional<int> o;
    try { cout << o.value(); } catch (const bad_optional_access&) { cout << "bad optional\n"; }
    return 0;
}
"#;
    let (_, run) = run(Language::Cpp, "main.cpp", program, "");
    assert_eq!(run.outcome, Outcome::Exited(0), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(
        stdout(&run),
        "~a\nholder: too big: 3\n~f0\n~f1\n~f2\n~f3\nf: bottom\ng: 40 5\nfn: 10 5\noor\nrethrown: stored\nmap at\ninner 2.5\nouter 1\nbad optional\n"
    );
}

#[test]
fn a_programs_clocks_count_its_instructions_so_a_deadline_loop_ends_and_its_sleeps_its_wall_time() {
    if !can_build(&[Language::C, Language::Cpp]) {
        return;
    }
    // A search that runs until its clock says a tenth of a second has passed, as
    // heuristics that use their time limit are written: it ends, after some hundred million
    // instructions, the same way on every run.
    let deadline = "#include <stdio.h>\n#include <time.h>\nint main(void) {\n    clock_t start = clock();\n    long rounds = 0;\n    while (clock() - start < CLOCKS_PER_SEC / 10) rounds++;\n    printf(\"%s\\n\", rounds > 0 ? \"done\" : \"none\");\n    return 0;\n}\n";
    let (_, first) = run(Language::C, "deadline.c", deadline, "");
    assert_eq!((first.outcome.clone(), stdout(&first)), (Outcome::Exited(0), "done\n".to_owned()));
    assert!((100_000_000..110_000_000).contains(&first.fuel_used), "{} fuel", first.fuel_used);
    assert_eq!(run(Language::C, "deadline.c", deadline, "").1, first, "the same run, fuel and all");
    // A sleep uses no CPU time, so no fuel: a program that sleeps a second and then fails
    // an assertion crashes, as on a judge's machine (BAPCtools' guess_close_stdout_1). Its
    // wall clock runs on: five seconds are past the run's wall limit (2 × its 2 s + 1 s).
    let sleeps = |seconds: &str, then: &str| {
        format!(
            "#include <assert.h>\n#include <stdio.h>\n#include <unistd.h>\nint main(void) {{\n    sleep({seconds});\n    {then};\n    printf(\"awake\\n\");\n    return 0;\n}}\n"
        )
    };
    let (_, one) = run(Language::C, "sleep.c", &sleeps("1", "(void) 0"), "");
    assert_eq!((one.outcome.clone(), stdout(&one)), (Outcome::Exited(0), "awake\n".to_owned()));
    assert!(one.fuel_used < 10_000_000, "{} fuel", one.fuel_used);
    assert!(matches!(run(Language::C, "sleep.c", &sleeps("1", "assert(0)"), "").1.outcome, Outcome::Trap(_)));
    assert_eq!(run(Language::C, "sleep.c", &sleeps("5", "(void) 0"), "").1.outcome, Outcome::Timeout);
    // C++'s std::this_thread (libc++ on WASI has no <thread>: bugrank's has it, without
    // std::thread), and chrono's clocks tell the time slept.
    let cpp = "#include <chrono>\n#include <iostream>\n#include <thread>\nint main() {\n    using namespace std::chrono;\n    auto start = steady_clock::now();\n    std::this_thread::sleep_for(milliseconds(500));\n    std::this_thread::yield();\n    std::cout << duration_cast<milliseconds>(steady_clock::now() - start).count() << \" ms\\n\";\n}\n";
    let (_, slept) = run(Language::Cpp, "sleep.cpp", cpp, "");
    assert_eq!((slept.outcome.clone(), stdout(&slept)), (Outcome::Exited(0), "500 ms\n".to_owned()));
}

#[test]
fn a_global_array_of_400_mb_compiles_and_runs_within_a_memory_limit_that_holds_it() {
    if !can_build(&[Language::C]) {
        return;
    }
    // clang writes a zero-initialised global's bytes in full in its object file (the
    // module holds none of them): this one's is 400 MB.
    let text = "#include <stdio.h>\nint seen[100000000];\nint main(void) {\n    int n;\n    if (scanf(\"%d\", &n) != 1) return 0;\n    seen[n] = 1;\n    printf(\"%d\\n\", seen[n] + seen[n + 1]);\n    return 0;\n}\n";
    let source = Source { language: Language::C, files: vec![("big.c".to_owned(), text.as_bytes().to_vec())] };
    let wasm = match tools().builder.build(&source).unwrap() {
        Built::Module { wasm, .. } => wasm,
        Built::Failed { failure, message } => panic!("did not build ({failure:?}): {message}"),
    };
    assert!(wasm.len() < 1 << 20, "{} bytes", wasm.len());
    let program = sandbox().load("big.c", &wasm, Role::Answer).unwrap();
    let limits = |mib: usize| Limits { fuel: 100_000_000, memory_bytes: mib << 20, ..Limits::default() };
    let run = sandbox().run(&program, b"99999998\n", &limits(512)).unwrap();
    assert_eq!((run.outcome.clone(), stdout(&run)), (Outcome::Exited(0), "1\n".to_owned()));
    assert_eq!(sandbox().run(&program, b"7\n", &limits(256)).unwrap().outcome, Outcome::OutOfMemory, "as natively, where the limit is on its address space");
}

#[test]
fn cin_unsynchronised_from_stdio_reads_through_a_buffer_as_with_gcc_and_reads_the_same() {
    if !can_build(&[Language::Cpp]) {
        return;
    }
    // The judges' idiom for fast input: with GCC's libstdc++ it makes `cin` buffered;
    // libc++'s does nothing, and bugrank's compatibility file does what GCC's does.
    let program = |unsync: &str| {
        format!(
            "#include <bits/stdc++.h>\nusing namespace std;\nint main() {{\n    {unsync}\n    int n; cin >> n;\n    string rest; getline(cin, rest);\n    string title; getline(cin, title);\n    long long sum = 0, x;\n    for (int i = 0; i < n; i++) {{ cin >> x; sum += x; }}\n    cout << title << ' ' << sum << '\\n';\n}}\n"
        )
    };
    let numbers: String = (1..=20_000).map(|i| format!("{} ", i * 7919 % 100_003)).collect();
    let input = format!("20000\nthe sum:\n{numbers}\n");
    let (_, synced) = run(Language::Cpp, "sum.cpp", &program(""), &input);
    let (_, buffered) = run(Language::Cpp, "sum.cpp", &program("ios::sync_with_stdio(false); cin.tie(nullptr);"), &input);
    let expected = format!("the sum: {}\n", (1..=20_000u64).map(|i| i * 7919 % 100_003).sum::<u64>());
    assert_eq!((synced.outcome.clone(), stdout(&synced)), (Outcome::Exited(0), expected.clone()));
    assert_eq!((buffered.outcome.clone(), stdout(&buffered)), (Outcome::Exited(0), expected));
    assert!(buffered.fuel_used * 2 < synced.fuel_used, "buffered {} fuel, synchronised {}", buffered.fuel_used, synced.fuel_used);
}

#[test]
fn the_standard_librarys_own_throws_are_caught_by_type_as_with_gcc() {
    if !can_build(&[Language::Cpp]) {
        return;
    }
    // What Debian's libc++.a compiles without exceptions: the string conversions (bugrank
    // links GCC's, whose what() is the function's name) and std::string's members.
    let program = r#"#include <bits/stdc++.h>
using namespace std;
int main() {
    string line;
    while (getline(cin, line)) {
        try {
            size_t used = 0;
            int n = stoi(line, &used);
            cout << "int " << n << " from " << used << " characters\n";
        } catch (const invalid_argument& e) {
            cout << "not a number (" << e.what() << ")\n";
        } catch (const out_of_range& e) {
            cout << "too big for an int (" << e.what() << ")\n";
        }
    }
    try { cout << stoll("99999999999999999999") << "\n"; } catch (const out_of_range& e) { cout << e.what() << " out of range\n"; }
    try { cout << stod("x1.5") << "\n"; } catch (const invalid_argument& e) { cout << e.what() << " invalid\n"; }
    cout << stoul("ff", nullptr, 16) + stoull("10") << " " << stof("2.5") * stold("2") << "\n";
    try { string s = "ab"; cout << s.substr(5) << "\n"; } catch (const out_of_range&) { cout << "substr out of range\n"; }
    try { string s = "ab"; cout << s.at(2) << "\n"; } catch (const out_of_range&) { cout << "at out of range\n"; }
    try { stoi("seven"); } catch (const logic_error& e) { cout << "caught as logic_error: " << e.what() << endl; }
    return stoi("nope");
}
"#;
    let (_, run) = run(Language::Cpp, "convert.cpp", program, "42\n  -7 apples\nabc\n3000000000\n");
    assert_eq!(
        stdout(&run),
        "int 42 from 2 characters\nint -7 from 4 characters\nnot a number (stoi)\ntoo big for an int (stoi)\nstoll out of range\nstod invalid\n265 5\n\
         substr out of range\nat out of range\ncaught as logic_error: stoi\n"
    );
    // Uncaught, it ends the program as GCC's does, naming it (after `endl`: an abort
    // writes nothing more of what cout holds, natively too).
    assert!(matches!(run.outcome, Outcome::Trap(_)), "{:?}", run.outcome);
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("uncaught exception of type std::invalid_argument: stoi"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn a_forbidden_library_function_is_found_by_the_calls_of_the_compiled_code_at_each_line_that_calls_it() {
    if !can_build(&[Language::C, Language::Cpp, Language::Rust]) {
        return;
    }
    let forbid = |names: &[&str]| course::rules::LanguageRules { forbid: names.iter().map(|name| name.to_string()).collect(), ..Default::default() };
    let accepted = course::load::Accepted {
        languages: vec![Language::C, Language::Cpp, Language::Rust],
        harnesses: Vec::new(),
        build: toolchain::BuildOptions::default(),
        rules: course::rules::RulesToml { c: forbid(&["qsort"]), cpp: forbid(&["sort", "strlen"]), rust: forbid(&["sort"]), ..Default::default() },
    };
    let check = |language: Language, text: &str, expected: &[(&str, u32, &str)]| {
        let name = format!("main.{}", language.extension());
        let source = Source { language, files: vec![(name.clone(), text.as_bytes().to_vec())] };
        let built = course::load::build(sandbox(), &tools().builder, &accepted, &name, &source, None).unwrap();
        let course::hand_in::Loaded::Program(_, Some(build)) = built else { panic!("{text} did not build") };
        let found: Vec<(&str, u32, &str)> = build.rules_broken.iter().map(|rule| (rule.rule.as_str(), rule.line, rule.code.as_str())).collect();
        assert_eq!(found, expected, "{text}");
    };
    // std::sort through `using namespace std`, at each call; strlen; std::stable_sort is
    // another function.
    check(
        Language::Cpp,
        "#include <bits/stdc++.h>\nusing namespace std;\nint main() {\n    vector<int> v{3, 1, 2};\n    sort(v.begin(), v.end());\n    std::sort(v.rbegin(), v.rend());\n    stable_sort(v.begin(), v.end());\n    const char *s = \"abc\";\n    cout << v[0] << strlen(s) << \"\\n\";\n}\n",
        &[("sort", 5, "sort(v.begin(), v.end());"), ("sort", 6, "std::sort(v.rbegin(), v.rend());"), ("strlen", 9, "cout << v[0] << strlen(s) << \"\\n\";")],
    );
    // A function of the hand-in's own named sort, a comment and a string naming std::sort,
    // a variable named strlen: nothing of the library's.
    check(
        Language::Cpp,
        "#include <cstdio>\nstatic void sort(int *a, int n) {\n    for (int i = 1; i < n; i++)\n        for (int j = i; j > 0 && a[j - 1] > a[j]; j--) { int t = a[j]; a[j] = a[j - 1]; a[j - 1] = t; }\n}\nint main() {\n    int a[3] = {3, 1, 2}, strlen = 3;\n    sort(a, strlen); // not std::sort(a, a + 3)\n    printf(\"%d sort(\\n\", a[0]);\n}\n",
        &[],
    );
    // C's qsort; the same text in a comment before it is not a use.
    check(
        Language::C,
        "#include <stdio.h>\n#include <stdlib.h>\nstatic int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }\n/* qsort(a, 3, ...) sorts it */\nint main(void) {\n    int a[3] = {3, 1, 2};\n    qsort(a, 3, sizeof a[0], cmp);\n    printf(\"%d\\n\", a[0]);\n    return 0;\n}\n",
        &[("qsort", 7, "qsort(a, 3, sizeof a[0], cmp);")],
    );
    // Rust's slice sort (`alloc::slice::sort`), called by the hand-in's own code: not
    // sort_by, even though sort_by's own code sorts too.
    check(
        Language::Rust,
        "fn main() {\n    let mut v = vec![3, 1, 2];\n    v.sort();\n    v.sort_by(|a, b| b.cmp(a));\n    println!(\"{:?}\", v);\n}\n",
        &[("sort", 3, "v.sort();")],
    );
    check(
        Language::Rust,
        "// v.sort() is not allowed\nfn sort(v: &mut [i32]) {\n    for i in 1..v.len() {\n        let mut j = i;\n        while j > 0 && v[j - 1] > v[j] {\n            v.swap(j - 1, j);\n            j -= 1;\n        }\n    }\n}\nfn main() {\n    let mut v = vec![3, 1, 2];\n    sort(&mut v);\n    println!(\"{:?}\", v);\n}\n",
        &[],
    );
}

#[test]
fn a_construct_the_assignment_requires_is_a_rule_broken_when_a_hand_in_lacks_it() {
    if !can_build(&[Language::C, Language::Cpp, Language::Rust]) {
        return;
    }
    let require = |names: &[&str]| course::rules::LanguageRules { require: names.iter().map(|name| name.to_string()).collect(), ..Default::default() };
    let accepted = course::load::Accepted {
        languages: vec![Language::C, Language::Cpp, Language::Python, Language::Rust],
        harnesses: Vec::new(),
        build: toolchain::BuildOptions::default(),
        rules: course::rules::RulesToml {
            python: require(&["recursion", "class Stack", "import heapq"]),
            c: require(&["recursion", "def fact"]),
            cpp: require(&["class Stack", "printf"]),
            rust: require(&["recursion", "class Stack"]),
        },
    };
    let check = |language: Language, text: &str, expected: &[&str]| {
        let name = format!("main.{}", language.extension());
        let source = Source { language, files: vec![(name.clone(), text.as_bytes().to_vec())] };
        let built = course::load::build(sandbox(), &tools().builder, &accepted, &name, &source, None).unwrap();
        let course::hand_in::Loaded::Program(_, Some(build)) = built else { panic!("{text} did not build") };
        let lacking: Vec<String> = build.rules_broken.iter().map(|rule| rule.said()).collect();
        assert_eq!(lacking, expected, "{text}");
    };
    let fact =
        |body: &str| format!("#include <stdio.h>\nlong fact(int n) {{\n{body}\n}}\nint main(void) {{\n    printf(\"%ld\\n\", fact(5));\n    return 0;\n}}\n");
    check(Language::C, &fact("    return n <= 1 ? 1 : n * fact(n - 1);"), &[]);
    check(Language::C, &fact("    long f = 1;\n    while (n > 1) f *= n--;\n    return f;"), &["uses no recursion (the assignment requires it)"]);
    check(
        Language::C,
        "#include <stdio.h>\nint main(void) {\n    long f = 1;\n    for (int i = 2; i <= 5; i++) f *= i;\n    printf(\"%ld\\n\", f);\n    return 0;\n}\n",
        &["uses no recursion (the assignment requires it)", "defines no function `fact` (the assignment requires it)"],
    );
    let stack = "#include <cstdio>\n#include <vector>\nclass Stack {\n    std::vector<int> items;\npublic:\n    void push(int x) { items.push_back(x); }\n    int pop() { int x = items.back(); items.pop_back(); return x; }\n};\nint main() {\n    Stack s;\n    s.push(4);\n    printf(\"%d\\n\", s.pop());\n}\n";
    check(Language::Cpp, stack, &[]);
    check(
        Language::Cpp,
        "#include <iostream>\n#include <vector>\nint main() {\n    std::vector<int> s{4};\n    std::cout << s.back() << \"\\n\";\n}\n",
        &["defines no class `Stack` (the assignment requires it)", "never calls `printf` (the assignment requires it)"],
    );
    check(
        Language::Rust,
        "struct Stack {\n    items: Vec<u64>,\n}\nimpl Stack {\n    fn push(&mut self, x: u64) {\n        self.items.push(x);\n    }\n}\nfn fact(n: u64) -> u64 {\n    if n <= 1 { 1 } else { n * fact(n - 1) }\n}\nfn main() {\n    let mut s = Stack { items: Vec::new() };\n    s.push(fact(5));\n    println!(\"{}\", s.items[0]);\n}\n",
        &[],
    );
    check(
        Language::Rust,
        "fn main() {\n    let f: u64 = (1..=5).product();\n    println!(\"{f}\");\n}\n",
        &["uses no recursion (the assignment requires it)", "defines no class `Stack` (the assignment requires it)"],
    );
    check(
        Language::Python,
        "import heapq\n\nclass Stack:\n    def __init__(self):\n        self.items = []\n\ndef depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\n\nprint(depth(3))\n",
        &[],
    );
    check(
        Language::Python,
        "def depth(n):\n    d = 0\n    while n:\n        n, d = n - 1, d + 1\n    return d\n\nprint(depth(3))\n",
        &[
            "uses no recursion (the assignment requires it)",
            "defines no class `Stack` (the assignment requires it)",
            "does not import `heapq` (the assignment requires it)",
        ],
    );
}
