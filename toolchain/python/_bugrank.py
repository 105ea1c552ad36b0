"""bugrank's side of CPython: compiles a student's program once, runs it on each input.

Imported by bugrank_init() (bugrank_python.c) before the host takes its snapshot of the
initialised interpreter, so this module, the modules of PRELOADED and a copy of the
standard library's archive are in every run's starting memory: a program that imports a
module finds it in sys.modules or in that copy, never in a file. The host calls
compile_answer once per program and run_answer once per run, each on a fresh copy of the
snapshot; nothing of one run reaches the next.
"""

import ast
import contextlib
import gc
import importlib
import importlib.machinery
import importlib.util
import io
import linecache
import marshal
import sys
import traceback
import zipfile

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
)
for _name in PRELOADED:
    importlib.import_module(_name)

# Where the standard library is while the interpreter initialises (the only time it reads
# a file: bugrank's sandbox preopens it read-only for the snapshot, and runs have none).
LIBRARY = "/usr/local/lib/python311.zip"


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

# Everything made so far is the snapshot's: the cyclic garbage collector leaves it alone
# (a full collection would otherwise walk, and write to, every page of it in some runs).
gc.collect()
gc.freeze()


def compile_answer(request):
    """`<file name>\\0<source>` compiled: 0 and the marshalled program on stdout, or 1 and
    Python's own error on stderr (a syntax error, or an import that cannot work here)."""
    name, _, source = request.partition(b"\0")
    filename = name.decode("utf-8", "replace")
    try:
        tree = ast.parse(source, filename)
        code = compile(tree, filename, "exec", dont_inherit=True)
        text = importlib.util.decode_source(source)
    except (SyntaxError, ValueError, UnicodeDecodeError) as error:
        traceback.print_exception(type(error), error, None, file=sys.stderr)
        return 1
    failure = unavailable_import(tree, filename, text)
    if failure:
        print(failure, file=sys.stderr)
        return 1
    sys.stdout.buffer.write(marshal.dumps((code, filename, text)))
    sys.stdout.flush()
    return 0


def unavailable_import(tree, filename, text):
    """The first import, outside any `try`, of a module that cannot be imported here (not
    in the standard library, or needing what WASI does not give: sockets, processes,
    threads), said as Python says it, with its line; None when every import works."""
    lines = text.splitlines()
    for node in unguarded_imports(tree):
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
    last line of its traceback) when an exception ends it (the traceback on stderr)."""
    code, filename, text = marshal.loads(request)
    main = sys.modules["__main__"]
    main.__file__ = filename
    sys.argv[:] = [filename]
    result = 0
    try:
        exec(code, main.__dict__)
    except SystemExit as exit:
        result = exit_status(exit.code)
    except BaseException as error:
        # The source, for the traceback's lines (there is no file to read them from).
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        print_traceback(error)
        result = (-1, traceback.format_exception_only(type(error), error)[-1].strip())
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            stream.flush()
    return result


# The calls of a traceback shown, the innermost: a recursion stopped at its limit has a
# thousand, the same few repeated, and formatting them all costs more than most runs.
TRACEBACK_CALLS = 20


def print_traceback(error):
    """The traceback of `error` on stderr, as Python prints it, from the program's first
    call (this module's frame is left out), or its last TRACEBACK_CALLS calls."""
    calls = []
    tb = error.__traceback__.tb_next
    while tb is not None:
        calls.append(tb)
        tb = tb.tb_next
    left_out = max(len(calls) - TRACEBACK_CALLS, 0)
    lines = traceback.format_exception(type(error), error, calls[left_out] if calls else None)
    if left_out:
        lines.insert(1, f"  ({left_out} earlier calls left out)\n")
    sys.stderr.write("".join(lines))


def exit_status(code):
    """The exit status of `sys.exit(code)`, as CPython's own: None is 0, an integer itself
    (its low 8 bits), anything else is printed on stderr and is 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(Exception):
        print(code, file=sys.stderr)
    return 1
