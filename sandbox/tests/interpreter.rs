//! Programs run by an interpreter: bugrank's CPython (`toolchain/python/`), snapshotted
//! once, each program compiled once, every run from the snapshot.

use std::sync::{Arc, OnceLock};

use sandbox::{Choices, Interpreter, InterpreterSpec, Limits, Outcome, Program, Run, Sandbox};

const PYTHON: &[u8] = include_bytes!("../../toolchain/python/python.wasm");
const STDLIB: &[u8] = include_bytes!("../../toolchain/python/python313.zip");

fn sandbox() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(|| Sandbox::new().unwrap().with_reset_checks())
}

fn python() -> &'static Arc<Interpreter> {
    static PYTHON_READY: OnceLock<Arc<Interpreter>> = OnceLock::new();
    PYTHON_READY.get_or_init(|| {
        let spec = InterpreterSpec { name: "CPython 3.13.5", module: PYTHON, library: &[("python313.zip", STDLIB)], library_dir: "/usr/local/lib" };
        sandbox().interpreter(&spec).unwrap()
    })
}

fn compile(source: &str) -> Result<Program, String> {
    sandbox().load_interpreted(python(), "a01.py", source.as_bytes()).unwrap()
}

fn run(source: &str, input: &str) -> Run {
    let program = compile(source).unwrap_or_else(|message| panic!("does not compile: {message}"));
    sandbox().run(&program, input.as_bytes(), &Limits::default()).unwrap()
}

/// Runs `source` on `input`: `expected` outcome and stdout.
fn check(source: &str, input: &str, expected: Outcome, stdout: &str) -> Run {
    let run = run(source, input);
    assert_eq!(run.outcome, expected, "stderr: {}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(String::from_utf8_lossy(&run.stdout), stdout);
    run
}

#[test]
fn a_python_program_reads_stdin_and_writes_stdout() {
    check("n = int(input())\nprint(n * 2)\n", "21\n", Outcome::Exited(0), "42\n");
    check("import sys\nprint(sum(map(int, sys.stdin.read().split())))\n", "1 2\n3\n", Outcome::Exited(0), "6\n");
}

#[test]
fn a_python_program_that_fails_before_it_reads_has_not_asked_for_its_input() {
    assert!(run("n = int(input())\nprint(n)\n", "").read_input, "input() at the end of the input still asks");
    let early = check("print(undefined)\nn = int(input())\n", "7\n", Outcome::Uncaught("NameError: name 'undefined' is not defined".into()), "");
    assert!(!early.read_input);
    assert!(!run("print(42)\n", "7\n").read_input);
}

#[test]
fn every_run_starts_from_the_same_state() {
    let program = compile("import random\nx = [0]\nx.append(random.random())\nprint(len(x), x[1])\n").unwrap();
    let first = sandbox().run(&program, b"", &Limits::default()).unwrap();
    let second = sandbox().run(&program, b"", &Limits::default()).unwrap();
    assert_eq!(first, second, "the same output, the same fuel");
    assert!(first.stdout.starts_with(b"2 0."));
}

#[test]
fn a_python_run_never_sees_what_an_earlier_python_program_left() {
    // Every Python program is the same interpreter module, so they share its instance
    // slots: one program's objects must be gone when the next starts in the slot.
    let leaves = compile(
        "import builtins, sys\nbuiltins.leak = 'SECRET'\nsys.modules['leaky'] = builtins\nkept = ['SECRET-%d' % i for i in range(2000)]\nprint('left')\n",
    )
    .unwrap();
    let looks = compile(
        "import builtins, gc, sys\nfound = any(isinstance(o, list) and o and isinstance(o[0], str) and o[0].startswith('SECRET') for o in gc.get_objects())\n\
         print(hasattr(builtins, 'leak'), 'leaky' in sys.modules, found)\n",
    )
    .unwrap();
    for round in 0..10 {
        let left = sandbox().run(&leaves, b"", &Limits::default()).unwrap();
        assert_eq!((&left.outcome, String::from_utf8_lossy(&left.stdout)), (&Outcome::Exited(0), "left\n".into()), "{}", String::from_utf8_lossy(&left.stderr));
        let run = sandbox().run(&looks, b"", &Limits::default()).unwrap();
        assert_eq!(String::from_utf8_lossy(&run.stdout), "False False False\n", "round {round}");
    }
}

#[test]
fn exit_statuses_are_python_s() {
    check("import sys\nprint('a')\nsys.exit(3)\n", "", Outcome::Exited(3), "a\n");
    check("exit()\n", "", Outcome::Exited(0), "");
    let run = check("import sys\nsys.exit('bad input')\n", "", Outcome::Exited(1), "");
    assert_eq!(run.stderr, b"bad input\n");
}

#[test]
fn an_uncaught_exception_is_its_line_with_the_traceback_on_stderr() {
    let run =
        check("print('before')\nx = 0\nprint(1 // x)\n", "", Outcome::Uncaught("ZeroDivisionError: integer division or modulo by zero".into()), "before\n");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(
        stderr,
        "Traceback (most recent call last):\n  File \"a01.py\", line 3, in <module>\n    print(1 // x)\nZeroDivisionError: integer division or modulo by zero\n",
        "the lines of the calls, without the carets under them"
    );
    check("input()\n", "", Outcome::Uncaught("EOFError: EOF when reading a line".into()), "");
}

#[test]
fn a_traceback_written_quickly_is_the_one_the_traceback_module_writes() {
    // tracebacks.py ends programs in every kind of exception a hand-in raises, and prints
    // for each whether _bugrank.quick_traceback wrote what the traceback module writes.
    let program = compile(include_str!("tracebacks.py")).unwrap();
    let run = sandbox().run(&program, b"", &Limits { fuel: 2_000_000_000, ..Limits::default() }).unwrap();
    assert_eq!(run.outcome, Outcome::Exited(0), "{}", String::from_utf8_lossy(&run.stderr));
    let stdout = String::from_utf8_lossy(&run.stdout);
    let named = |result: &str| stdout.lines().filter_map(|line| line.strip_suffix(result)).collect::<Vec<_>>();
    let declined = ["chained_context", "chained_cause", "suppressed", "notes", "group", "syntax", "tracebacklimit"];
    assert_eq!(named(" declined"), declined, "the traceback module writes these: {stdout}");
    assert_eq!(named(" same").len(), 36, "every other case written quickly, as the module writes it: {stdout}");
    assert_eq!(stdout.lines().count(), 36 + declined.len(), "{stdout}");
}

#[test]
fn syntax_errors_and_impossible_imports_are_the_compiler_s_refusal() {
    let refused = |source: &str| compile(source).err().unwrap_or_else(|| panic!("compiles: {source}"));
    assert_eq!(refused("print('a'\n"), "  File \"a01.py\", line 1\n    print('a'\n         ^\nSyntaxError: '(' was never closed");
    assert!(refused("if True:\nprint(1)\n").ends_with("IndentationError: expected an indented block after 'if' statement on line 1"));
    assert_eq!(refused("import numpy\n"), "  File \"a01.py\", line 1\n    import numpy\nModuleNotFoundError: No module named 'numpy'");
    assert!(refused("x = 1\nimport tkinter\n").starts_with("  File \"a01.py\", line 2\n    import tkinter\nModuleNotFoundError"));
    assert!(refused("from math import sqroot\n").ends_with("ImportError: cannot import name 'sqroot' from 'math'"));
    // A program may try an import and do without it.
    assert!(compile("try:\n    import numpy\nexcept ImportError:\n    numpy = None\nprint(numpy)\n").is_ok());
}

#[test]
fn nothing_of_the_host_reaches_a_python_program() {
    let run = |source: &str| run(source, "");
    let said = |run: Run| match run.outcome {
        Outcome::Uncaught(line) => line,
        other => panic!("{other:?}: {}", String::from_utf8_lossy(&run.stdout)),
    };
    // (No directory is preopened in a run: wasi-libc finds no file under any path.)
    let no_files = "FileNotFoundError: [Errno 44] No such file or directory";
    assert_eq!(said(run("open('/etc/passwd').read()\n")), format!("{no_files}: '/etc/passwd'"));
    assert_eq!(said(run("open('/proc/self/environ').read()\n")), format!("{no_files}: '/proc/self/environ'"));
    assert!(said(run("open('/usr/local/lib/x', 'w')\n")).contains("Error"));
    assert_eq!(said(run("import os\nos.system('ls')\n")), "AttributeError: module 'os' has no attribute 'system'");
    assert_eq!(said(run("import subprocess\nsubprocess.run(['ls'])\n")), "OSError: [Errno 58] wasi does not support processes.");
    assert_eq!(said(run("import socket\nsocket.socket()\n")), "OSError: [Errno 58] Not supported");
    assert_eq!(said(run("import threading\nthreading.Thread(target=print).start()\n")), "RuntimeError: can't start new thread");
    assert!(said(run("import os\nos.listdir('/usr/local/lib')\n")).contains("Error"), "the library is not a file during runs");
    assert!(said(run("import os\nos.listdir('/')\n")).contains("Error"));
    check("import os\nprint(dict(os.environ))\n", "", Outcome::Exited(0), "{}\n");
    check("import time\nprint(int(time.time()))\n", "", Outcome::Exited(0), "946684800\n");
}

#[test]
fn limits_hold_for_python_as_for_modules() {
    assert_eq!(run("while True:\n    pass\n", "").outcome, Outcome::Timeout);
    assert_eq!(run("x = [0] * (10**8)\n", "").outcome, Outcome::OutOfMemory);
    // (Every byte a run writes is marked, and fuel counts the marks: filling 64 MiB a
    // store at a time takes more than the default fuel; the memory limit is what is
    // tested here.)
    let bomb = compile("x = []\nwhile True:\n    x.append('a' * 10**6)\n").unwrap();
    let fuel = Limits { fuel: 1_000_000_000, ..Limits::default() };
    assert_eq!(sandbox().run(&bomb, b"", &fuel).unwrap().outcome, Outcome::OutOfMemory);
    assert_eq!(run("while True:\n    print('flood' * 100)\n", "").outcome, Outcome::OutputLimit);
    let recursed = run("def f(n):\n    return f(n + 1)\nf(0)\n", "");
    assert_eq!(recursed.outcome, Outcome::Uncaught("RecursionError: maximum recursion depth exceeded".into()));
    let traceback = String::from_utf8_lossy(&recursed.stderr);
    assert!(traceback.starts_with("Traceback (most recent call last):\n  (979 earlier calls left out)\n"), "{traceback}");
    assert_eq!(traceback.matches("line 2, in f").count(), 3, "the last calls, the repeated ones folded as Python folds them: {traceback}");
}

/// Choices replayed from a list, then zeros, as the grader's are.
struct Replay(Vec<u64>, usize);

impl Choices for Replay {
    fn choice(&mut self, max: u64) -> Option<u64> {
        let value = self.0.get(self.1).copied().unwrap_or(0).min(max);
        self.1 += 1;
        Some(value)
    }
    fn size(&self) -> u32 {
        30
    }
}

#[test]
fn a_python_generator_makes_its_choices_through_the_host() {
    let generator = compile("import bugrank_gen as g\nxs = g.vec_of(5, g.small_int)\ng.emit(' '.join(map(str, xs)) + '\\n')\n").unwrap();
    let generate = |choices: Vec<u64>| {
        let (run, replay) = sandbox().generate(&generator, Replay(choices, 0), &Limits::default()).unwrap();
        assert_eq!(run.outcome, Outcome::Exited(0), "{}", String::from_utf8_lossy(&run.stderr));
        (String::from_utf8(run.stdout).unwrap(), replay.1)
    };
    // "continue?" then an element (choice 2 of -10..=10 is -1), twice, then stop.
    assert_eq!(generate(vec![1, 2, 1, 3, 0]), ("-1 2\n".to_owned(), 5));
    assert_eq!(generate(Vec::new()), ("\n".to_owned(), 1));
    // A program that is not a generator gets no choices: asking ends its run.
    let asked = run("import bugrank_gen\nbugrank_gen.choice(3)\n", "");
    assert!(matches!(asked.outcome, Outcome::Trap(ref m) if m.contains("more choices than allowed")), "{:?}", asked.outcome);
}

#[test]
fn the_committed_interpreter_holds_the_current_sources_of_bugrank_s_side() {
    // `toolchain/python/build.sh` records the sha256 of the files of ours it builds in;
    // a change to one of them not yet built (and committed) fails here.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../toolchain/python");
    let recorded = std::fs::read_to_string(dir.join("sources.txt")).unwrap();
    let mut files = 0;
    for line in recorded.lines() {
        let (hash, file) = line.split_once("  ").unwrap();
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let now: String = <sha2::Sha256 as sha2::Digest>::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(now, hash, "{file} changed since python.wasm and python313.zip were built: run toolchain/python/build.sh and commit");
        files += 1;
    }
    assert_eq!(files, 4, "bugrank_python.c, _bugrank.py, bugrank_gen.py and bugrank_harness.py");
}

#[test]
fn a_python_harness_writes_the_judged_output_and_the_hand_ins_prints_are_kept_apart() {
    let harness = b"import sys\nimport answer\nfrom bugrank_harness import out\nfor line in sys.stdin:\n    out(answer.double(int(line)))\n";
    let program = sandbox()
        .load_harnessed(python(), "mine.py", b"def double(n):\n    print('doubling', n)\n    return 2 * n\n", Some(("harness.py", harness)))
        .unwrap()
        .unwrap();
    let run = sandbox().run(&program, b"1\n5\n", &Limits::default()).unwrap();
    assert_eq!(run.outcome, Outcome::Exited(0), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(String::from_utf8_lossy(&run.stdout), "2\n10\n");
    assert_eq!(String::from_utf8_lossy(&run.printed), "doubling 1\ndoubling 5\n");
    // An exception in the hand-in is shown in its own file's lines.
    let failing = sandbox().load_harnessed(python(), "mine.py", b"def double(n):\n    return 2 * n // 0\n", Some(("harness.py", harness))).unwrap().unwrap();
    let run = sandbox().run(&failing, b"1\n", &Limits::default()).unwrap();
    let traceback = String::from_utf8_lossy(&run.stderr);
    assert!(matches!(run.outcome, Outcome::Uncaught(ref line) if line == "ZeroDivisionError: integer division or modulo by zero"), "{:?}", run.outcome);
    assert!(traceback.contains("File \"mine.py\", line 2, in double\n    return 2 * n // 0"), "{traceback}");
}

#[test]
fn a_python_harness_writes_with_out_as_print_does_built_in_and_checked() {
    // `out` is bugrank_harness.py's `out`, in C in bugrank's CPython: the same output.
    let harness = b"import answer\nfrom bugrank_harness import out, write\nout(1, 'a', None, [2.5], sep=',', end=';\\n')\nout()\nout('\xc3\xa9t\xc3\xa9', answer.double(3))\nwrite('w\\n')\nout(1, 2, sep='')\n";
    let program = sandbox().load_harnessed(python(), "mine.py", b"def double(n):\n    return 2 * n\n", Some(("harness.py", harness))).unwrap().unwrap();
    let run = sandbox().run(&program, b"", &Limits::default()).unwrap();
    assert_eq!(run.outcome, Outcome::Exited(0), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(String::from_utf8_lossy(&run.stdout), "1,a,None,[2.5];\n\n\u{e9}t\u{e9} 6\nw\n12\n");
    for (call, error) in [
        ("out(1, sep=None)", "TypeError: out(): sep and end must be str, not NoneType"),
        ("out(1, flush=True)", "TypeError: out() got an unexpected keyword argument 'flush'"),
    ] {
        let harness = format!("import answer\nfrom bugrank_harness import out\n{call}\n");
        let program =
            sandbox().load_harnessed(python(), "mine.py", b"def double(n):\n    return 2 * n\n", Some(("harness.py", harness.as_bytes()))).unwrap().unwrap();
        let run = sandbox().run(&program, b"", &Limits::default()).unwrap();
        assert_eq!(run.outcome, Outcome::Uncaught(error.to_owned()), "{call}");
    }
}

/// The doubling harness of the test above, with `hand_in` as its answer, run on three
/// numbers: the run's outcome, judged output and the hand-in's own prints.
fn doubled(hand_in: &str) -> (Outcome, String, String) {
    let harness = b"import sys\nimport answer\nfrom bugrank_harness import out\nfor line in sys.stdin:\n    out(answer.double(int(line)))\n";
    let program = sandbox().load_harnessed(python(), "mine.py", hand_in.as_bytes(), Some(("harness.py", harness))).unwrap().unwrap();
    let run = sandbox().run(&program, b"1\n5\n7\n", &Limits::default()).unwrap();
    (run.outcome, String::from_utf8_lossy(&run.stdout).into_owned(), String::from_utf8_lossy(&run.printed).into_owned())
}

const REFUSED: &str = "the hand-in wrote the judged output itself";

#[test]
fn a_python_hand_in_that_writes_the_judged_output_itself_fails_whatever_it_catches() {
    // Right answers, written by the first call, which then reads the rest of the input
    // and returns nothing more: the functions are wrong.
    let writes_all = "import sys\nfrom bugrank_harness import out\ndef double(n):\n    out(2 * n)\n    for line in sys.stdin:\n        out(2 * int(line))\n    return None\n";
    let (outcome, _, _) = doubled(writes_all);
    assert!(matches!(outcome, Outcome::Uncaught(ref line) if line.starts_with(REFUSED)), "{outcome:?}");
    // Through the built-in output itself, or a function of the harness made afresh.
    for writer in [
        "import _bugrank_gen\ndef double(n):\n    _bugrank_gen.output(b'%d\\n' % (2 * n))\n    return 0\n",
        "import types, bugrank_harness\nw = types.FunctionType(bugrank_harness.write.__code__, dict(vars(bugrank_harness)))\ndef double(n):\n    try:\n        w(b'%d\\n' % (2 * n))\n    except Exception:\n        pass\n    return 0\n",
        // From an atexit function, after the harness has ended.
        "import atexit\nfrom bugrank_harness import out\natexit.register(out, '2\\n10\\n14')\ndef double(n):\n    return 0\n",
        // Through the harness library's own names or the built-ins it uses, patched.
        "import bugrank_harness, _bugrank_gen\nbugrank_harness.out = lambda *v: _bugrank_gen.output(b'%d\\n' % (2 * v[0]))\ndef double(n):\n    return n\n",
        "import builtins\nbuiltins.isinstance = lambda value, kind: True\ndef double(n):\n    return 2 * n\n",
    ] {
        let (outcome, stdout, _) = doubled(writer);
        assert!(matches!(outcome, Outcome::Uncaught(ref line) if line.starts_with(REFUSED)), "{writer}\n{outcome:?} {stdout:?}");
    }
    // A hand-in that ends the run itself after writing: a crash.
    let (outcome, _, _) = doubled(&writes_all.replace("return None", "import os\n    os._exit(0)"));
    assert!(matches!(outcome, Outcome::Trap(ref why) if why.contains("os._exit")), "{outcome:?}");
    // And an honest one, with prints left in and an atexit function of its own, passes.
    let honest = "import atexit, builtins\nbuiltins.len = len\natexit.register(print, 'bye')\ndef double(n):\n    print('doubling', n)\n    return 2 * n\n";
    assert_eq!(doubled(honest), (Outcome::Exited(0), "2\n10\n14\n".to_owned(), "doubling 1\ndoubling 5\ndoubling 7\nbye\n".to_owned()));
}

#[test]
fn sys_exit_gives_the_status_cpython_gives_natively_and_atexit_functions_run_within_the_budget() {
    for (code, status) in [("2**70", 255), ("-1", 255), ("256", 0), ("2**40", 0), ("2**63", 255), ("-2**63", 0), ("True", 1)] {
        check(&format!("import sys\nsys.exit({code})\n"), "", Outcome::Exited(status), "");
    }
    check("import atexit\natexit.register(print, 'at exit')\nprint('main')\n", "", Outcome::Exited(0), "main\nat exit\n");
    check("import atexit, sys\natexit.register(print, 'at exit')\nsys.exit(3)\n", "", Outcome::Exited(3), "at exit\n");
    let looping = run("import atexit\ndef forever():\n    while True:\n        pass\natexit.register(forever)\nprint(42)\n", "");
    assert_eq!(looping.outcome, Outcome::Timeout, "as natively, the program never ends");
}

/// Whether `a` and `b` (each a file name and source) compile to programs with the same code.
fn same_code(a: (&str, &str), b: (&str, &str)) -> bool {
    let compiled = |(name, source): (&str, &str)| sandbox().load_interpreted(python(), name, source.as_bytes()).unwrap().unwrap();
    compiled(a).same_code() == compiled(b).same_code()
}

#[test]
fn python_programs_that_differ_in_comments_spacing_blank_lines_and_file_name_have_the_same_code() {
    let original = "def search(x, seq):\n    lo, hi = 0, len(seq)  # the range\n    while lo < hi:\n        mid = (lo + hi) // 2\n        if seq[mid] == x:\n            return mid\n        lo = mid + 1\n    return -1\n";
    let restyled = "# my search\n\n\ndef search(x,seq):\n    lo,hi=0,len(seq)\n\n    while lo<hi:\n        mid=(lo+hi)//2\n        if seq[mid]==x: return mid\n        lo=mid+1\n    return -1  # absent\n";
    assert!(same_code(("s001.py", original), ("s002.py", restyled)));
    // What runs differently is other code: a constant, a name, an operator, a docstring.
    for other in [
        original.replace("return -1", "return -2"),
        original.replace("mid", "middle"),
        original.replace("lo < hi", "lo <= hi"),
        original.replace("def search(x, seq):\n", "def search(x, seq):\n    \"\"\"Binary search.\"\"\"\n"),
    ] {
        assert!(!same_code(("s001.py", original), ("s001.py", &other)), "{other}");
    }
    // A module's code and its runs: the same program gives the same run whatever its comments.
    let restyled_program = compile(&format!("{restyled}\nprint(search(3, (1, 3)))\n")).unwrap();
    let original_program = compile(&format!("{original}\nprint(search(3, (1, 3)))  # prints 1\n")).unwrap();
    assert_eq!(original_program.same_code(), restyled_program.same_code());
    assert_ne!(original_program.hash(), restyled_program.hash(), "the hash is still of the compiled program, lines and all");
    let run = |program: &Program| sandbox().run(program, b"", &Limits::default()).unwrap();
    let (original_run, restyled_run) = (run(&original_program), run(&restyled_program));
    assert_eq!((&original_run.outcome, &original_run.stdout), (&restyled_run.outcome, &restyled_run.stdout));
    // Only loading the longer source and line tables costs a little more.
    let (low, high) = (original_run.fuel_used.min(restyled_run.fuel_used), original_run.fuel_used.max(restyled_run.fuel_used));
    assert!(high - low < low / 100, "{low} and {high}");
}

/// A sandbox that runs every program whole (none prepared), with the same interpreter.
fn whole_runs() -> &'static (Sandbox, Arc<Interpreter>) {
    static WHOLE: OnceLock<(Sandbox, Arc<Interpreter>)> = OnceLock::new();
    WHOLE.get_or_init(|| {
        let sandbox = Sandbox::new().unwrap().without_preparation();
        let spec = InterpreterSpec { name: "CPython 3.13.5", module: PYTHON, library: &[("python313.zip", STDLIB)], library_dir: "/usr/local/lib" };
        let python = sandbox.interpreter(&spec).unwrap();
        (sandbox, python)
    })
}

#[test]
fn a_prepared_hand_in_runs_as_it_runs_whole_on_every_input_whatever_it_does_when_loaded() {
    // The hand-in's module runs once for all its runs (prepared): every run must still be
    // the run it is whole, whatever the module does when it is loaded and whatever a run
    // leaves behind.
    let harness = b"import sys\nimport answer\nfrom bugrank_harness import out\nfor line in sys.stdin:\n    out(answer.double(int(line)))\n";
    let hand_ins = [
        ("plain", "def double(n):\n    return 2 * n\n"),
        ("global state", "calls = 0\ndef double(n):\n    global calls\n    calls += 1\n    return 2 * n + calls\n"),
        ("a default argument mutated", "def double(n, seen=[]):\n    seen.append(n)\n    return 2 * n + len(seen)\n"),
        ("prints left in when loaded", "print('loading my answer')\ndef double(n):\n    print('doubling', n)\n    return 2 * n\n"),
        ("a table built when loaded", "TABLE = {i: 2 * i for i in range(50_000)}\ndef double(n):\n    return TABLE.get(n, 2 * n)\n"),
        ("random when loaded", "import random\nSALT = random.random()\ndef double(n):\n    return 2 * n if SALT < 2 else 0\n"),
        ("raises when loaded", "def double(n):\n    return 2 * n\nraise ValueError('not ready')\n"),
        ("exits when loaded", "import sys\ndef double(n):\n    return 2 * n\nsys.exit(4)\n"),
        ("writes to stderr when loaded", "import sys\nprint('debug', file=sys.stderr)\ndef double(n):\n    return 2 * n\n"),
        ("changes a built-in", "import builtins\nbuiltins.int = lambda s: 3\ndef double(n):\n    return 2 * n\n"),
        ("an atexit function", "import atexit\natexit.register(print, 'bye')\ndef double(n):\n    return 2 * n\n"),
        ("loops when loaded", "while True:\n    pass\ndef double(n):\n    return 2 * n\n"),
        ("crashes on a call", "def double(n):\n    return 2 * n // (n - 5)\n"),
    ];
    let limits = Limits { fuel: 50_000_000, ..Limits::default() };
    let (whole, whole_python) = whole_runs();
    for (what, source) in hand_ins {
        let prepared = sandbox().load_harnessed(python(), "mine.py", source.as_bytes(), Some(("harness.py", harness))).unwrap().unwrap();
        let every_time = whole.load_harnessed(whole_python, "mine.py", source.as_bytes(), Some(("harness.py", harness))).unwrap().unwrap();
        for input in ["1\n5\n7\n", "", "5\n", "2\n3\n"] {
            // Twice each: a second run starts where the first did, not where it ended.
            for round in 0..2 {
                let (got, expected) =
                    (sandbox().run(&prepared, input.as_bytes(), &limits).unwrap(), whole.run(&every_time, input.as_bytes(), &limits).unwrap());
                let at = format!("{what}, input {input:?}, round {round}");
                assert_eq!((&got.outcome, &got.stdout, &got.printed), (&expected.outcome, &expected.stdout, &expected.printed), "{at}");
                assert_eq!((String::from_utf8_lossy(&got.stderr), got.read_input), (String::from_utf8_lossy(&expected.stderr), expected.read_input), "{at}");
                // The prepared part is charged to every run: within a call or two of the whole run's fuel.
                let (a, b) = (got.fuel_used as f64, expected.fuel_used as f64);
                assert!((a - b).abs() <= 0.02 * b + 2_000.0, "{at}: {a} fuel prepared, {b} whole");
            }
        }
    }
}

#[test]
fn a_kept_instance_starts_every_run_as_a_new_one_whatever_the_last_run_did() {
    // Python runs share kept instances (every run after the first takes one and puts
    // back what the last run wrote): a probe run between every two others must be the
    // run it was the first time, and every reset is compared with a new instance's
    // state byte for byte (`with_reset_checks`, which `sandbox()` has).
    let harness = b"import sys\nimport answer\nfrom bugrank_harness import out\nfor line in sys.stdin:\n    out(answer.f(int(line)))\n";
    let probe = sandbox()
        .load_harnessed(python(), "probe.py", b"seen = []\ndef f(n):\n    seen.append(n)\n    return sum(seen)\n", Some(("harness.py", harness)))
        .unwrap()
        .unwrap();
    let limits = Limits { fuel: 200_000_000, ..Limits::default() };
    let kept_before = python().kept_runs();
    let first = sandbox().run(&probe, b"1\n2\n", &limits).unwrap();
    assert_eq!(first.stdout, b"1\n3\n");
    let others: [(&str, &str, String); 9] = [
        ("writes much", "kept = [str(i) * 3 for i in range(200_000)]\nprint(len(kept))\n", String::new()),
        ("reads a large input", "import sys\ndata = sys.stdin.read()\nprint(len(data))\n", "7 ".repeat(15_000)),
        ("grows its memory", "x = bytearray(40 << 20)\nprint(len(x))\n", String::new()),
        ("runs out of fuel while writing", "x = []\nwhile True:\n    x.append([1] * 1000)\n", String::new()),
        ("overflows the stack", "import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1) + 1\nf(0)\n", String::new()),
        (
            "asks WASI for files and clocks",
            "import os, time\ntry:\n    open('/tmp/x')\nexcept OSError as e:\n    print(e)\nprint(time.monotonic())\n",
            String::new(),
        ),
        ("draws random bytes", "import os\nprint(sum(os.urandom(100_000)))\n", String::new()),
        ("crashes with an exception", "d = {}\nfor i in range(10_000):\n    d[i] = i\nraise KeyError('x')\n", String::new()),
        ("exits", "import sys\nprint('bye')\nsys.exit(3)\n", String::new()),
    ];
    for (what, source, input) in others {
        let program = compile(source).unwrap();
        let run = sandbox().run(&program, input.as_bytes(), &limits).unwrap();
        assert!(!run.stdout.is_empty() || !run.outcome.is_success(), "{what}: {run:?}");
        let again = sandbox().run(&program, input.as_bytes(), &limits).unwrap();
        assert_eq!(run, again, "{what}: the same run twice");
        assert_eq!(sandbox().run(&probe, b"1\n2\n", &limits).unwrap(), first, "the probe after a program that {what}");
    }
    assert!(python().kept_runs() > kept_before, "runs started in kept instances");
}

#[test]
fn a_python_programs_clocks_count_its_instructions_and_its_sleeps_are_on_the_wall_clock_only() {
    let limits = Limits { fuel: 2_000_000_000, ..Limits::default() };
    let program = compile("import time\nstart = time.monotonic()\ntime.sleep(0.5)\nprint(round(time.monotonic() - start, 2), int(time.time()))\n").unwrap();
    let run = sandbox().run(&program, b"", &limits).unwrap();
    assert_eq!((run.outcome.clone(), String::from_utf8_lossy(&run.stdout).into_owned()), (Outcome::Exited(0), "0.5 946684800\n".to_owned()));
    assert!(run.fuel_used < 100_000_000, "{}", run.fuel_used);
    assert_eq!(sandbox().run(&program, b"", &limits).unwrap(), run, "the same run, fuel and all");
    // Its wall limit is 2 × 2 s + 1 s.
    let program = compile("import time\ntime.sleep(4.9)\nprint('awake')\n").unwrap();
    assert_eq!(sandbox().run(&program, b"", &limits).unwrap().stdout, b"awake\n");
    let program = compile("import time\ntime.sleep(5)\n").unwrap();
    assert_eq!(sandbox().run(&program, b"", &limits).unwrap().outcome, Outcome::Timeout);
}
