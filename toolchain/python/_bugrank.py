"""bugrank's side of CPython: compiles a student's program once, runs it on each input.

Imported by bugrank_init() (bugrank_python.c) before the host takes its snapshot of the
initialised interpreter, so this module, the modules of PRELOADED and a copy of the
standard library's archive are in every run's starting memory: a program that imports a
module finds it in sys.modules or in that copy, never in a file. The host calls
compile_answer once per program and run_answer once per run, each on a fresh copy of the
snapshot; nothing of one run reaches the next.
"""

import ast
import atexit
import builtins
import contextlib
import gc
import hashlib
import importlib
import importlib.machinery
import importlib.util
import io
import linecache
import marshal
import sys
import traceback
import types
import zipfile

import _bugrank_gen
import bugrank_harness

# What programs of introductory courses import, imported before the snapshot: importing
# them again costs a dictionary lookup instead of unmarshalling and running the module.
# (They cost nothing per run: a run's memory is a copy-on-write mapping of the snapshot.)
PRELOADED = (
    "abc", "argparse", "array", "base64", "bisect", "calendar", "cmath", "collections",
    "collections.abc", "contextlib", "copy", "csv", "dataclasses", "datetime", "decimal",
    "enum", "fractions", "functools", "heapq", "itertools", "json", "math", "numbers",
    "operator", "os", "pprint", "queue", "random", "re", "statistics", "string", "struct",
    "textwrap", "time", "typing", "unicodedata",
    # Not for what they can do here (nothing: no network, no processes), but so that a
    # program that tries costs a failed call, not tens of millions of fuel per run.
    "socket", "subprocess",
    # What a traceback of a wrong name imports to find its "Did you mean" (3.13's
    # traceback: the first import of a built-in module goes through importlib, some 240,000
    # fuel, in every run that ends in a NameError or AttributeError).
    "_suggestions",
    # What a function-level assignment's harness writes its output with, and what a
    # generator draws its choices with (every generator run imports it: unmarshalling and
    # running its 16 KB each time cost more than many generators' own work).
    "bugrank_harness", "bugrank_gen",
)
for _name in PRELOADED:
    importlib.import_module(_name)

# Where the standard library is while the interpreter initialises (the only time it reads
# a file: bugrank's sandbox preopens it read-only for the snapshot, and runs have none but
# a validator's, which the host serves from memory).
LIBRARY = "/usr/local/lib/python313.zip"


class StandardLibrary:
    """The standard library's compiled modules, decompressed into memory (and so into the
    snapshot) by entry name: an import during a run reads no file and inflates nothing,
    it unmarshals the code and runs it."""

    def __init__(self, path):
        with open(path, "rb") as archive:
            with zipfile.ZipFile(io.BytesIO(archive.read())) as library:
                self.entries = {name: library.read(name) for name in library.namelist() if name.endswith(".pyc")}
        self.path = path

    def find_spec(self, fullname, path=None, target=None):
        base = fullname.replace(".", "/")
        for entry, package in ((f"{base}/__init__.pyc", True), (f"{base}.pyc", False)):
            if entry in self.entries:
                spec = importlib.util.spec_from_loader(fullname, self, origin=f"{self.path}/{entry[:-1]}", is_package=package)
                if package:
                    spec.submodule_search_locations = [f"{self.path}/{base}"]
                spec.loader_state = entry
                return spec
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        spec = module.__spec__
        module.__file__ = spec.origin
        # (A .pyc is a 16-byte header, then the marshalled code.)
        code = marshal.loads(memoryview(self.entries[spec.loader_state])[16:])
        exec(code, module.__dict__)


# From here on, imports come from memory: the archive's path leaves sys.path, and the
# finder goes before the one that searches sys.path.
sys.meta_path.insert(sys.meta_path.index(importlib.machinery.PathFinder), StandardLibrary(LIBRARY))
sys.path[:] = []
sys.path_importer_cache.clear()

# A program's atexit functions run at its end (run_answer); none of the set-up's is its.
atexit._clear()


# The module a function-level assignment's harness imports the hand-in as.
ANSWER = "answer"

# The hand-in's module and its spec, made here, in the snapshot, so that a run pays for
# neither (every run starts from the snapshot: each gets them fresh, never a previous
# run's). A module imported natively has a spec, whose `_initializing` every later import
# of it reads (without one, `import answer` in the harness raises and clears an
# AttributeError each time). run_answer sets their file name and puts the module in
# sys.modules, for a hand-in's run only.
ANSWER_MODULE = type(sys)(ANSWER)
ANSWER_MODULE.__spec__ = importlib.machinery.ModuleSpec(ANSWER, None)
ANSWER_MODULE.__spec__._initializing = False


class Refused(Exception):
    """Why a program cannot be compiled, in the words a student reads."""


def compile_answer(request):
    """`<file name>\\0<source>` compiled: 0 and, on stdout, the program's `same_code` digest
    (32 bytes) then the marshalled program; or 1 and Python's own error on stderr (a syntax
    error, or an import that cannot work here).

    With `\\0<harness name>\\0<harness source>` after it, the source is a hand-in of a
    function-level assignment: the harness is the program and the hand-in its module
    `answer`, which must define what the harness uses of it and must not read the input
    when it is imported."""
    parts = request.split(b"\0")
    try:
        if len(parts) == 2:
            program = compiled(parts[0], parts[1])
            failure = unavailable_import(program[3], program[1], program[2])
            if failure:
                raise Refused(failure)
            result = program[:3]
        elif len(parts) == 4:
            result = harnessed(compiled(parts[0], parts[1]), compiled(parts[2], parts[3]))
        else:
            raise Refused("SyntaxError: source code cannot contain null bytes")
    except Refused as refused:
        print(refused, file=sys.stderr)
        return 1
    sys.stdout.buffer.write(same_code(result[0], *result[3:4]))
    sys.stdout.buffer.write(marshal.dumps(result))
    sys.stdout.flush()
    return 0


def same_code(*codes):
    """SHA-256 of what running `codes` executes: the bytecode, constants, names, flags and
    exception tables of each and of every code object within it (functions, classes,
    comprehensions), in order. Set aside: file names, line numbers and columns, and so a
    source's comments, blank lines and spacing, which compile to nothing else. Programs
    with the same digest run the same instructions on the same constants: they write the
    same output, with the same status. What differs: what names a line or a file (a
    traceback on stderr, `__file__`), the cost of loading a longer source and line tables
    (some hundreds of instructions), and where the allocator puts objects after them,
    which only `id()` and default `repr`s show."""
    digest = hashlib.sha256()
    for code in codes:
        digest.update(repr(code_key(code)).encode("utf-8", "surrogatepass"))
    return digest.digest()


def code_key(code):
    """What of `code` `same_code` compares (a tuple of plain values)."""
    return (
        code.co_code, tuple(constant_key(c) for c in code.co_consts), code.co_names, code.co_varnames,
        code.co_freevars, code.co_cellvars, code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
        code.co_flags, code.co_stacksize, code.co_name, code.co_qualname, code.co_exceptiontable,
    )


def constant_key(value):
    """A constant as `same_code` compares it: by type and value (`1`, `1.0` and `True` are
    equal but not the same constant), a frozenset's members in a fixed order."""
    if isinstance(value, types.CodeType):
        return ("code", code_key(value))
    if isinstance(value, tuple):
        return ("tuple", tuple(constant_key(v) for v in value))
    if isinstance(value, frozenset):
        return ("frozenset", tuple(sorted(repr(constant_key(v)) for v in value)))
    return (type(value).__name__, repr(value))


def compiled(name, source):
    """(code, file name, text, tree) of a source, or Refused with Python's own words."""
    filename = name.decode("utf-8", "replace")
    try:
        tree = ast.parse(source, filename)
        code = compile(tree, filename, "exec", dont_inherit=True)
        text = importlib.util.decode_source(source)
    except (SyntaxError, ValueError, UnicodeDecodeError) as error:
        raise Refused("".join(traceback.format_exception(type(error), error, None)).rstrip("\n")) from None
    return code, filename, text, tree


def harnessed(answer, harness):
    """The program of a hand-in `answer` run by `harness` (each as `compiled` gives it):
    (harness code, name, text, answer code, name, text), or Refused saying why not."""
    failure = unavailable_import(answer[3], answer[1], answer[2]) or unavailable_import(harness[3], harness[1], harness[2], skip=ANSWER)
    if failure:
        raise Refused(failure)
    said = []
    reads = input_read_when_loaded(answer[3], answer[2])
    if reads:
        said.append(
            f"Your file reads the input itself when it is loaded (line {reads[0]}: `{reads[1]}`), but in this assignment the "
            "course's harness reads the tests and calls your functions. Keep your own test code under "
            '`if __name__ == "__main__":`, which is left out here.'
        )
    missing = [name for name in used_of_answer(harness[3]) if name not in defined_at_top(answer[3])]
    if missing:
        names = ", ".join(f"`{name}`" for name in missing)
        said.append(f"Your file does not define {names}, which the harness calls.")
    if said:
        raise Refused(" ".join(said))
    return harness[0], harness[1], harness[2], answer[0], answer[1], answer[2]


def used_of_answer(tree):
    """The names of `answer` the harness uses (`answer.insert`, `from answer import insert`),
    in the order first used."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == ANSWER:
            found = [node.attr]
        elif isinstance(node, ast.ImportFrom) and node.module == ANSWER and node.level == 0:
            found = [alias.name for alias in node.names if alias.name != "*"]
        else:
            found = []
        names.extend(name for name in found if name not in names)
    return names


def top_level(tree):
    """The statements run when `tree`'s module is imported: the module's own, and those in
    its `if`, `try`, `with` and loops, but not under `if __name__ == "__main__":`."""
    found = []

    def visit(statements):
        for node in statements:
            if isinstance(node, ast.If) and is_main_guard(node.test):
                visit(node.orelse)
                continue
            found.append(node)
            if isinstance(node, (ast.If, ast.For, ast.While, ast.With)):
                visit(node.body)
                visit(node.orelse if hasattr(node, "orelse") else [])
            elif isinstance(node, ast.Try):
                for part in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                    visit(part)

    visit(tree.body)
    return found


def is_main_guard(test):
    """Whether `test` is `__name__ == "__main__"` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


def defined_at_top(tree):
    """The names a module defines when it is imported."""
    names = set()
    for node in top_level(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With)):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            if isinstance(node, ast.With):
                targets = [item.optional_vars for item in node.items]
            for target in targets:
                for name in ast.walk(target) if target is not None else []:
                    if isinstance(name, ast.Name):
                        names.add(name.id)
    return names


def input_read_when_loaded(tree, text):
    """(line, the line's text) of the first read of the input the module makes when it is
    imported (`input()`, `sys.stdin`, `open(0)`), outside any function; None if none."""
    lines = text.splitlines()
    for statement in top_level(tree):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        parts = [statement.test] if isinstance(statement, (ast.If, ast.While)) else [statement]
        if isinstance(statement, (ast.For,)):
            parts = [statement.iter]
        for part in parts:
            for node in ast.walk(part):
                reads = (
                    isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "input"
                    or isinstance(node, ast.Attribute) and node.attr == "stdin"
                    or isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open"
                    and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0
                )
                if reads:
                    number = getattr(node, "lineno", statement.lineno)
                    return number, lines[number - 1].strip() if number <= len(lines) else ""
    return None


def unavailable_import(tree, filename, text, skip=None):
    """The first import, outside any `try`, of a module that cannot be imported here (not
    in the standard library, or needing what WASI does not give: sockets, processes,
    threads), said as Python says it, with its line; None when every import works. An
    import of the module `skip` is not checked (a harness's of `answer`)."""
    lines = text.splitlines()
    for node in unguarded_imports(tree):
        if skip and (isinstance(node, ast.ImportFrom) and node.module == skip or isinstance(node, ast.Import) and any(a.name == skip for a in node.names)):
            continue
        try:
            # A module's own output while importing is not the program's.
            with contextlib.redirect_stdout(io.StringIO()):
                check_import(node)
        except Exception as error:
            line = lines[node.lineno - 1].strip() if node.lineno <= len(lines) else ""
            return f'  File "{filename}", line {node.lineno}\n    {line}\n{type(error).__name__}: {error}'
    return None


def unguarded_imports(tree):
    """The absolute imports of `tree` that no `try` encloses (a program may try an import
    and do without it)."""
    found = []

    def visit(node, guarded):
        if isinstance(node, ast.Try):
            for child in node.body:
                visit(child, True)
            for child in [*node.handlers, *node.orelse, *node.finalbody]:
                visit(child, guarded)
            return
        if not guarded and (isinstance(node, ast.Import) or isinstance(node, ast.ImportFrom) and node.level == 0):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child, guarded)

    visit(tree, False)
    return found


def check_import(node):
    """Imports what `node` imports, raising ImportError as the program would."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            importlib.import_module(alias.name)
        return
    module = importlib.import_module(node.module)
    for alias in node.names:
        if alias.name != "*" and not hasattr(module, alias.name):
            try:
                importlib.import_module(f"{node.module}.{alias.name}")
            except ImportError:
                raise ImportError(f"cannot import name {alias.name!r} from {node.module!r}") from None


def run_answer(request):
    """Runs a program compiled by compile_answer as __main__: its exit status, or (-1, the
    last line of its traceback) when an exception ends it (the traceback on stderr). A
    hand-in with its harness is first run as the module `answer`, then the harness as
    __main__. An empty request runs the program prepare_answer made ready, from where it
    left: the harness as __main__."""
    if request:
        args, request = arguments(request)
        program = marshal.loads(request)
        answer = enter(program, args)
    else:
        program, answer = PREPARED, None
    # (Inline, not in a function of its own: every frame here is one less for the program's
    # recursion, whose limit counts them all.)
    result = 0
    try:
        if answer is not None:
            exec(program[3], answer.__dict__)
        exec(program[0], sys.modules["__main__"].__dict__)
    except SystemExit as exit:
        result = exit_status(exit.code)
    except BaseException as error:
        result = uncaught(error, program)
    return ended(result)


# The program prepare_answer made ready: run_answer of an empty request runs its harness.
PREPARED = None


def prepare_answer(request):
    """What every run of a hand-in with its harness shares, done once: the program set up
    as run_answer sets it up and the hand-in run as the module `answer`. 0 when that went
    through; the host then keeps this instance's state as the start of each of the
    program's runs (run_answer of an empty request runs the harness from there), which is
    where run_answer would be when it starts the harness. 1 when the program must run whole
    each time (no harness, or the hand-in's module raised or exited: run_answer says so in
    the run). The host keeps the state only when nothing reached it meanwhile (no input
    read, no output written: a print of the module's is still in sys.stdout's buffer, and
    is written in the run, as run_answer writes it)."""
    global PREPARED
    program = marshal.loads(request)
    if len(program) != 6:
        return 1
    answer = enter(program)
    try:
        exec(program[3], answer.__dict__)
    except BaseException:
        return 1
    PREPARED = program
    return 0


def arguments(request):
    """The arguments a run's request gives before its program (a validator's: the host's
    interpreter.rs, with_arguments), and the program: a 0 byte, the arguments' bytes'
    count (4 bytes, little-endian) and each argument followed by a 0; a request without
    them (marshal's first byte is never 0) is the program alone."""
    if request[0] != 0:
        return [], request
    end = 5 + int.from_bytes(request[1:5], "little")
    return request[5:end].decode().split("\0")[:-1], memoryview(request)[end:]


def enter(program, args=()):
    """Sets up `program` (as compile_answer made it) to run as __main__: its file name and
    argv (`args` after the name), and, for a hand-in with its harness, the module `answer`
    (returned; else None) and the output's guard."""
    code, filename = program[:2]
    answer = None
    if len(program) == 6:
        answer = ANSWER_MODULE
        answer.__file__ = answer.__spec__.origin = program[4]
        sys.modules[ANSWER] = answer
    main = sys.modules["__main__"]
    main.__file__ = filename
    sys.argv[:] = [filename, *args]
    if answer is not None:
        # From here on only the harness writes the judged output (bugrank_python.c).
        _bugrank_gen.guard(_bugrank_gen.codes_within(code) + HARNESS_LIBRARY, [main.__dict__, vars(bugrank_harness)], (vars(bugrank_harness),), HARNESS_BUILTINS)
    return answer


def uncaught(error, program):
    """An exception that ended `program`: its traceback on stderr (with the lines of the
    program's sources), and (-1, its last line)."""
    sources = [(program[1], program[2])] + ([(program[4], program[5])] if len(program) == 6 else [])
    for name, source in sources:
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    return (-1, print_traceback(error, {name for name, _ in sources}))


def ended(result):
    """`result` once the program has ended as Python ends: the functions registered with
    atexit run, within the run's budget (one that loops runs out of time; an exception in
    one is printed and the status stays), and the streams are flushed."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:
            pass
    return result


# What the output's guard allows of bugrank_harness, found once (its every run is the same):
# the code of its functions, and the built-ins they use, which must stay as they are.
HARNESS_LIBRARY = [
    code for value in vars(bugrank_harness).values() if isinstance(value, types.FunctionType) for code in _bugrank_gen.codes_within(value.__code__)
]
HARNESS_BUILTINS = {name: vars(builtins)[name] for code in HARNESS_LIBRARY for name in code.co_names if name in vars(builtins)}


# The calls of a traceback shown, the innermost: a recursion stopped at its limit has a
# thousand, the same few repeated, and formatting them all costs more than most runs.
TRACEBACK_CALLS = 20


def print_traceback(error, files):
    """The traceback of `error` on stderr, as Python prints it, from the program's first
    call (this module's frames are left out), or its last TRACEBACK_CALLS calls; each call
    with its line, without the carets (`~~~^^^`) under the part of the line that raised.
    Returns the exception's line as `traceback.format_exception_only` gives it (stripped).

    The carets are what Python 3.11 and later add: to place them, 3.13's traceback parses
    each shown line twice (`ast.parse`). Without them a traceback is what Python 3.10
    printed, the same files, lines and exception; and a crash message keeps only the head
    and tail of stderr, where the carets took room from the exception's line. A traceback
    whose calls are all in `files` (the program's sources, in linecache) and that has no
    chained exception, group, notes or syntax error is written by quick_traceback, without
    the traceback module's objects. (The search cohort's runs that end in an exception
    cost 4.2 million fuel on average with the carets, over half of its grading's CPU time;
    2.3 million without them; 1.05 million written quickly.)"""
    calls = []
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_globals is globals():
        tb = tb.tb_next
    while tb is not None:
        calls.append(tb)
        tb = tb.tb_next
    left_out = max(len(calls) - TRACEBACK_CALLS, 0)
    first = calls[left_out] if calls else None
    quick = quick_traceback(error, first, files)
    if quick is not None:
        lines, line = quick
    else:
        lines, line = full_traceback(error, first), traceback.format_exception_only(type(error), error)[-1]
    if left_out:
        lines.insert(1, f"  ({left_out} earlier calls left out)\n")
    sys.stderr.write("".join(lines))
    return line.strip()


def full_traceback(error, tb):
    """traceback.format_exception(type(error), error, tb) without the carets: every
    traceback it prints (the exception's, those it was raised from or during, and an
    exception group's members) has its calls' columns taken away."""
    shown = traceback.TracebackException(type(error), error, tb, compact=True)
    todo, seen = [shown], set()
    while todo:
        exception = todo.pop()
        if id(exception) in seen:
            continue
        seen.add(id(exception))
        for frame in exception.stack:
            frame.colno = frame.end_colno = None
        todo.extend(linked for linked in (exception.__cause__, exception.__context__) if linked is not None)
        todo.extend(exception.exceptions or ())
    return list(shown.format())


def quick_traceback(error, tb, files):
    """What full_traceback(error, tb) and the last line of
    traceback.format_exception_only(type(error), error) give, made directly, for the
    common case: every call in `files`, with its line numbers; no exception chained to
    this one; no group, notes or syntax error; sys.tracebacklimit not set. None for any
    other, or if anything fails. Each step is 3.13's traceback module's (StackSummary's
    _extract_from_extended_frame_gen, format_frame_summary with no columns and format,
    TracebackException's message): the interpreter's tests check the two agree."""
    try:
        if (
            error.__cause__ is not None
            or error.__context__ is not None
            or isinstance(error, (BaseExceptionGroup, SyntaxError))
            or getattr(error, "__notes__", None) is not None
            or hasattr(sys, "tracebacklimit")
        ):
            return None
        lines = ["Traceback (most recent call last):\n"] if tb is not None else []
        last, repeated, call_tb = None, 0, tb
        while call_tb is not None:
            code = call_tb.tb_frame.f_code
            start, end = traceback._get_code_position(code, call_tb.tb_lasti)[:2]
            if start is None:
                start = call_tb.tb_lineno
            if code.co_filename not in files or code.co_filename.startswith("<") or end is None:
                return None
            call = (code.co_filename, start, code.co_name)
            if call != last:
                lines.extend(repeats(repeated))
                last, repeated = call, 0
            repeated += 1
            if repeated <= traceback._RECURSIVE_CUTOFF:
                text = [linecache.getline(code.co_filename, number).strip() for number in range(start, end + 1)]
                shown = f"    {text[0]}\n" if text[0] else "\n"
                lines.append(f'  File "{code.co_filename}", line {start}, in {code.co_name}\n' + (shown if any(text) else ""))
            call_tb = call_tb.tb_next
        lines.extend(repeats(repeated))
        lines.append(exception_line(error, tb))
        return lines, exception_line(error, None)
    except Exception:
        return None


def repeats(count):
    """StackSummary.format's line for a call shown `count` times in a row: none up to
    three."""
    count -= traceback._RECURSIVE_CUTOFF
    return [f'  [Previous line repeated {count} more time{"s" if count > 1 else ""}]\n'] if count > 0 else []


def exception_line(error, tb):
    """TracebackException's line for `error`: its type (with its module, but for built-ins
    and __main__), its message and, for a wrong name, the suggestion it finds with `tb`
    (a NameError's looks in the calls' variables: with None, it has none)."""
    message = traceback._safe_string(error, "exception")
    kind = type(error)
    if issubclass(kind, ImportError) and getattr(error, "name_from", None) is not None:
        suggestion = traceback._compute_suggestion_error(error, tb, getattr(error, "name_from", None))
        if suggestion:
            message += f". Did you mean: '{suggestion}'?"
    elif issubclass(kind, (NameError, AttributeError)) and getattr(error, "name", None) is not None:
        wrong = getattr(error, "name", None)
        suggestion = traceback._compute_suggestion_error(error, tb, wrong)
        if suggestion:
            message += f". Did you mean: '{suggestion}'?"
        if issubclass(kind, NameError) and wrong is not None and wrong in sys.stdlib_module_names:
            message += f" Or did you forget to import '{wrong}'?" if suggestion else f". Did you forget to import '{wrong}'?"
    name, module = kind.__qualname__, kind.__module__
    if module not in ("__main__", "builtins"):
        name = (module if isinstance(module, str) else "<unknown>") + "." + name
    return traceback._format_final_exc_line(name, message)


def exit_status(code):
    """The exit status of `sys.exit(code)`, as CPython's own on a 64-bit system: None is 0,
    an integer its low 8 bits (one beyond a C long is -1 there, so 255: `sys.exit(2**70)`
    fails as natively), anything else is printed on stderr and is 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF if -(1 << 63) <= code < 1 << 63 else 0xFF
    with contextlib.suppress(Exception):
        print(code, file=sys.stderr)
    return 1


# Every import of a module already imported reads its spec's `_initializing` (CPython's
# import_ensure_initialized); a spec without one (the built-in modules', `sys` among them,
# and this module's own) makes that read raise and clear an AttributeError, some 7,000
# fuel for each `import sys` of every run. Imports during a run set theirs as they load.
for _module in list(sys.modules.values()):
    _spec = getattr(_module, "__spec__", None)
    if _spec is not None and not hasattr(_spec, "_initializing"):
        with contextlib.suppress(AttributeError, TypeError):
            _spec._initializing = False
del _module, _spec

# Everything made so far (this module's functions too) is the snapshot's: the cyclic
# garbage collector leaves it alone (a full collection would otherwise walk, and write to,
# every page of it in some runs).
gc.collect()
gc.freeze()
