//! Every way a run can end, each shown by a tiny `.wat` program.

use std::sync::OnceLock;

use sandbox::{Choices, Limits, Outcome, Program, Role, Sandbox, SandboxError};

fn sandbox() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(|| Sandbox::new().unwrap())
}

/// A WASI command whose `_start` body is `body`. It has one page of memory with the text
/// "hello\n" at offset 100, and helpers `$write(fd, ptr, len)` and `$read() -> len`
/// (reads stdin into offset 1000).
fn command(extra_imports: &str, body: &str) -> String {
    format!(
        r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  {extra_imports}
  (memory (export "memory") 1)
  (data (i32.const 100) "hello\n")
  (func $write (param $fd i32) (param $ptr i32) (param $len i32)
    (i32.store (i32.const 0) (local.get $ptr))
    (i32.store (i32.const 4) (local.get $len))
    (drop (call $fd_write (local.get $fd) (i32.const 0) (i32.const 1) (i32.const 8))))
  (func $read (result i32)
    (i32.store (i32.const 16) (i32.const 1000))
    (i32.store (i32.const 20) (i32.const 4096))
    (drop (call $fd_read (i32.const 0) (i32.const 16) (i32.const 1) (i32.const 24)))
    (i32.load (i32.const 24)))
  (func $recurse (param i32) (result i32)
    (i32.add (i32.const 1) (call $recurse (local.get 0))))
  (func $depth (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 0))
      (else (i32.add (i32.const 1) (call $depth (i32.sub (local.get $n) (i32.const 1)))))))
  (func (export "_start") {body}))"#
    )
}

fn load(name: &str, wat: &str) -> Program {
    sandbox().load(name, wat.as_bytes(), Role::Answer).unwrap()
}

fn check(body: &str, input: &str, expected: Outcome) -> sandbox::Run {
    let program = load("test.wat", &command("", body));
    let run = sandbox().run(&program, input.as_bytes(), &Limits::default()).unwrap();
    assert_eq!(run.outcome, expected, "stdout {:?}", String::from_utf8_lossy(&run.stdout));
    run
}

const ECHO: &str = "(call $write (i32.const 1) (i32.const 1000) (call $read))";

#[test]
fn a_program_that_returns_from_start_exits_with_code_0_and_its_output() {
    let run = check(ECHO, "member 0 []", Outcome::Exited(0));
    assert_eq!(run.stdout, b"member 0 []");
    assert!(run.stderr.is_empty());
}

#[test]
fn a_run_says_whether_the_program_asked_for_its_input_even_at_its_end() {
    let asks = |body: &str, input: &str| check(body, input, Outcome::Exited(0)).read_input;
    assert!(asks(ECHO, "member 0 []"));
    assert!(asks("(drop (call $read))", ""), "a read at the end of the input is still a read");
    assert!(!asks("(call $write (i32.const 1) (i32.const 100) (i32.const 6))", "member 0 []"));
    let crashes_first = check("(unreachable) (drop (call $read))", "1 2 3", Outcome::Trap("wasm trap: wasm `unreachable` instruction executed".into()));
    assert!(!crashes_first.read_input);
}

#[test]
fn proc_exit_gives_its_code() {
    check("(call $write (i32.const 1) (i32.const 100) (i32.const 6)) (call $proc_exit (i32.const 3))", "", Outcome::Exited(3));
}

#[test]
fn an_exit_status_is_what_a_native_system_gives_its_low_eight_bits() {
    for (status, native) in [(125, 125), (126, 126), (200, 200), (255, 255), (256, 0), (-1, 255), (300, 44)] {
        check(&format!("(call $proc_exit (i32.const {status}))"), "", Outcome::Exited(native));
    }
}

#[test]
fn proc_exit_in_a_start_section_is_the_programs_outcome_not_a_host_error() {
    let program = load("early.wat", &command("(func $early (call $proc_exit (i32.const 4))) (start $early)", ""));
    let run = sandbox().run(&program, b"", &Limits::default()).expect("whatever a guest does is its outcome");
    assert_eq!(run.outcome, Outcome::Exited(4));
}

/// Runs `program` on another thread and fails the test if it takes longer than `limit`
/// (instead of hanging the suite).
fn run_within(program: Program, limit: std::time::Duration) -> sandbox::Run {
    let (done, finished) = std::sync::mpsc::channel();
    // (A send fails only once the test gave up waiting.)
    std::thread::spawn(move || done.send(sandbox().run(&program, b"", &Limits::default()).unwrap()).ok());
    finished.recv_timeout(limit).unwrap_or_else(|_| panic!("the run took more than {limit:?}"))
}

#[test]
fn a_sleep_does_not_wait_in_real_time_nor_cost_fuel_until_it_passes_the_runs_wall_limit() {
    // One relative clock subscription of `nanos` at offset 2000, its event at 3000: the
    // event carries the subscription's userdata (7) and the clock type (0).
    let sleep = |nanos: u64| {
        let poll = r#"(import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))"#;
        let body = format!(
            "
            (i64.store (i32.const 2000) (i64.const 7))
            (i32.store8 (i32.const 2008) (i32.const 0))
            (i32.store (i32.const 2016) (i32.const 1))
            (i64.store (i32.const 2024) (i64.const {nanos}))
            (if (i32.ne (call $poll (i32.const 2000) (i32.const 3000) (i32.const 1) (i32.const 3100)) (i32.const 0)) (then (unreachable)))
            (if (i64.ne (i64.load (i32.const 3000)) (i64.const 7)) (then (unreachable)))
            (if (i32.ne (i32.load (i32.const 3100)) (i32.const 1)) (then (unreachable)))
            (call $write (i32.const 1) (i32.const 100) (i32.const 6))"
        );
        run_within(load("sleep.wat", &command(poll, &body)), std::time::Duration::from_secs(10))
    };
    // A sleep uses no CPU time: a second costs the call's fuel, not a second's.
    let second = sleep(1_000_000_000);
    assert_eq!((second.outcome, second.stdout.as_slice()), (Outcome::Exited(0), b"hello\n".as_slice()));
    assert!(second.fuel_used < 10_000, "{}", second.fuel_used);
    // The default run's wall limit: twice its 100 million fuel and a second, 1.2 s; a
    // sleep past it is out of time (all the fuel), as is 2^62 ns (146 years), at once.
    let limit = Limits::default().fuel * sandbox::WALL_FUEL_FACTOR + sandbox::WALL_GRACE_FUEL;
    assert_eq!(limit, 1_200_000_000);
    for past in [limit, 1 << 62] {
        let run = sleep(past);
        assert_eq!((run.outcome, run.fuel_used), (Outcome::Timeout, Limits::default().fuel), "a sleep of {past} ns");
    }
}

#[test]
fn unreachable_is_a_trap_with_wasmtimes_message() {
    let run = check("(unreachable)", "", Outcome::Trap("wasm trap: wasm `unreachable` instruction executed".into()));
    assert!(run.outcome.to_string().starts_with("crashed"));
}

#[test]
fn an_infinite_loop_runs_out_of_fuel_at_the_same_point_every_time() {
    let body = "(loop $forever (br $forever))";
    let first = check(body, "", Outcome::Timeout);
    assert_eq!(first.fuel_used, Limits::default().fuel);
    let program = load("loop.wat", &command("", body));
    let small = Limits { fuel: 12_345, ..Limits::default() };
    let runs: Vec<u64> = (0..3).map(|_| sandbox().run(&program, b"", &small).unwrap().fuel_used).collect();
    assert_eq!(runs, [12_345; 3]);
}

#[test]
fn the_same_program_on_the_same_input_uses_the_same_fuel() {
    let program = load("echo.wat", &command("", ECHO));
    let fuel: Vec<u64> = (0..5).map(|_| sandbox().run(&program, b"abc", &Limits::default()).unwrap().fuel_used).collect();
    assert!(fuel.iter().all(|&f| f == fuel[0] && f > 0), "{fuel:?}");
}

#[test]
fn a_memory_grow_bomb_runs_out_of_memory() {
    // Grow a page at a time until refused, then crash as an allocator would.
    check("(loop $more (br_if $more (i32.ne (memory.grow (i32.const 1)) (i32.const -1)))) (unreachable)", "", Outcome::OutOfMemory);
}

#[test]
fn a_program_that_survives_a_refused_grow_is_not_out_of_memory() {
    let body = "(drop (memory.grow (i32.const 60000))) (call $write (i32.const 1) (i32.const 100) (i32.const 6))";
    let run = check(body, "", Outcome::Exited(0));
    assert_eq!(run.stdout, b"hello\n");
}

#[test]
fn the_memory_limit_is_per_run() {
    let program = load("grow.wat", &command("", "(if (i32.eq (memory.grow (i32.const 100)) (i32.const -1)) (then (unreachable)))"));
    let tight = Limits { memory_bytes: 64 << 10, ..Limits::default() };
    assert_eq!(sandbox().run(&program, b"", &tight).unwrap().outcome, Outcome::OutOfMemory);
    assert_eq!(sandbox().run(&program, b"", &Limits::default()).unwrap().outcome, Outcome::Exited(0));
}

#[test]
fn deep_recursion_overflows_the_stack() {
    check("(drop (call $recurse (i32.const 0)))", "", Outcome::StackOverflow);
}

#[test]
fn a_run_recurses_as_deep_as_its_call_stack_allows_on_any_thread() {
    // 200,000 calls deep: past the default call stack of 1 MiB, well within 64 MiB.
    let program = load("deep.wat", &command("", "(drop (call $depth (i32.const 200000)))"));
    let deep = Limits { stack_bytes: 64 << 20, ..Limits::default() };
    let outcome = move |limits: Limits| sandbox().run(&program, b"", &limits).unwrap().outcome;
    assert_eq!(outcome(Limits::default()), Outcome::StackOverflow);
    assert_eq!(outcome(deep), Outcome::Exited(0));
    // On a thread with far less stack than the run's call stack, the run is made on a
    // thread of its own: the same outcomes, and the host never overflows its own stack.
    let small = std::thread::Builder::new().stack_size(256 << 10);
    let outcomes = small.spawn(move || (outcome(deep), outcome(Limits::default()))).unwrap().join().unwrap();
    assert_eq!(outcomes, (Outcome::Exited(0), Outcome::StackOverflow));
}

#[test]
fn an_output_flood_hits_the_output_limit_and_keeps_only_the_limit() {
    let run = check("(loop $more (call $write (i32.const 1) (i32.const 100) (i32.const 6)) (br $more))", "", Outcome::OutputLimit);
    assert_eq!(run.stdout.len(), Limits::default().output_bytes);
}

#[test]
fn a_flood_on_stderr_also_hits_the_output_limit() {
    let run = check("(loop $more (call $write (i32.const 2) (i32.const 100) (i32.const 6)) (br $more))", "", Outcome::OutputLimit);
    assert_eq!(run.stderr.len(), sandbox::STDERR_LIMIT_BYTES);
}

#[test]
fn output_up_to_the_limit_is_fine() {
    let program = load("hello.wat", &command("", "(call $write (i32.const 1) (i32.const 100) (i32.const 6))"));
    let exact = Limits { output_bytes: 6, ..Limits::default() };
    assert_eq!(sandbox().run(&program, b"", &exact).unwrap().outcome, Outcome::Exited(0));
    let short = Limits { output_bytes: 5, ..Limits::default() };
    assert_eq!(sandbox().run(&program, b"", &short).unwrap().outcome, Outcome::OutputLimit);
}

#[test]
fn the_clock_starts_in_2000_and_counts_the_runs_fuel_and_random_bytes_are_the_same_on_every_run() {
    // Write 8 bytes of wall-clock time, 16 random bytes and the monotonic clock's 8 to
    // stdout.
    let body = "(drop (call $clock_time_get (i32.const 0) (i64.const 1) (i32.const 200)))
                (drop (call $random_get (i32.const 208) (i32.const 16)))
                (drop (call $clock_time_get (i32.const 1) (i64.const 1) (i32.const 224)))
                (call $write (i32.const 1) (i32.const 200) (i32.const 32))";
    let first = check(body, "", Outcome::Exited(0));
    let second = check(body, "", Outcome::Exited(0));
    assert_eq!(first.stdout, second.stdout);
    let nanos = |at: usize| u64::from_le_bytes(first.stdout[at..at + 8].try_into().unwrap());
    // The first call paid a host call's fuel before it read the clock; the second, two.
    let since_2000 = nanos(0) - 946_684_800 * 1_000_000_000;
    let call = sandbox::HOST_CALL_FUEL;
    assert!((call..call + 100).contains(&since_2000), "2000-01-01T00:00:00Z and {since_2000} ns");
    assert!((3 * call..3 * call + 100).contains(&nanos(24)), "{} ns", nanos(24));
    assert_ne!(first.stdout[8..24], [0; 16]);
}

const ARGS_AND_ENVIRON: &str = r#"
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $environ_get (param i32 i32) (result i32)))"#;

const DESCRIPTORS: &str = r#"
  (import "wasi_snapshot_preview1" "fd_fdstat_get" (func $fd_fdstat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_filestat_get" (func $fd_filestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_tell" (func $fd_tell (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_seek" (func $fd_seek (param i32 i64 i32 i32) (result i32)))"#;

/// Runs `body` in a program named `args.wat` that may call the argument and environment
/// calls, and those that describe descriptors.
fn run_with_args(body: &str) -> sandbox::Run {
    let program = load("args.wat", &command(&format!("{ARGS_AND_ENVIRON}{DESCRIPTORS}"), body));
    sandbox().run(&program, b"", &Limits::default()).unwrap()
}

#[test]
fn the_one_argument_is_the_programs_name_and_the_environment_is_empty() {
    // argc and the buffer size at 200, argv at 208 (pointing at 216), the environment's
    // count and size at 232; all of it written to stdout, with each call's errno.
    let body = "(i32.store8 (i32.const 240) (call $args_sizes_get (i32.const 200) (i32.const 204)))
                (i32.store8 (i32.const 241) (call $args_get (i32.const 208) (i32.const 216)))
                (i32.store8 (i32.const 242) (call $environ_sizes_get (i32.const 232) (i32.const 236)))
                (i32.store8 (i32.const 243) (call $environ_get (i32.const 300) (i32.const 400)))
                (call $write (i32.const 1) (i32.const 200) (i32.const 44))";
    let run = run_with_args(body);
    assert_eq!(run.outcome, Outcome::Exited(0));
    let mut expected = Vec::new();
    expected.extend(1u32.to_le_bytes());
    expected.extend(9u32.to_le_bytes());
    expected.extend(216u32.to_le_bytes());
    expected.extend([0; 4]);
    expected.extend(b"args.wat\0");
    expected.extend([0; 7]);
    expected.extend([0; 8]);
    expected.extend([0; 4]);
    assert_eq!(run.stdout, expected);
}

#[test]
fn the_standard_streams_are_pipes_that_cannot_seek_and_there_is_no_other_descriptor() {
    // As wasmtime-wasi answers (this test passes with its own calls linked instead), over
    // bytes 0xAA (padding is not written): the `fdstat` of descriptors 0 to 3 from 200, 24
    // bytes each; their `filestat` from 296, 64 bytes each; the calls' errnos from 552; the
    // position `fd_tell` and `fd_seek` would write at 576 (never written).
    let mut body = "(memory.fill (i32.const 200) (i32.const 0xAA) (i32.const 384))".to_owned();
    let mut errno = 552;
    let mut call = |call: String| {
        body += &format!("(i32.store8 (i32.const {errno}) {call})");
        errno += 1;
    };
    for fd in 0..4 {
        call(format!("(call $fd_fdstat_get (i32.const {fd}) (i32.const {}))", 200 + 24 * fd));
        call(format!("(call $fd_filestat_get (i32.const {fd}) (i32.const {}))", 296 + 64 * fd));
        call(format!("(call $fd_tell (i32.const {fd}) (i32.const 576))"));
    }
    for (fd, whence) in [(0, 0), (1, 1), (2, 2), (3, 0)] {
        call(format!("(call $fd_seek (i32.const {fd}) (i64.const 0) (i32.const {whence}) (i32.const 576))"));
    }
    body += "(call $write (i32.const 1) (i32.const 200) (i32.const 384))";
    let run = run_with_args(&body);
    assert_eq!(run.outcome, Outcome::Exited(0));
    let mut expected = Vec::new();
    for rights in [2u64, 64, 64] {
        expected.extend([0, 0xAA, 0, 0, 0xAA, 0xAA, 0xAA, 0xAA]);
        expected.extend(rights.to_le_bytes());
        expected.extend(rights.to_le_bytes());
    }
    expected.extend([0xAA; 24]);
    for _ in 0..3 {
        expected.extend([0; 17]);
        expected.extend([0xAA; 7]);
        expected.extend([0; 40]);
    }
    expected.extend([0xAA; 64]);
    // fdstat, filestat, tell for each descriptor (`EBADF` 8, `ESPIPE` 70); the seeks.
    expected.extend([0, 0, 70, 0, 0, 70, 0, 0, 70, 8, 8, 8]);
    expected.extend([70, 70, 70, 8]);
    expected.extend([0xAA; 8 + 8]);
    assert_eq!(run.stdout, expected);
}

#[test]
fn a_misaligned_or_outside_result_pointer_or_an_argument_out_of_its_range_ends_the_run_with_a_trap() {
    for (body, words) in [
        ("(drop (call $args_sizes_get (i32.const 201) (i32.const 204)))", "misaligned pointer 0xc9"),
        ("(drop (call $environ_sizes_get (i32.const 200) (i32.const 65536)))", "out-of-bounds pointer 0x10000"),
        ("(drop (call $args_get (i32.const 208) (i32.const 65530)))", "out-of-bounds pointer 0xfffa"),
        ("(drop (call $fd_fdstat_get (i32.const 1) (i32.const 204)))", "misaligned pointer 0xcc"),
        ("(drop (call $fd_fdstat_get (i32.const 2) (i32.const 65520)))", "out-of-bounds pointer 0xfff0"),
        ("(drop (call $fd_filestat_get (i32.const 0) (i32.const 65480)))", "out-of-bounds pointer 0xffc8"),
        ("(drop (call $fd_seek (i32.const 1) (i64.const 0) (i32.const 3) (i32.const 576)))", "whence 3"),
        ("(drop (call $fd_seek (i32.const 9) (i64.const 0) (i32.const 256) (i32.const 576)))", "whence 256"),
    ] {
        let run = run_with_args(body);
        let Outcome::Trap(message) = &run.outcome else { panic!("{body}: {:?}", run.outcome) };
        assert!(message.contains(words), "{body}: {message}");
    }
}

#[test]
fn many_threads_can_run_programs_at_once() {
    let program = load("echo.wat", &command("", ECHO));
    std::thread::scope(|scope| {
        for thread in 0..8 {
            let program = &program;
            scope.spawn(move || {
                for i in 0..200 {
                    let input = format!("thread {thread} run {i}");
                    let run = sandbox().run(program, input.as_bytes(), &Limits::default()).unwrap();
                    assert_eq!(run.outcome, Outcome::Exited(0));
                    assert_eq!(run.stdout, input.as_bytes());
                }
            });
        }
    });
}

#[test]
fn identical_modules_share_a_hash() {
    let a = load("a.wat", &command("", ECHO));
    let b = load("b.wat", &command("", ECHO));
    let c = load("c.wat", &command("", "(unreachable)"));
    assert_eq!(a.hash(), b.hash());
    assert_ne!(a.hash(), c.hash());
    assert_eq!(b.name(), "b.wat");
}

/// Why `bytes` do not load; checking them without compiling says so too, in the same words.
fn rejection(name: &str, bytes: &[u8], role: Role) -> String {
    let sandbox = sandbox();
    let error = sandbox.load(name, bytes, role).unwrap_err().to_string();
    assert_eq!(sandbox.check(name, bytes, role).unwrap_err().to_string(), error, "the check without compiling");
    error
}

/// `bytes` load, and checking them without compiling accepts them too.
fn accepted(name: &str, bytes: &[u8], role: Role) {
    let sandbox = sandbox();
    if let Err(error) = sandbox.check(name, bytes, role) {
        panic!("the check without compiling refuses {name}: {error}");
    }
    sandbox.load(name, bytes, role).unwrap();
}

#[test]
fn every_fixture_module_passes_the_check_without_compiling() {
    let problems = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/problems");
    let mut checked = 0;
    for problem in std::fs::read_dir(problems).unwrap() {
        let problem = problem.unwrap().path();
        // (A problem may have its generator as a source only, built when it is loaded.)
        if let Ok(generator) = std::fs::read(problem.join("generator.wasm")) {
            accepted("generator.wasm", &generator, Role::Generator);
        }
        for entry in std::fs::read_dir(problem.join("submissions")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "wasm") {
                accepted("answer.wasm", &std::fs::read(&path).unwrap(), Role::Answer);
                checked += 1;
            }
        }
    }
    assert!(checked >= 50, "{checked} fixture answers");
}

#[test]
fn invalid_binaries_and_text_are_refused_by_the_check_as_by_loading() {
    let truncated = &wat::parse_str(command("", ECHO)).unwrap()[..40];
    rejection("cut.wasm", truncated, Role::Answer);
    rejection("typo.wat", b"(module (func (export \"_start\") (i32.ad)))", Role::Answer);
    let mistyped = r#"(module (func (export "_start") (i32.const 1)))"#;
    rejection("mistyped.wat", mistyped.as_bytes(), Role::Answer);
}

#[test]
fn a_file_that_is_not_webassembly_is_rejected_naming_the_file() {
    let message = rejection("a07.wasm", b"#!/bin/sh\necho hello\n", Role::Answer);
    assert!(message.starts_with("a07.wasm: not a valid WebAssembly module"), "{message}");
}

#[test]
fn text_loaded_once_as_wat_is_still_refused_under_a_wasm_name() {
    let text = command("", "");
    accepted("a08.wat", text.as_bytes(), Role::Answer);
    let message = rejection("a08.wasm", text.as_bytes(), Role::Answer);
    assert!(message.contains("a .wasm file must be a WebAssembly binary"), "{message}");
}

#[test]
fn a_forbidden_import_is_rejected_naming_the_file_and_the_import() {
    let sock_accept = r#"(import "wasi_snapshot_preview1" "sock_accept" (func (param i32 i32 i32) (result i32)))"#;
    let message = rejection("sneaky.wat", command(sock_accept, "").as_bytes(), Role::Answer);
    assert_eq!(message, "sneaky.wat: imports `wasi_snapshot_preview1.sock_accept`, which programs may not use (there is no network in the sandbox)");
    let env = r#"(import "env" "system" (func (param i32) (result i32)))"#;
    let message = rejection("libc.wat", command(env, "").as_bytes(), Role::Answer);
    assert!(message.contains("`env.system`"), "{message}");
}

#[test]
fn a_program_that_opens_files_and_folders_runs_and_finds_none_by_any_path_or_descriptor() {
    // path_open, path_filestat_get and fd_readdir of /etc/passwd, ../../etc/passwd and `.`
    // from every descriptor 0 to 15: the program writes a line for each call that
    // succeeded, and there is none.
    let imports = r#"
  (import "wasi_snapshot_preview1" "path_open" (func $open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_filestat_get" (func $stat (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_readdir" (func $readdir (param i32 i32 i32 i64 i32) (result i32)))
  (data (i32.const 2000) "/etc/passwd../../etc/passwd.")"#;
    let body = "
    (local $fd i32)
    (loop $each
      (if (i32.eqz (call $open (local.get $fd) (i32.const 1) (i32.const 2000) (i32.const 11) (i32.const 0) (i64.const 0) (i64.const 0) (i32.const 0) (i32.const 3000)))
        (then (call $write (i32.const 1) (i32.const 100) (i32.const 6))))
      (if (i32.eqz (call $open (local.get $fd) (i32.const 1) (i32.const 2011) (i32.const 16) (i32.const 0) (i64.const 0) (i64.const 0) (i32.const 0) (i32.const 3000)))
        (then (call $write (i32.const 1) (i32.const 100) (i32.const 6))))
      (if (i32.eqz (call $open (local.get $fd) (i32.const 1) (i32.const 2027) (i32.const 1) (i32.const 2) (i64.const 0) (i64.const 0) (i32.const 0) (i32.const 3000)))
        (then (call $write (i32.const 1) (i32.const 100) (i32.const 6))))
      (if (i32.eqz (call $stat (local.get $fd) (i32.const 1) (i32.const 2000) (i32.const 11) (i32.const 3000)))
        (then (call $write (i32.const 1) (i32.const 100) (i32.const 6))))
      (if (i32.eqz (call $readdir (local.get $fd) (i32.const 4096) (i32.const 4096) (i64.const 0) (i32.const 3000)))
        (then (call $write (i32.const 1) (i32.const 100) (i32.const 6))))
      (local.set $fd (i32.add (local.get $fd) (i32.const 1)))
      (br_if $each (i32.lt_u (local.get $fd) (i32.const 16))))";
    let module = command(imports, body);
    accepted("opens.wat", module.as_bytes(), Role::Answer);
    let run = sandbox().run(&load("opens.wat", &module), b"", &Limits::default()).unwrap();
    assert_eq!((run.outcome, String::from_utf8_lossy(&run.stdout).into_owned()), (Outcome::Exited(0), String::new()));
}

#[test]
fn only_generators_may_import_choices() {
    let choice = r#"(import "bugrank" "choice" (func (param i64) (result i64)))"#;
    let message = rejection("a01.wat", command(choice, "").as_bytes(), Role::Answer);
    assert!(message.contains("`bugrank.choice`") && message.contains("only generators"), "{message}");
    assert!(sandbox().load("gen.wat", command(choice, "").as_bytes(), Role::Generator).is_ok());
}

#[test]
fn a_module_without_start_is_not_a_command() {
    let library = r#"(module (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1))))"#;
    let error = sandbox().load("lib.wat", library.as_bytes(), Role::Answer).unwrap_err();
    assert!(matches!(error, SandboxError::NotACommand { .. }), "{error}");
    assert!(rejection("lib.wat", library.as_bytes(), Role::Answer).contains("no `_start`"));
    let reactor = r#"(module (func (export "_start") (param i32)))"#;
    assert!(rejection("reactor.wat", reactor.as_bytes(), Role::Answer).contains("not a function without parameters"));
    let global = r#"(module (global (export "_start") i32 (i32.const 0)))"#;
    assert!(rejection("global.wat", global.as_bytes(), Role::Answer).contains("not a function without parameters"));
}

struct Fixed {
    values: Vec<u64>,
    asked: Vec<u64>,
}

impl Choices for Fixed {
    fn choice(&mut self, max: u64) -> Option<u64> {
        self.asked.push(max);
        self.values.get(self.asked.len() - 1).copied()
    }
    fn size(&self) -> u32 {
        42
    }
}

#[test]
fn a_generator_gets_its_choices_and_size_from_the_host() {
    let imports = r#"(import "bugrank" "choice" (func $choice (param i64) (result i64)))
                     (import "bugrank" "size" (func $size (result i32)))"#;
    // Writes the byte '0' + choice(9), then '0' + choice(5) (the host clamps 7 to 5),
    // then the size as a byte.
    let body = "(i32.store8 (i32.const 300) (i32.add (i32.const 48) (i32.wrap_i64 (call $choice (i64.const 9)))))
                (i32.store8 (i32.const 301) (i32.add (i32.const 48) (i32.wrap_i64 (call $choice (i64.const 5)))))
                (i32.store8 (i32.const 302) (call $size))
                (call $write (i32.const 1) (i32.const 300) (i32.const 3))";
    let generator = sandbox().load("gen.wat", command(imports, body).as_bytes(), Role::Generator).unwrap();
    let (run, choices) = sandbox().generate(&generator, Fixed { values: vec![4, 7], asked: vec![] }, &Limits::default()).unwrap();
    assert_eq!(run.outcome, Outcome::Exited(0));
    assert_eq!(run.stdout, b"45*");
    assert_eq!(choices.asked, [9, 5]);
}

#[test]
fn a_generator_that_runs_out_of_choices_traps() {
    let imports = r#"(import "bugrank" "choice" (func $choice (param i64) (result i64)))"#;
    let body = "(loop $more (drop (call $choice (i64.const 1))) (br $more))";
    let generator = sandbox().load("gen.wat", command(imports, body).as_bytes(), Role::Generator).unwrap();
    let (run, choices) = sandbox().generate(&generator, Fixed { values: vec![1; 10], asked: vec![] }, &Limits::default()).unwrap();
    assert!(matches!(&run.outcome, Outcome::Trap(m) if m.contains("more choices than allowed")), "{:?}", run.outcome);
    assert_eq!(choices.asked.len(), 11);
}

/// Fuel a program uses on empty input.
fn fuel_of(name: &str, body: &str) -> u64 {
    let run = sandbox().run(&load(name, &command("", body)), b"", &Limits::default()).unwrap();
    assert_eq!(run.outcome, Outcome::Exited(0), "{name}");
    run.fuel_used
}

#[test]
fn a_host_call_costs_fuel_for_the_work_it_does() {
    let nothing = fuel_of("nothing.wat", "");
    let random = fuel_of("random.wat", "(drop (call $random_get (i32.const 0) (i32.const 65536)))");
    assert!(random - nothing >= sandbox::HOST_CALL_FUEL + 65536 / sandbox::BYTES_PER_FUEL, "{random} vs {nothing}");
    let write = fuel_of("write.wat", "(call $write (i32.const 1) (i32.const 100) (i32.const 6))");
    assert!(write - nothing >= sandbox::HOST_CALL_FUEL, "{write} vs {nothing}");
}

#[test]
fn reading_stdin_after_its_end_for_ever_runs_out_of_fuel_quickly() {
    let program = load("eof.wat", &command("", "(loop $again (drop (call $read)) (br $again))"));
    let run = run_within(program, std::time::Duration::from_secs(10));
    assert_eq!(run.outcome, Outcome::Timeout);
}

#[test]
fn random_bytes_by_the_megabyte_run_out_of_fuel_quickly() {
    let program = load("entropy.wat", &command("", "(loop $again (drop (call $random_get (i32.const 0) (i32.const 65536))) (br $again))"));
    let run = run_within(program, std::time::Duration::from_secs(10));
    assert_eq!(run.outcome, Outcome::Timeout);
}

#[test]
fn a_write_of_more_buffers_than_posix_allows_is_refused() {
    // 2,000 empty buffers at offset 0: EINVAL (28), then "hello\n" as usual.
    let body = "
        (if (i32.ne (call $fd_write (i32.const 1) (i32.const 0) (i32.const 2000) (i32.const 60000)) (i32.const 28)) (then (unreachable)))
        (call $write (i32.const 1) (i32.const 100) (i32.const 6))";
    let run = check(body, "", Outcome::Exited(0));
    assert_eq!(run.stdout, b"hello\n");
}

#[test]
fn a_byte_at_a_time_flood_ends_at_the_output_limit() {
    let program = load("drip.wat", &command("", "(loop $again (call $write (i32.const 1) (i32.const 100) (i32.const 1)) (br $again))"));
    let run = run_within(program, std::time::Duration::from_secs(10));
    assert_eq!(run.outcome, Outcome::OutputLimit);
    assert_eq!(run.stdout.len(), Limits::default().output_bytes);
}

#[test]
fn a_module_with_more_functions_than_allowed_is_refused_before_compiling() {
    let functions = "(func)".repeat(sandbox::MAX_FUNCTIONS as usize + 1);
    let wat = format!(r#"(module (memory (export "memory") 1) {functions} (func (export "_start")))"#);
    let message = rejection("bomb.wat", wat.as_bytes(), Role::Answer);
    assert!(message.contains("more than 100000"), "{message}");
    // Compiling them would take many seconds; refusing takes a parse. A sandbox that
    // waits 1 ms for a compile would refuse it for its compile instead, if it compiled
    // first (the proof does not depend on how fast the machine is).
    let impatient = Sandbox::new().unwrap().with_compile_wait(std::time::Duration::from_millis(1));
    let error = impatient.load("bomb.wat", wat.as_bytes(), Role::Answer).unwrap_err().to_string();
    assert_eq!(error, message, "refused before compiling");
}

#[test]
fn a_forbidden_import_is_refused_before_the_rest_is_compiled() {
    let functions = "(func)".repeat(50_000);
    let wat = format!(
        r#"(module (import "wasi_snapshot_preview1" "sock_accept" (func (param i32 i32 i32) (result i32))) (memory (export "memory") 1) {functions} (func (export "_start")))"#
    );
    let message = rejection("sneaky.wat", wat.as_bytes(), Role::Answer);
    assert!(message.contains("sock_accept"), "{message}");
}

#[test]
fn a_function_with_too_many_locals_is_refused() {
    let wat = r#"(module (memory (export "memory") 1) (func (local i32 i32) ) (func (export "_start")))"#;
    accepted("ok.wat", wat.as_bytes(), Role::Answer);
    let locals = "i64 ".repeat(sandbox::MAX_LOCALS as usize + 1);
    let wat = format!(r#"(module (memory (export "memory") 1) (func (local {locals})) (func (export "_start")))"#);
    let message = rejection("locals.wat", wat.as_bytes(), Role::Answer);
    assert!(message.contains("locals"), "{message}");
}

/// A command whose `_start` runs `body`: `depth` copies of `push` then `depth` of `pop`.
fn nested(push: &str, pop: &str, depth: u32) -> String {
    format!(r#"(module (memory (export "memory") 1) (func (export "_start") {} {}))"#, push.repeat(depth as usize), pop.repeat(depth as usize))
}

#[test]
fn an_operand_stack_deeper_than_allowed_is_refused_before_compiling() {
    let at_limit = nested("(i32.const 7)", "(drop)", sandbox::MAX_OPERAND_DEPTH);
    accepted("deep.wat", at_limit.as_bytes(), Role::Answer);
    let beyond = nested("(i32.const 7)", "(drop)", sandbox::MAX_OPERAND_DEPTH + 1);
    let message = rejection("deep.wat", beyond.as_bytes(), Role::Answer);
    assert!(message.contains("operand stack gets deeper than 10000"), "{message}");
}

#[test]
fn blocks_nested_deeper_than_allowed_are_refused_before_compiling() {
    // The function's own body is one level of the control stack.
    let at_limit = nested("(block ", ")", sandbox::MAX_BLOCK_DEPTH - 1);
    accepted("wide.wat", at_limit.as_bytes(), Role::Answer);
    let beyond = nested("(block ", ")", sandbox::MAX_BLOCK_DEPTH);
    let message = rejection("wide.wat", beyond.as_bytes(), Role::Answer);
    assert!(message.contains("nests blocks deeper than 10000"), "{message}");
}

/// The `.cwasm` files of a compiled-module cache directory.
fn cached_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "cwasm")).collect();
    files.sort();
    files
}

#[test]
fn a_new_sandbox_loads_a_module_compiled_before_from_the_disk_cache_and_recompiles_an_unusable_one() {
    let dir = tempfile::tempdir().unwrap();
    let cached = |text: &str| {
        let sandbox = Sandbox::new().unwrap().with_disk_cache(dir.path().to_owned()).unwrap();
        let program = sandbox.load("cached.wat", command("", body_writing(text)).as_bytes(), Role::Answer).unwrap();
        String::from_utf8(sandbox.run(&program, b"", &Limits::default()).unwrap().stdout).unwrap()
    };
    fn body_writing(text: &str) -> &'static str {
        if text == "hello" { "(call $write (i32.const 1) (i32.const 100) (i32.const 5))" } else { "(call $write (i32.const 1) (i32.const 101) (i32.const 4))" }
    }
    assert_eq!(cached("hello"), "hello");
    assert_eq!(cached("ello"), "ello");
    let files = cached_files(dir.path());
    assert_eq!(files.len(), 2, "one compiled file per module");
    // A new process takes the compiled code from the cache, as it is: swapping the two
    // files swaps what the modules do (which is why the directory must be the service's own).
    let (first, second) = (std::fs::read(&files[0]).unwrap(), std::fs::read(&files[1]).unwrap());
    std::fs::write(&files[0], &second).unwrap();
    std::fs::write(&files[1], &first).unwrap();
    assert_eq!((cached("hello"), cached("ello")), ("ello".to_owned(), "hello".to_owned()));
    // A file this wasmtime cannot use is compiled again and replaced.
    for file in &files {
        std::fs::write(file, b"not a compiled module").unwrap();
    }
    assert_eq!((cached("hello"), cached("ello")), ("hello".to_owned(), "ello".to_owned()));
    assert!(files.iter().all(|f| std::fs::read(f).unwrap() != b"not a compiled module"), "the cache is repaired");
}

/// Every import a program may call but `proc_exit`, with arguments for a call that returns
/// (stdout 1 for a descriptor, the monotonic clock 1, 64 for an address of zeros).
const IMPORT_CALLS: &[(&str, &str, &str)] = &[
    ("wasi_snapshot_preview1", "args_get", "(i32.const 64) (i32.const 128)"),
    ("wasi_snapshot_preview1", "args_sizes_get", "(i32.const 64) (i32.const 128)"),
    ("wasi_snapshot_preview1", "clock_res_get", "(i32.const 1) (i32.const 64)"),
    ("wasi_snapshot_preview1", "clock_time_get", "(i32.const 1) (i64.const 0) (i32.const 64)"),
    ("wasi_snapshot_preview1", "environ_get", "(i32.const 64) (i32.const 128)"),
    ("wasi_snapshot_preview1", "environ_sizes_get", "(i32.const 64) (i32.const 128)"),
    ("wasi_snapshot_preview1", "fd_advise", "(i32.const 1) (i64.const 0) (i64.const 0) (i32.const 0)"),
    ("wasi_snapshot_preview1", "fd_close", "(i32.const 8)"),
    ("wasi_snapshot_preview1", "fd_datasync", "(i32.const 1)"),
    ("wasi_snapshot_preview1", "fd_fdstat_get", "(i32.const 1) (i32.const 64)"),
    ("wasi_snapshot_preview1", "fd_fdstat_set_flags", "(i32.const 1) (i32.const 0)"),
    ("wasi_snapshot_preview1", "fd_filestat_get", "(i32.const 1) (i32.const 64)"),
    ("wasi_snapshot_preview1", "fd_prestat_dir_name", "(i32.const 3) (i32.const 64) (i32.const 8)"),
    ("wasi_snapshot_preview1", "fd_prestat_get", "(i32.const 3) (i32.const 64)"),
    ("wasi_snapshot_preview1", "fd_read", "(i32.const 0) (i32.const 64) (i32.const 1) (i32.const 128)"),
    ("wasi_snapshot_preview1", "fd_seek", "(i32.const 1) (i64.const 0) (i32.const 0) (i32.const 64)"),
    ("wasi_snapshot_preview1", "fd_sync", "(i32.const 1)"),
    ("wasi_snapshot_preview1", "fd_tell", "(i32.const 1) (i32.const 64)"),
    ("wasi_snapshot_preview1", "fd_write", "(i32.const 1) (i32.const 64) (i32.const 1) (i32.const 128)"),
    ("wasi_snapshot_preview1", "poll_oneoff", "(i32.const 64) (i32.const 1024) (i32.const 1) (i32.const 128)"),
    ("wasi_snapshot_preview1", "random_get", "(i32.const 64) (i32.const 8)"),
    ("wasi_snapshot_preview1", "sched_yield", ""),
    ("wasi_snapshot_preview1", "fd_allocate", "(i32.const 1) (i64.const 0) (i64.const 8)"),
    ("wasi_snapshot_preview1", "fd_fdstat_set_rights", "(i32.const 1) (i64.const 0) (i64.const 0)"),
    ("wasi_snapshot_preview1", "fd_filestat_set_size", "(i32.const 1) (i64.const 0)"),
    ("wasi_snapshot_preview1", "fd_filestat_set_times", "(i32.const 1) (i64.const 0) (i64.const 0) (i32.const 0)"),
    ("wasi_snapshot_preview1", "fd_pread", "(i32.const 0) (i32.const 64) (i32.const 1) (i64.const 0) (i32.const 128)"),
    ("wasi_snapshot_preview1", "fd_pwrite", "(i32.const 1) (i32.const 64) (i32.const 1) (i64.const 0) (i32.const 128)"),
    ("wasi_snapshot_preview1", "fd_readdir", "(i32.const 3) (i32.const 256) (i32.const 64) (i64.const 0) (i32.const 128)"),
    ("wasi_snapshot_preview1", "fd_renumber", "(i32.const 9) (i32.const 8)"),
    ("wasi_snapshot_preview1", "path_create_directory", "(i32.const 3) (i32.const 64) (i32.const 1)"),
    ("wasi_snapshot_preview1", "path_filestat_get", "(i32.const 3) (i32.const 0) (i32.const 64) (i32.const 1) (i32.const 128)"),
    ("wasi_snapshot_preview1", "path_filestat_set_times", "(i32.const 3) (i32.const 0) (i32.const 64) (i32.const 1) (i64.const 0) (i64.const 0) (i32.const 0)"),
    ("wasi_snapshot_preview1", "path_link", "(i32.const 3) (i32.const 0) (i32.const 64) (i32.const 1) (i32.const 3) (i32.const 72) (i32.const 1)"),
    (
        "wasi_snapshot_preview1",
        "path_open",
        "(i32.const 3) (i32.const 0) (i32.const 64) (i32.const 1) (i32.const 0) (i64.const 0) (i64.const 0) (i32.const 0) (i32.const 128)",
    ),
    ("wasi_snapshot_preview1", "path_readlink", "(i32.const 3) (i32.const 64) (i32.const 1) (i32.const 256) (i32.const 64) (i32.const 128)"),
    ("wasi_snapshot_preview1", "path_remove_directory", "(i32.const 3) (i32.const 64) (i32.const 1)"),
    ("wasi_snapshot_preview1", "path_rename", "(i32.const 3) (i32.const 64) (i32.const 1) (i32.const 3) (i32.const 72) (i32.const 1)"),
    ("wasi_snapshot_preview1", "path_symlink", "(i32.const 64) (i32.const 1) (i32.const 3) (i32.const 72) (i32.const 1)"),
    ("wasi_snapshot_preview1", "path_unlink_file", "(i32.const 3) (i32.const 64) (i32.const 1)"),
    ("bugrank", "choice", "(i64.const 1)"),
    ("bugrank", "size", ""),
];

/// A generator that calls `module.name(args)` `times` times, dropping the result.
fn calling(module: &str, name: &str, args: &str, times: u32) -> String {
    let params: Vec<&str> = args.split(['(', ' ']).filter(|word| word.ends_with(".const")).map(|word| &word[..3]).collect();
    let result = if name == "choice" { "i64" } else { "i32" };
    format!(
        r#"(module
  (import "{module}" "{name}" (func $f (param {}) (result {result})))
  (memory (export "memory") 1)
  (func (export "_start") (local $n i32)
    (local.set $n (i32.const {times}))
    (block $done (loop $again
      (br_if $done (i32.eqz (local.get $n)))
      (drop (call $f {args}))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br $again)))))"#,
        params.join(" ")
    )
}

#[test]
fn every_import_a_program_may_call_costs_at_least_a_host_calls_fuel_per_call() {
    let measured: Vec<&str> = IMPORT_CALLS.iter().filter(|(module, ..)| *module == "wasi_snapshot_preview1").map(|(_, name, _)| *name).collect();
    let allowed: Vec<&str> = sandbox::ALLOWED_WASI_IMPORTS.iter().chain(sandbox::NO_FILE_IMPORTS).copied().filter(|name| *name != "proc_exit").collect();
    assert_eq!(measured, allowed, "every allowed import but proc_exit (which ends the run) is measured");
    let fuel = |module: &str, name: &str, args: &str, times: u32| {
        let generator = sandbox().load("calls.wat", calling(module, name, args, times).as_bytes(), Role::Generator).unwrap();
        let (run, _) = sandbox().generate(&generator, Fixed { values: vec![0; 2000], asked: vec![] }, &Limits::default()).unwrap();
        assert_eq!(run.outcome, Outcome::Exited(0), "{module}.{name}");
        run.fuel_used
    };
    for (module, name, args) in IMPORT_CALLS {
        let per_call = (fuel(module, name, args, 1000) - fuel(module, name, args, 0)) / 1000;
        assert!(per_call >= sandbox::HOST_CALL_FUEL, "{module}.{name} costs {per_call} fuel a call");
    }
}

#[test]
fn a_module_that_compiles_for_longer_than_the_wait_is_refused_when_the_wait_ends() {
    let functions = "(func (param i32) (result i32) (i32.mul (i32.add (local.get 0) (i32.const 7)) (local.get 0)))".repeat(20_000);
    let wat = format!(r#"(module (memory (export "memory") 1) {functions} (func (export "_start")))"#);
    let impatient = Sandbox::new().unwrap().with_compile_wait(std::time::Duration::from_millis(10));
    let refusals: Vec<_> = (0..2)
        .map(|_| {
            let started = std::time::Instant::now();
            let error = impatient.load("slow.wat", wat.as_bytes(), Role::Answer).unwrap_err();
            assert!(error.to_string().contains("slow.wat") && error.to_string().contains("takes longer than 0.01 s to compile"), "{error}");
            started.elapsed()
        })
        .collect();
    // Each refusal came when the wait ended, well before the compile would have: timed
    // against the whole compile of the same module on this machine as it is now (a busy
    // machine slows both).
    let started = std::time::Instant::now();
    assert!(Sandbox::new().unwrap().load("slow.wat", wat.as_bytes(), Role::Answer).is_ok(), "within the usual wait it compiles");
    let compile = started.elapsed();
    assert!(refusals.iter().all(|&refusal| refusal < compile / 2), "refused after {refusals:?}; the compile takes {compile:?}");
}

/// A harness's import: what it writes through it is the judged output.
const HARNESS_OUTPUT: &str = r#"(import "bugrank" "output" (func $output (param i32 i32) (result i32)))"#;

/// Runs `body` in a program that imports [`HARNESS_OUTPUT`].
fn harnessed(body: &str, expected: Outcome) -> sandbox::Run {
    let program = load("harnessed.wat", &command(HARNESS_OUTPUT, body));
    let run = sandbox().run(&program, b"", &Limits::default()).unwrap();
    assert_eq!(run.outcome, expected, "judged {:?}", String::from_utf8_lossy(&run.stdout));
    run
}

#[test]
fn a_harness_output_is_judged_and_the_functions_own_prints_are_kept_apart() {
    // The student's printf ("hello\n" on stdout) around the harness's "llo".
    let run = harnessed(
        "(call $write (i32.const 1) (i32.const 100) (i32.const 6))
         (drop (call $output (i32.const 102) (i32.const 3)))
         (call $write (i32.const 1) (i32.const 100) (i32.const 6))",
        Outcome::Exited(0),
    );
    assert_eq!(run.stdout, b"llo");
    assert_eq!(run.printed, b"hello\nhello\n");
}

#[test]
fn a_program_without_a_harness_prints_its_judged_output_to_stdout() {
    let run = check("(call $write (i32.const 1) (i32.const 100) (i32.const 6))", "", Outcome::Exited(0));
    assert_eq!(run.stdout, b"hello\n");
    assert!(run.printed.is_empty());
}

#[test]
fn harness_output_outside_memory_is_efault_and_the_run_goes_on() {
    let run = harnessed(
        "(if (i32.ne (call $output (i32.const 65530) (i32.const 100)) (i32.const 21)) (then (unreachable)))
         (drop (call $output (i32.const 100) (i32.const 6)))",
        Outcome::Exited(0),
    );
    assert_eq!(run.stdout, b"hello\n");
}

#[test]
fn a_flood_of_the_functions_own_prints_or_of_harness_output_hits_the_output_limit() {
    let printed = harnessed("(loop $more (call $write (i32.const 1) (i32.const 100) (i32.const 6)) (br $more))", Outcome::OutputLimit);
    assert_eq!(printed.printed.len(), Limits::default().output_bytes);
    let judged = harnessed("(loop $more (drop (call $output (i32.const 100) (i32.const 6))) (br $more))", Outcome::OutputLimit);
    assert_eq!(judged.stdout.len(), Limits::default().output_bytes);
}

#[test]
fn a_harness_cannot_ask_for_a_generators_choices() {
    let wat = command(r#"(import "bugrank" "choice" (func $choice (param i64) (result i64)))"#, "");
    let error = sandbox().load("choosy.wat", wat.as_bytes(), Role::Answer).unwrap_err().to_string();
    assert!(error.contains("imports `bugrank.choice`") && error.contains("only generators may ask the host for choices"), "{error}");
}

/// A program that looks at 4 MiB of its memory past the first page, exits with 1 if any
/// byte of it is not zero (what a fresh memory holds), and then fills it all.
const LOOK_THEN_FILL: &str = r#"(local $at i32) (local $seen i32)
    (drop (memory.grow (i32.const 64)))
    (local.set $at (i32.const 65536))
    (block $done (loop $look
        (br_if $done (i32.ge_u (local.get $at) (i32.const 4259840)))
        (local.set $seen (i32.or (local.get $seen) (i32.load (local.get $at))))
        (local.set $at (i32.add (local.get $at) (i32.const 4)))
        (br $look)))
    (if (local.get $seen) (then (call $proc_exit (i32.const 1))))
    (memory.fill (i32.const 65536) (i32.const 0xAB) (i32.const 4194304))
    (call $write (i32.const 1) (i32.const 100) (i32.const 6))"#;

#[test]
fn a_run_never_sees_what_an_earlier_run_wrote_to_its_memory() {
    // Two programs, each run many times in turn: every run starts from fresh memory, the
    // pages kept resident between runs and those given back alike.
    let first = load("first.wat", &command("", LOOK_THEN_FILL));
    let second = load("second.wat", &command("", &LOOK_THEN_FILL.replace("0xAB", "0x5A")));
    for round in 0..20 {
        for program in [&first, &second] {
            let run = sandbox().run(program, b"", &Limits::default()).unwrap();
            assert_eq!(run.outcome, Outcome::Exited(0), "round {round}: the memory held an earlier run's bytes");
        }
    }
}
