//! Hostile Python hand-ins, each graded by `bugrank grade` beside an honest module, as the
//! modules of `modules.rs` are: every one ends with the outcome it earns, and nothing of
//! the host (files, processes, network) reaches it. (More cases, run without grading, are
//! in `sandbox/tests/interpreter.rs`: the environment, processes, threads, imports.)

use crate::Case;
use crate::modules::{Expect, graded};

/// Most cases grade in 2-4 s (bugrank's interpreter is snapshotted by the first case and
/// loaded from the shared cache by the others), in some 75 MB; an endless loop, out of fuel
/// on every test with Python's larger budget, takes longest (measured on 2 cores, other
/// work running).
const PYTHON: (f64, u64) = (60.0, 400);

/// A correct Python answer of interval sets (the problem's own reference.py) with `ending`
/// after it.
fn right_answers_then(ending: &str) -> Vec<u8> {
    let correct = std::fs::read(crate::common::fixture("interval-sets").join("reference.py")).unwrap();
    [correct, b"\n".to_vec(), ending.as_bytes().to_vec()].concat()
}

pub fn cases() -> Vec<Case> {
    use Expect::{Fails, NotBuilt};
    vec![
        graded("Python: an endless loop", "x.py", || b"while True:\n    pass\n".to_vec(), Fails("timeout"), PYTHON),
        graded("Python: recursion without end", "x.py", || b"def f(n):\n    return f(n + 1)\nf(0)\n".to_vec(), Fails("crash"), PYTHON),
        graded("Python: a 10 GB list", "x.py", || b"x = [0] * (10 * 1024**3 // 8)\nprint(len(x))\n".to_vec(), Fails("memory"), PYTHON),
        graded("Python: a flood of output", "x.py", || b"while True:\n    print('flood' * 1000)\n".to_vec(), Fails("output"), PYTHON),
        graded("Python: os.system", "x.py", || b"import os\nos.system('cat /etc/passwd')\n".to_vec(), Fails("crash"), PYTHON),
        graded("Python: opening /etc/passwd", "x.py", || b"print(open('/etc/passwd').read())\n".to_vec(), Fails("crash"), PYTHON),
        graded("Python: reading /proc", "x.py", || b"print(open('/proc/self/environ').read())\n".to_vec(), Fails("crash"), PYTHON),
        graded("Python: a socket", "x.py", || b"import socket\nsocket.create_connection(('127.0.0.1', 22)).send(b'x')\n".to_vec(), Fails("crash"), PYTHON),
        graded("Python: right answers, then sys.exit(2**70)", "x.py", || right_answers_then("import sys\nsys.exit(2**70)\n"), Fails("crash"), PYTHON),
        graded(
            "Python: right answers, then an atexit function without end",
            "x.py",
            || right_answers_then("import atexit\ndef f():\n    while True:\n        pass\natexit.register(f)\n"),
            Fails("timeout"),
            PYTHON,
        ),
        graded("Python: a syntax error", "x.py", || b"print('a'\n".to_vec(), NotBuilt("SyntaxError: '(' was never closed"), PYTHON),
    ]
}
