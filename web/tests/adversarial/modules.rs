//! Hostile modules, each graded by `bugrank grade` in a batch with one honest submission:
//! the batch must be graded, the honest submission with it, and the hostile one must end
//! with the outcome it earns (or be rejected, naming why) within the bounds.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use wasm_encoder::{
    BlockType, CodeSection, EntityType, ExportKind, ExportSection, Function, FunctionSection, ImportSection, MemArg, MemorySection, MemoryType, Module,
    TypeSection,
};

use crate::measure::measure;
use crate::{Case, Measured};

/// What must become of the hostile submission `x`.
#[derive(Clone, Copy)]
pub(crate) enum Expect {
    /// Graded, failing every test it fails with this kind of failure (`wrong`, `crash`,
    /// `timeout`, `memory` or `output`), and at least one.
    Fails(&'static str),
    /// Not graded, with a reason containing this.
    Rejected(&'static str),
    /// Graded as not built: its build error contains this.
    NotBuilt(&'static str),
}

/// A problem a batch is graded on, with the honest submission graded beside the hostile
/// one (a file of the problem's `submissions`).
#[derive(Clone, Copy)]
pub(crate) struct Batch {
    problem: fn() -> PathBuf,
    honest: &'static str,
}

/// The problem most batches are graded on: the quickest fixture.
const INTERVAL_SETS: Batch = Batch { problem: || crate::common::fixture("interval-sets"), honest: "a01.wasm" };

/// The real-class-like cohort, whose bugs include one that needs a long input (101
/// scores): graded from C sources, beside a correct version.
const SCORES: Batch = Batch { problem: || crate::common::root().join("fixtures/cohorts/scores"), honest: "v004.c" };

/// The function-level problem: a hand-in is functions the course's C harness calls.
const LRU_CACHE: Batch = Batch { problem: || crate::common::fixture("lru-cache"), honest: "a01.c" };

/// LRU_CACHE with a Python harness too (written here, in a folder made once): Python
/// hand-ins of the same functions, `lru_init`, `lru_put`, `lru_get`, `lru_size`.
const LRU_CACHE_PYTHON: Batch = Batch { problem: lru_cache_with_python, honest: "a01.c" };

/// An interactive problem: `fixtures/packages/treasure` imported (once, into a folder
/// made here); each program talks with the package's interactor.
const TREASURE: Batch = Batch { problem: treasure, honest: "correct-upper_half.c" };

fn treasure() -> PathBuf {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        course::import::import_package(&crate::common::root().join("fixtures/packages/treasure"), &dir.path().join("treasure")).unwrap();
        dir
    });
    dir.path().join("treasure")
}

fn lru_cache_with_python() -> PathBuf {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let from = crate::common::fixture("lru-cache");
        for file in ["problem.toml", "statement.md", "generator.wasm", "reference.c", "harness.c", "interface.h"] {
            std::fs::copy(from.join(file), dir.path().join(file)).unwrap();
        }
        std::fs::create_dir(dir.path().join("submissions")).unwrap();
        std::fs::copy(from.join("submissions/a01.c"), dir.path().join("submissions/a01.c")).unwrap();
        let toml = std::fs::read_to_string(from.join("problem.toml")).unwrap().replace(r#"languages = ["c", "rust"]"#, r#"languages = ["c", "python"]"#);
        std::fs::write(dir.path().join("problem.toml"), toml).unwrap();
        std::fs::write(dir.path().join("harness.py"), LRU_PYTHON_HARNESS).unwrap();
        dir
    });
    dir.path().to_owned()
}

/// The Python harness of LRU_CACHE_PYTHON: as `harness.c`.
const LRU_PYTHON_HARNESS: &str = r#"import sys
import answer
from bugrank_harness import out
for line in sys.stdin:
    words = line.split()
    if words[:1] == ['init']:
        answer.lru_init(int(words[1]))
        out('ok')
    elif words[:1] == ['put']:
        answer.lru_put(int(words[1]), int(words[2]))
        out('ok')
    elif words[:1] == ['get']:
        out(answer.lru_get(int(words[1])))
    elif words[:1] == ['size']:
        out(answer.lru_size())
    else:
        out('?', line, end='')
"#;

/// A Python hand-in of LRU_CACHE_PYTHON whose first call reads the rest of the input,
/// writes every right answer itself with the harness's library (a correct cache kept
/// aside) and ends the run: its functions do nothing.
const PYTHON_WRITES_ITS_OWN_VERDICT: &str = r#"import os, sys
from collections import OrderedDict
from bugrank_harness import out

def lru_init(capacity):
    cache = OrderedDict()
    out('ok')
    for line in sys.stdin:
        words = line.split()
        if words[0] == 'put':
            key, value = int(words[1]), int(words[2])
            cache[key] = value
            cache.move_to_end(key)
            if len(cache) > capacity:
                cache.popitem(last=False)
            out('ok')
        elif words[0] == 'get':
            key = int(words[1])
            if key in cache:
                cache.move_to_end(key)
            out(cache.get(key, -1))
        else:
            out(len(cache))
    os._exit(0)

def lru_put(key, value):
    pass

def lru_get(key):
    return -1

def lru_size():
    return 0
"#;

/// A hand-in of LRU_CACHE that writes the judged output itself from a constructor (the
/// harness library's `bh_printf`) and ends the run before the harness starts: its
/// functions do nothing.
const WRITES_ITS_OWN_VERDICT: &str = "#include <stdlib.h>\n#include \"bugrank_harness.h\"\n#include \"interface.h\"\n\
    __attribute__((constructor)) static void verdict(void) { bh_printf(\"ok\\n\"); exit(0); }\n\
    void lru_init(int capacity) { (void)capacity; }\nint lru_get(int key) { (void)key; return -1; }\n\
    void lru_put(int key, int value) { (void)key; (void)value; }\nint lru_size(void) { return 0; }\n";

/// Tests the search may go without finding anything new: enough for a suite of a few tests.
const STABLE_AFTER: &str = "200";

/// The same for a Python hand-in: its failures show on the simplest inputs.
const PYTHON_STABLE_AFTER: &str = "50";

/// The bounds of a case that ends in well under a second, using some 30 MB: a run that
/// waits in real time, or a module held or compiled when it should be refused, trips them.
const QUICK: (f64, u64) = (10.0, 150);

/// The bounds of an interactive case: the honest C answer, the C++ reference and the
/// interactor built (a few seconds of clang, in the jail), then dialogues on two threads.
const INTERACTIVE: (f64, u64) = (60.0, 300);

/// The bounds of grading a C hand-in whose bug needs a long input, next to a correct one:
/// compiling both, and a search whose suite test has 101 numbers; 2.6 s and 150 MB here.
/// Before a test's neighbourhood was bounded, one such hand-in took 17 GB in 50 s.
const LONG_INPUT: (f64, u64) = (20.0, 600);

/// The bounds of grading a function-level Python hand-in beside a C one: CPython's
/// snapshot is shared by the Python cases; a search whose every run of the hand-in
/// crashes early.
const PYTHON_HARNESSED: (f64, u64) = (60.0, 400);

/// The bounds of compiling the largest modules that pass: 15-20 s and up to 650 MB here.
const LARGEST_COMPILE: (f64, u64) = (60.0, 1_500);

/// A case grading `file` (made by `module`) on interval sets next to the honest
/// `a01.wasm`, within `(seconds, peak MB)`.
pub(crate) fn graded(name: &'static str, file: &'static str, module: fn() -> Vec<u8>, expect: Expect, bounds: (f64, u64)) -> Case {
    INTERVAL_SETS.graded(name, file, module, expect, bounds)
}

impl Batch {
    /// A case grading `file` (made by `module`) next to the batch's honest submission,
    /// within `(seconds, peak MB)`.
    fn graded(self, name: &'static str, file: &'static str, module: fn() -> Vec<u8>, expect: Expect, (max_seconds, max_peak_mb): (f64, u64)) -> Case {
        let Batch { problem, honest } = self;
        Case {
            name,
            max_seconds,
            max_peak_mb,
            run: Box::new(move || {
                let dir = tempfile::tempdir().unwrap();
                let submissions = dir.path().join("submissions");
                std::fs::create_dir(&submissions).unwrap();
                std::fs::copy(problem().join("submissions").join(honest), submissions.join(honest)).unwrap();
                std::fs::write(submissions.join(file), module()).unwrap();
                let out = dir.path().join("out");
                let mut command = Command::new(env!("CARGO_BIN_EXE_bugrank"));
                // Every case compiles its module: none is loaded compiled from an earlier run.
                // (A Python program is compiled to bytecode in every run of `bugrank grade`:
                // the cases share only bugrank's interpreter, snapshotted once.)
                command.env("BUGRANK_CACHE", if file.ends_with(".py") { python_cache() } else { "off".into() });
                // (Python cases search less: each of their runs costs tens of module runs.)
                let stable_after = if file.ends_with(".py") { PYTHON_STABLE_AFTER } else { STABLE_AFTER };
                command
                    .args(["grade", "--stable-after", stable_after, "--problem"])
                    .arg(problem())
                    .arg("--submissions")
                    .arg(&submissions)
                    .arg("--out")
                    .arg(&out);
                let process = measure(command, Duration::from_secs_f64(max_seconds * crate::KILLED_PAST));
                assert_eq!(process.exit_code, Some(0), "bugrank grade must finish and succeed");
                let (seconds, peak_mb) = (process.cpu_seconds(), process.peak_mb);
                let analysis: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("analysis.json")).unwrap()).unwrap();
                let answers = analysis["answers"].as_array().unwrap();
                let honest_id = honest.rsplit_once('.').map_or(honest, |(stem, _)| stem);
                assert!(answers.iter().any(|a| a["id"] == honest_id), "the honest submission is graded");
                let hostile = answers.iter().find(|a| a["id"] == "x");
                let outcome = match (expect, hostile) {
                    (Expect::Fails(kind), Some(x)) => {
                        let failed = x["failed"].as_array().unwrap().len();
                        let of_kind = x["counts"][kind].as_u64().unwrap() as usize;
                        assert!(failed > 0 && of_kind == failed, "x should fail by {kind} only: {}", x["counts"]);
                        format!("{kind} on {failed} of {} tests", analysis["suite"].as_array().unwrap().len())
                    }
                    (Expect::Rejected(reason), None) => {
                        let rejected = analysis["rejected"].as_array().unwrap();
                        let found = rejected.iter().find(|r| r["file"] == file).unwrap_or_else(|| panic!("{file} is neither graded nor rejected"));
                        let said = found["reason"].as_str().unwrap();
                        assert!(said.contains(reason), "the reason `{said}` should say `{reason}`");
                        format!("rejected: {reason}")
                    }
                    (Expect::NotBuilt(error), Some(x)) => {
                        let said = x["build"]["error"].as_str().unwrap_or_else(|| panic!("x should not be built: {}", x["counts"]));
                        assert!(said.contains(error), "the build error `{said}` should say `{error}`");
                        format!("not built: {}", said.lines().last().unwrap_or(""))
                    }
                    (Expect::Fails(_) | Expect::NotBuilt(_), None) => panic!("x should be graded: {}", analysis["rejected"]),
                    (Expect::Rejected(_), Some(x)) => panic!("x should be rejected, and was graded: {}", x["counts"]),
                };
                Measured { outcome, seconds, peak_mb }
            }),
        }
    }
}

/// The cache directory the Python cases share: bugrank's interpreter is snapshotted once.
fn python_cache() -> std::ffi::OsString {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap()).path().as_os_str().to_owned()
}

const FD_WRITE: &str = r#"(import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))"#;
const FD_READ: &str = r#"(import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))"#;
const RANDOM_GET: &str = r#"(import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))"#;
const POLL_ONEOFF: &str = r#"(import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))"#;
const PROC_EXIT: &str = r#"(import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))"#;
const SCHED_YIELD: &str = r#"(import "wasi_snapshot_preview1" "sched_yield" (func $sched_yield (result i32)))"#;
const FD_FDSTAT_GET: &str = r#"(import "wasi_snapshot_preview1" "fd_fdstat_get" (func $fd_fdstat_get (param i32 i32) (result i32)))"#;
const FD_PRESTAT_GET: &str = r#"(import "wasi_snapshot_preview1" "fd_prestat_get" (func $fd_prestat_get (param i32 i32) (result i32)))"#;
const CLOCK_TIME_GET: &str = r#"(import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))"#;
const ARGS_SIZES_GET: &str = r#"(import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))"#;
const SOCK_ACCEPT: &str = r#"(import "wasi_snapshot_preview1" "sock_accept" (func (param i32 i32 i32) (result i32)))"#;

/// `_start` opening `/etc/passwd`, `../../etc/passwd` and `.`, reading their status and
/// listing folders, from every descriptor 0 to 15: it crashes if any call succeeds, else
/// ends with no answer.
fn opening_host_files() -> Vec<u8> {
    let imports = r#"
  (import "wasi_snapshot_preview1" "path_open" (func $open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_filestat_get" (func $stat (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_readdir" (func $readdir (param i32 i32 i32 i64 i32) (result i32)))
  (data (i32.const 2000) "/etc/passwd../../etc/passwd.")"#;
    let open = |path: u32, len: u32, oflags: u32| {
        format!(
            "(if (i32.eqz (call $open (local.get $fd) (i32.const 1) (i32.const {path}) (i32.const {len}) (i32.const {oflags}) (i64.const 0) (i64.const 0) (i32.const 0) (i32.const 3000))) (then unreachable))"
        )
    };
    let body = format!(
        "(local $fd i32) (loop $each {} {} {} \
         (if (i32.eqz (call $stat (local.get $fd) (i32.const 1) (i32.const 2000) (i32.const 11) (i32.const 3000))) (then unreachable)) \
         (if (i32.eqz (call $readdir (local.get $fd) (i32.const 4096) (i32.const 4096) (i64.const 0) (i32.const 3000))) (then unreachable)) \
         (local.set $fd (i32.add (local.get $fd) (i32.const 1))) (br_if $each (i32.lt_u (local.get $fd) (i32.const 16))))",
        open(2000, 11, 0),
        open(2011, 16, 0),
        open(2027, 1, 2)
    );
    command(imports, 1, &body)
}

/// A command in text: `imports`, `pages` of memory, and `_start` doing `body`.
pub fn command(imports: &str, pages: u32, body: &str) -> Vec<u8> {
    format!(r#"(module {imports} (memory (export "memory") {pages}) (func (export "_start") {body}))"#).into_bytes()
}

/// `_start` writing `length` bytes from address 16 to `fd`, `buffers` times per call, for ever.
pub fn flood(fd: u32, length: u32) -> Vec<u8> {
    command(
        FD_WRITE,
        2,
        &format!(
            "(i32.store (i32.const 0) (i32.const 16)) (i32.store (i32.const 4) (i32.const {length}))
                  (loop (drop (call $fd_write (i32.const {fd}) (i32.const 0) (i32.const 1) (i32.const 8))) (br 0))"
        ),
    )
}

/// `_start` making the host call `call` (of `import`) for ever, dropping its result.
pub fn calling_for_ever(import: &str, call: &str) -> Vec<u8> {
    command(import, 1, &format!("(loop (drop {call}) (br 0))"))
}

/// `_start` sleeping `nanoseconds` (a relative clock subscription), once or for ever.
pub fn sleep(nanoseconds: u64, for_ever: bool) -> Vec<u8> {
    let call = "(drop (call $poll_oneoff (i32.const 0) (i32.const 64) (i32.const 1) (i32.const 128)))";
    let body = if for_ever { format!("(loop {call} (br 0))") } else { call.to_owned() };
    // Subscription at 0: tag 0 (clock) at 8, clock id 1 (monotonic) at 16, timeout at 24,
    // flags 0 (relative) at 40.
    command(POLL_ONEOFF, 1, &format!("(i32.store (i32.const 16) (i32.const 1)) (i64.store (i32.const 24) (i64.const {nanoseconds})) {body}"))
}

/// A binary command: `copies` of `body` (type `() -> ()`) besides an empty `_start`, and
/// `sock_accept` imported if `forbidden`. Binary, because the largest of these would be
/// over the size limit as text.
fn binary(copies: u32, body: &Function, forbidden: bool) -> Vec<u8> {
    let mut types = TypeSection::new();
    types.ty().function([], []);
    {
        use wasm_encoder::ValType::I32;
        types.ty().function([I32, I32, I32], [I32]);
    }
    let mut imports = ImportSection::new();
    if forbidden {
        imports.import("wasi_snapshot_preview1", "sock_accept", EntityType::Function(1));
    }
    let imported = u32::from(forbidden);
    let mut functions = FunctionSection::new();
    let mut code = CodeSection::new();
    for _ in 0..=copies {
        functions.function(0);
    }
    let mut start = Function::new([]);
    start.instructions().end();
    code.function(&start);
    for _ in 0..copies {
        code.function(body);
    }
    let mut memories = MemorySection::new();
    memories.memory(MemoryType { minimum: 1, maximum: None, memory64: false, shared: false, page_size_log2: None });
    let mut exports = ExportSection::new();
    exports.export("_start", ExportKind::Func, imported).export("memory", ExportKind::Memory, 0);
    let mut module = Module::new();
    module.section(&types).section(&imports).section(&functions).section(&memories).section(&exports).section(&code);
    module.finish()
}

/// `depth` constants pushed, then dropped: an operand stack `depth` deep.
fn pushed_and_dropped(depth: u32) -> Function {
    let mut body = Function::new([]);
    let mut sink = body.instructions();
    for _ in 0..depth {
        sink.i32_const(0);
    }
    for _ in 0..depth {
        sink.drop();
    }
    sink.end();
    body
}

/// `depth` loads from distinct addresses, then summed: `depth` values live at once, the
/// register allocator's worst case.
fn loaded_and_summed(depth: u32) -> Function {
    let mut body = Function::new([]);
    let mut sink = body.instructions();
    for i in 0..depth {
        sink.i32_const(0).i32_load(MemArg { offset: u64::from(i * 4 % 60_000), align: 2, target: wasm_encoder::MemArgTarget::Memory(0), ordering: None });
    }
    for _ in 1..depth {
        sink.i32_add();
    }
    sink.drop().end();
    body
}

/// A function that declares `count` `i64` locals and does nothing.
fn with_locals(count: u32) -> Function {
    let mut body = Function::new([(count, wasm_encoder::ValType::I64)]);
    body.instructions().end();
    body
}

fn nested_blocks(depth: u32) -> Function {
    let mut body = Function::new([]);
    let mut sink = body.instructions();
    for _ in 0..depth {
        sink.block(BlockType::Empty);
    }
    for _ in 0..=depth {
        sink.end();
    }
    body
}

/// About 300 bytes of arithmetic on a local.
fn small_function() -> Function {
    let mut body = Function::new([(1, wasm_encoder::ValType::I32)]);
    let mut sink = body.instructions();
    for _ in 0..42 {
        sink.local_get(0).i32_const(1).i32_add().local_set(0);
    }
    sink.end();
    body
}

/// The most functions a module may have, of about 300 bytes each: 30 MB, the costliest
/// module of many functions that passes.
pub fn largest_small_functions() -> Vec<u8> {
    binary(99_999, &small_function(), false)
}

pub fn cases() -> Vec<Case> {
    use Expect::{Fails, Rejected};
    vec![
        // Runs: whatever a module does is its own outcome, within fuel, memory, output and
        // the wall clock; host calls pay fuel for their work.
        graded("an infinite loop", "x.wat", || command("", 1, "(loop (br 0))"), Fails("timeout"), QUICK),
        graded("a sleep of 3 s passes the run's wall limit (twice its fuel and a second)", "x.wat", || sleep(3_000_000_000, false), Fails("timeout"), QUICK),
        graded("sleeps of 2^62 ns for ever", "x.wat", || sleep(1 << 62, true), Fails("timeout"), QUICK),
        graded(
            "a memory.grow bomb",
            "x.wat",
            || command("", 1, "(loop (br_if 0 (i32.ne (memory.grow (i32.const 16)) (i32.const -1)))) unreachable"),
            Fails("memory"),
            QUICK,
        ),
        graded(
            "a table.grow bomb",
            "x.wat",
            || {
                r#"(module (table 1 funcref) (memory (export "memory") 1) (func (export "_start") (loop (br_if 0 (i32.ne (table.grow (ref.null func) (i32.const 1000000)) (i32.const -1)))) unreachable))"#.as_bytes().to_vec()
            },
            // Growing a table costs fuel per element: the budget runs out first.
            Fails("timeout"),
            QUICK,
        ),
        graded(
            "unbounded recursion",
            "x.wat",
            || r#"(module (memory (export "memory") 1) (func $f (call $f)) (func (export "_start") (call $f)))"#.as_bytes().to_vec(),
            Fails("crash"),
            QUICK,
        ),
        // Exceptions (C++'s, and the standard's any module may use): each exception is an
        // object of the engine's GC heap, which the memory limit bounds like memory.
        graded(
            "exceptions kept in a table grown for ever",
            "x.wat",
            || {
                r#"(module (tag $e (param i32)) (table $kept 0 exnref) (memory (export "memory") 1)
                (func (export "_start") (loop
                  (block $caught (result exnref) (try_table (catch_all_ref $caught) (throw $e (i32.const 7))) unreachable)
                  (drop (table.grow $kept (i32.const 1)))
                  (br 0))))"#
                    .as_bytes()
                    .to_vec()
            },
            Fails("timeout"),
            QUICK,
        ),
        // The engine's GC is there for exceptions only: structs and arrays are refused.
        graded(
            "GC arrays of 80 MB kept in a table",
            "x.wat",
            || {
                r#"(module (type $a (array (mut i64))) (table $kept 0 (ref null $a)) (memory (export "memory") 1)
                (func (export "_start") (loop (drop (table.grow $kept (array.new_default $a (i32.const 10000000)) (i32.const 1))) (br 0))))"#
                    .as_bytes()
                    .to_vec()
            },
            Rejected("array indexed types not supported without the gc feature"),
            QUICK,
        ),
        graded(
            "a legacy try that throws and catches for ever",
            "x.wat",
            || command("(tag $e)", 1, "(loop try throw $e catch $e end (br 0))"),
            Fails("timeout"),
            QUICK,
        ),
        graded("an exception nobody catches", "x.wat", || command("(tag $e (param i64))", 1, "(throw $e (i64.const 1))"), Fails("crash"), QUICK),
        graded("a flood of 64 KiB writes on stdout", "x.wat", || flood(1, 65_536), Fails("output"), QUICK),
        graded("a flood of 64 KiB writes on stderr", "x.wat", || flood(2, 65_536), Fails("output"), QUICK),
        graded("a flood of one-byte writes", "x.wat", || flood(1, 1), Fails("timeout"), QUICK),
        graded(
            "writes of 7 million empty buffers",
            "x.wat",
            || command(FD_WRITE, 900, "(loop (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 7000000) (i32.const 8))) (br 0))"),
            Fails("timeout"),
            QUICK,
        ),
        graded(
            "random_get of 60 MB, again and again",
            "x.wat",
            || command(RANDOM_GET, 940, "(loop (drop (call $random_get (i32.const 0) (i32.const 60000000))) (br 0))"),
            Fails("timeout"),
            QUICK,
        ),
        graded(
            "reading stdin after its end for ever",
            "x.wat",
            || {
                command(
                    FD_READ,
                    1,
                    "(i32.store (i32.const 0) (i32.const 16)) (i32.store (i32.const 4) (i32.const 1024)) (loop (drop (call $fd_read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8))) (br 0))",
                )
            },
            Fails("timeout"),
            QUICK,
        ),
        // Host calls that do no work cost a host call's fuel each, like the rest.
        graded("sched_yield for ever", "x.wat", || calling_for_ever(SCHED_YIELD, "(call $sched_yield)"), Fails("timeout"), QUICK),
        graded(
            "fd_fdstat_get(1, 8) for ever",
            "x.wat",
            || calling_for_ever(FD_FDSTAT_GET, "(call $fd_fdstat_get (i32.const 1) (i32.const 8))"),
            Fails("timeout"),
            QUICK,
        ),
        graded(
            "fd_prestat_get for ever",
            "x.wat",
            || calling_for_ever(FD_PRESTAT_GET, "(call $fd_prestat_get (i32.const 3) (i32.const 8))"),
            Fails("timeout"),
            QUICK,
        ),
        graded(
            "clock_time_get for ever",
            "x.wat",
            || calling_for_ever(CLOCK_TIME_GET, "(call $clock_time_get (i32.const 1) (i64.const 0) (i32.const 8))"),
            Fails("timeout"),
            QUICK,
        ),
        graded(
            "args_sizes_get for ever",
            "x.wat",
            || calling_for_ever(ARGS_SIZES_GET, "(call $args_sizes_get (i32.const 8) (i32.const 16))"),
            Fails("timeout"),
            QUICK,
        ),
        graded(
            "proc_exit in a start section",
            "x.wat",
            || {
                format!(r#"(module {PROC_EXIT} (memory (export "memory") 1) (func $s (call $proc_exit (i32.const 0))) (start $s) (func (export "_start")))"#)
                    .into_bytes()
            },
            Fails("wrong"),
            QUICK,
        ),
        graded(
            "a trap in a start section",
            "x.wat",
            || r#"(module (memory (export "memory") 1) (func $s unreachable) (start $s) (func (export "_start")))"#.as_bytes().to_vec(),
            Fails("crash"),
            QUICK,
        ),
        // Loads: refused with the reason, before compiling where compiling is the danger.
        graded(
            "a forbidden import (sock_accept)",
            "x.wat",
            || command(SOCK_ACCEPT, 1, ""),
            Rejected("`wasi_snapshot_preview1.sock_accept`, which programs may not use"),
            QUICK,
        ),
        graded("opening the host's files and folders by every path and descriptor", "x.wat", opening_host_files, Fails("wrong"), QUICK),
        graded("text bytes named .wasm", "x.wasm", || b"this is not a module".to_vec(), Rejected("not a valid WebAssembly module"), QUICK),
        graded(
            "a library without _start",
            "x.wat",
            || br#"(module (memory (export "memory") 1) (func (export "main")))"#.to_vec(),
            Rejected("not a WASI command"),
            QUICK,
        ),
        graded(
            "a module over 32 MiB",
            "x.wasm",
            || {
                let mut bytes = b"\0asm\x01\0\0\0".to_vec();
                bytes.resize(33 << 20, 0);
                bytes
            },
            Rejected("more than the limit of 33554432 bytes"),
            QUICK,
        ),
        graded(
            "a million functions",
            "x.wasm",
            || binary(1_000_000, &pushed_and_dropped(0), false),
            Rejected("it defines 1000001 functions, more than 100000"),
            QUICK,
        ),
        graded("a million functions behind a forbidden import", "x.wasm", || binary(1_000_000, &pushed_and_dropped(0), true), Rejected("sock_accept"), QUICK),
        graded(
            "an operand stack 300,000 deep",
            "x.wasm",
            || binary(1, &pushed_and_dropped(300_000), false),
            Rejected("operand stack gets deeper than 10000"),
            QUICK,
        ),
        graded(
            "four functions 2.5 million values deep",
            "x.wasm",
            || binary(4, &pushed_and_dropped(2_500_000), false),
            Rejected("bytes of code, more than 1048576"),
            QUICK,
        ),
        graded("blocks nested 300,000 deep", "x.wasm", || binary(1, &nested_blocks(300_000), false), Rejected("nests blocks deeper than 10000"), QUICK),
        graded("a function with 60,000 locals", "x.wasm", || binary(1, &with_locals(60_000), false), Rejected("more than 50000 locals"), QUICK),
        graded(
            "99,999 functions of 50,000 i64 locals (1.3 MB)",
            "x.wasm",
            || binary(99_999, &with_locals(50_000), false),
            Rejected("declare more than 10000000 locals in all"),
            QUICK,
        ),
        // The largest modules that pass, of the shapes that cost the compiler most: they
        // compile within the bounds (and `_start` returns at once, without an answer).
        graded("99,999 small functions (30 MB, accepted)", "x.wasm", largest_small_functions, Fails("wrong"), LARGEST_COMPILE),
        graded(
            "200 functions of 50,000 i64 locals (10 million, accepted)",
            "x.wasm",
            || binary(200, &with_locals(50_000), false),
            Fails("wrong"),
            LARGEST_COMPILE,
        ),
        graded(
            "400 functions with 9,800 live values (31 MB, accepted)",
            "x.wasm",
            || binary(400, &loaded_and_summed(9_800), false),
            Fails("wrong"),
            LARGEST_COMPILE,
        ),
        // Inputs: a bug that only a long input shows keeps its suite test long, and every
        // cache of the search (a test's neighbourhood grew with the square of its length:
        // 17 GB in 50 s) is bounded whatever the tests' lengths.
        // Hand-ins that write their own verdict, and exit statuses as natively.
        LRU_CACHE.graded(
            "a function-level C hand-in writing the judged output from a constructor",
            "x.c",
            || WRITES_ITS_OWN_VERDICT.as_bytes().to_vec(),
            Expect::NotBuilt("Your file writes the judged output itself"),
            LONG_INPUT,
        ),
        LRU_CACHE.graded(
            "a function-level Rust hand-in writing through the harness's library",
            "x.rs",
            || {
                let a08 = std::fs::read_to_string((LRU_CACHE.problem)().join("submissions/a08.rs")).unwrap();
                a08.replace("        self.items.len()\n", "        crate::bugrank_harness::write(b\"0\\n\");\n        self.items.len()\n").into_bytes()
            },
            Expect::NotBuilt("Your file uses the harness's own library"),
            LONG_INPUT,
        ),
        LRU_CACHE_PYTHON.graded(
            "a function-level Python hand-in writing every answer itself, then os._exit",
            "x.py",
            || PYTHON_WRITES_ITS_OWN_VERDICT.as_bytes().to_vec(),
            Fails("crash"),
            PYTHON_HARNESSED,
        ),
        LRU_CACHE_PYTHON.graded(
            "a function-level Python hand-in writing every answer itself, then returning",
            "x.py",
            || PYTHON_WRITES_ITS_OWN_VERDICT.replace("    os._exit(0)\n", "    return None\n").as_bytes().to_vec(),
            Fails("crash"),
            PYTHON_HARNESSED,
        ),
        SCORES.graded(
            "a right C answer that returns 200",
            "x.c",
            || {
                String::from_utf8(std::fs::read((SCORES.problem)().join("submissions/v004.c")).unwrap())
                    .unwrap()
                    .replace("return 0;", "return 200;")
                    .into_bytes()
            },
            Fails("crash"),
            LONG_INPUT,
        ),
        // A dialogue: the program's output is the interactor's input, and a run's turn is
        // sent when it reads or ends, so a flood is held within the output limit, or the
        // fuel it pays per write. The flood is one word, which the interactor reads to the
        // program's end: the program's own failure is the verdict.
        TREASURE.graded("a flood of 64 KiB writes at the interactor", "x.wat", || flood(1, 65_536), Fails("output"), INTERACTIVE),
        TREASURE.graded("a flood of one-byte writes at the interactor", "x.wat", || flood(1, 1), Fails("timeout"), INTERACTIVE),
        TREASURE.graded(
            "a program that reads for ever, the interactor waiting for it",
            "x.wat",
            || command(FD_READ, 1, "(i32.store (i32.const 0) (i32.const 16)) (i32.store (i32.const 4) (i32.const 100)) (loop (drop (call $fd_read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8))) (br 0))"),
            // It reads n, then the end of nothing: both wait, a stall, out of time.
            Fails("timeout"),
            INTERACTIVE,
        ),
        SCORES.graded(
            "a bug that needs 101 scores (int marks[100])",
            "x.c",
            || std::fs::read((SCORES.problem)().join("submissions/v007.c")).unwrap(),
            // The 101st score is written past the array: the stack protector's crash, as
            // on Ubuntu ("stack smashing detected").
            Fails("crash"),
            LONG_INPUT,
        ),
    ]
}
