/* bugrank's entry points into CPython: what makes python.wasm a WASI *reactor* that
 * bugrank snapshots once, initialised, and then runs students' programs from.
 *
 * The host (bugrank's sandbox, sandbox/src/interpreter.rs) calls, in order:
 *   _initialize()            wasi-libc's constructors (the reactor's crt1)
 *   bugrank_init() -> 0      the interpreter initialised and the common modules imported;
 *                            then the host takes its snapshot (memory and globals)
 * and, on each copy of the snapshot, once:
 *   bugrank_alloc(n) -> p    n bytes for the host to write a request into
 *   bugrank_compile(p, n)    a source ("<file name>\0<source>", and "\0<harness name>\0<harness
 *                            source>" for a hand-in of a function-level assignment) compiled: status 0 and
 *                            the marshalled program on stdout, or status 1 and Python's
 *                            error (SyntaxError, an import that cannot work) on stderr
 *   bugrank_run(p, n)        a compiled program run as __main__: its exit status (0 to
 *                            255), or -1 for an exception it did not catch (traceback on
 *                            stderr, its last line at bugrank_message()) or for a hand-in
 *                            that wrote a harness's judged output itself (REFUSED)
 *   bugrank_prepare(p, n)    a compiled hand-in with its harness made ready to run: its
 *                            module `answer` run (0), or not (1: the program runs whole);
 *                            the host then keeps the instance's state (memory, globals) as
 *                            the start of each of the program's runs, and calls
 *   bugrank_run_prepared(p, n) from there: bugrank_run of that program, the harness run
 *                            as __main__ (the request is unused)
 *   bugrank_message() -> p   that last line, NUL-terminated UTF-8
 * The work is Python's, in _bugrank.py (in python313.zip): this file only calls it.
 */
#include "Python.h"

/* The generators' host functions (bugrank.choice, bugrank.size), as the built-in module
 * _bugrank_gen that bugrank_gen.py calls: a Python generator makes its choices as a C or
 * Rust one does. (A program that is not a generator gets no choices: calling them ends
 * its run.) The module also has the harnesses' output (bugrank.output), which
 * bugrank_harness.py writes with. */
__attribute__((import_module("bugrank"), import_name("choice"))) extern long long host_choice(long long max);
__attribute__((import_module("bugrank"), import_name("size"))) extern int host_size(void);
__attribute__((import_module("bugrank"), import_name("output"))) extern int host_output(const void *data, size_t len);

/* The judged output's guard, in a run of a function-level assignment's hand-in: only the
 * harness writes the judged output. _bugrank.run_answer sets it (gen_guard) before any of
 * the hand-in's code runs, once a run (every run starts from the snapshot, where it is not
 * set); from then on a write is taken only when every Python frame above the harness's
 * module frame runs code of the harness or of bugrank_harness (by identity: a code object
 * of theirs, with their globals), bugrank_harness's dictionary is as it was (its version
 * tag) and so are the built-ins its functions use (`str`, `isinstance`, `bytes`: by
 * identity; a hand-in may change other built-ins, as natively, without effect on them). Otherwise the write is dropped, and so is every
 * later one, and the run ends as an uncaught error (REFUSED), whatever the hand-in
 * catches: a hand-in that writes the answers itself (bugrank_harness.out from its first
 * call, from an atexit handler, or through a patched built-in) fails, its functions
 * being wrong. In a whole program's run the guard is not set: output is then like
 * stdout. */
static PyObject *guard_codes;   /* the allowed code objects (a list) */
static PyObject *guard_globals; /* their globals: the harness's, bugrank_harness's (a list) */
static PyObject *guard_pinned;  /* dictionaries that must not change (a tuple) */
static uint64_t guard_versions[4];
static PyObject *guard_builtins; /* the built-ins' dictionary */
static PyObject *guard_kept;     /* built-ins that must stay: {name: object} */
static int refused;
static const char REFUSED[] =
    "the hand-in wrote the judged output itself (or changed what the harness writes it with): in this assignment only the harness writes it, "
    "from what your functions return";

static int listed(PyObject *list, PyObject *item) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        if (PyList_GET_ITEM(list, i) == item) return 1;
    }
    return 0;
}

/* Whether the write now asked for is the harness's (see above). */
static int harness_writes(void) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(guard_pinned); i++) {
        if (((PyDictObject *)PyTuple_GET_ITEM(guard_pinned, i))->ma_version_tag != guard_versions[i]) return 0;
    }
    PyObject *name, *kept;
    Py_ssize_t at = 0;
    while (PyDict_Next(guard_kept, &at, &name, &kept)) {
        if (PyDict_GetItemWithError(guard_builtins, name) != kept) return 0;
    }
    PyObject *main_code = PyList_GET_ITEM(guard_codes, 0);
    PyFrameObject *frame = PyEval_GetFrame();
    Py_XINCREF(frame);
    int ok = 0;
    while (frame) {
        PyCodeObject *code = PyFrame_GetCode(frame);
        PyObject *globals = PyFrame_GetGlobals(frame);
        int allowed = listed(guard_codes, (PyObject *)code) && listed(guard_globals, globals);
        int is_main = (PyObject *)code == main_code;
        Py_DECREF(code);
        Py_DECREF(globals);
        if (!allowed || is_main) {
            ok = allowed && is_main;
            break;
        }
        PyFrameObject *back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    Py_XDECREF(frame);
    return ok;
}

static PyObject *gen_guard(PyObject *self, PyObject *args) {
    PyObject *codes, *globals, *pinned, *kept;
    if (guard_codes) {
        PyErr_SetString(PyExc_RuntimeError, "the output's guard is set once a run");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O!O!O!O!", &PyList_Type, &codes, &PyList_Type, &globals, &PyTuple_Type, &pinned, &PyDict_Type, &kept)) return NULL;
    if (PyList_GET_SIZE(codes) == 0 || PyTuple_GET_SIZE(pinned) > 4) {
        PyErr_SetString(PyExc_ValueError, "guard(codes, globals, pinned): the harness's code first, at most 4 pinned");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pinned); i++) {
        if (!PyDict_CheckExact(PyTuple_GET_ITEM(pinned, i))) {
            PyErr_SetString(PyExc_TypeError, "guard: pinned are dictionaries");
            return NULL;
        }
        guard_versions[i] = ((PyDictObject *)PyTuple_GET_ITEM(pinned, i))->ma_version_tag;
    }
    /* Copies: the lists given stay the caller's. */
    guard_codes = PyList_GetSlice(codes, 0, PyList_GET_SIZE(codes));
    guard_globals = PyList_GetSlice(globals, 0, PyList_GET_SIZE(globals));
    Py_INCREF(pinned);
    guard_pinned = pinned;
    guard_kept = PyDict_Copy(kept);
    guard_builtins = PyEval_GetBuiltins();
    Py_XINCREF(guard_builtins);
    if (!guard_kept || !guard_builtins) return NULL;
    if (!guard_codes || !guard_globals) return NULL;
    Py_RETURN_NONE;
}

static PyObject *gen_output(PyObject *self, PyObject *arg) {
    if (guard_codes && (refused || !harness_writes())) {
        refused = 1;
        Py_RETURN_NONE;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    host_output(view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* bugrank_harness.out in C, as bugrank_harness.py defines it natively: `print` to the
 * judged output, one write per call: the values as str() gives them, `sep` between them
 * (a str, default " "), then `end` (a str, default "\n"), in UTF-8, through gen_output
 * (and so its guard). In C because a harness writes once per call it makes: the Python
 * function cost some 17,000 instructions a line (a generator, a join, a call of write),
 * this some 3,000. */
static PyObject *gen_out(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *sep = NULL, *end = NULL;
    Py_ssize_t keywords = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < keywords; i++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i), *value = args[nargs + i];
        if (PyUnicode_CompareWithASCIIString(key, "sep") == 0) {
            sep = value;
        } else if (PyUnicode_CompareWithASCIIString(key, "end") == 0) {
            end = value;
        } else {
            PyErr_Format(PyExc_TypeError, "out() got an unexpected keyword argument '%U'", key);
            return NULL;
        }
    }
    if ((sep && !PyUnicode_Check(sep)) || (end && !PyUnicode_Check(end))) {
        PyErr_Format(PyExc_TypeError, "out(): sep and end must be str, not %.100s", Py_TYPE(sep && !PyUnicode_Check(sep) ? sep : end)->tp_name);
        return NULL;
    }
    PyObject *parts = PyList_New(nargs);
    if (!parts) return NULL;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        PyObject *text = PyObject_Str(args[i]);
        if (!text) {
            Py_DECREF(parts);
            return NULL;
        }
        PyList_SET_ITEM(parts, i, text);
    }
    PyObject *space = sep ? NULL : PyUnicode_FromString(" ");
    PyObject *joined = (sep || space) ? PyUnicode_Join(sep ? sep : space, parts) : NULL;
    Py_XDECREF(space);
    Py_DECREF(parts);
    if (!joined) return NULL;
    PyObject *newline = end ? NULL : PyUnicode_FromString("\n");
    PyObject *line = (end || newline) ? PyUnicode_Concat(joined, end ? end : newline) : NULL;
    Py_XDECREF(newline);
    Py_DECREF(joined);
    if (!line) return NULL;
    PyObject *bytes = PyUnicode_AsUTF8String(line);
    Py_DECREF(line);
    if (!bytes) return NULL;
    PyObject *done = gen_output(self, bytes);
    Py_DECREF(bytes);
    return done;
}

/* Appends `code` and every code object among its constants, depth first, to `found`. */
static int add_codes(PyObject *found, PyObject *code) {
    if (PyList_Append(found, code) < 0) return -1;
    PyObject *constants = ((PyCodeObject *)code)->co_consts;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(constants); i++) {
        PyObject *constant = PyTuple_GET_ITEM(constants, i);
        if (PyCode_Check(constant) && add_codes(found, constant) < 0) return -1;
    }
    return 0;
}

/* codes_within(code): `code` and every code object defined in it (functions, classes,
 * comprehensions), depth first: what _bugrank.codes_within gives, in C (a run of a
 * function-level hand-in asks it once, for the harness's code). */
static PyObject *gen_codes_within(PyObject *self, PyObject *code) {
    if (!PyCode_Check(code)) {
        PyErr_SetString(PyExc_TypeError, "codes_within(code): a code object");
        return NULL;
    }
    PyObject *found = PyList_New(0);
    if (found && add_codes(found, code) < 0) Py_CLEAR(found);
    return found;
}

static PyObject *gen_choice(PyObject *self, PyObject *arg) {
    unsigned long long max = PyLong_AsUnsignedLongLong(arg);
    if (max == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    return PyLong_FromUnsignedLongLong((unsigned long long)host_choice((long long)max));
}

static PyObject *gen_size(PyObject *self, PyObject *unused) {
    return PyLong_FromLong(host_size());
}

static PyMethodDef gen_methods[] = {
    {"choice", gen_choice, METH_O, "choice(max): the host's choice in 0..=max (read as u64)."},
    {"size", gen_size, METH_NOARGS, "size(): the host's size hint."},
    {"output", gen_output, METH_O, "output(bytes): writes to a harness's judged output."},
    {"out", (PyCFunction)(void (*)(void))gen_out, METH_FASTCALL | METH_KEYWORDS, "out(*values, sep=' ', end='\\n'): print to a harness's judged output."},
    {"codes_within", gen_codes_within, METH_O, "codes_within(code): code and every code object defined in it."},
    {"guard", gen_guard, METH_VARARGS, "guard(codes, globals, pinned, kept): only the harness writes the judged output from now on."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef gen_module = {PyModuleDef_HEAD_INIT, "_bugrank_gen", NULL, -1, gen_methods};

static PyObject *gen_init(void) {
    return PyModule_Create(&gen_module);
}

static PyObject *compile_answer; /* _bugrank.compile_answer */
static PyObject *run_answer;     /* _bugrank.run_answer */
static PyObject *prepare_answer; /* _bugrank.prepare_answer */
static char *message;            /* the last uncaught exception's line */

/* Bytes of heap left free in the snapshot (see the end of bugrank_init). */
#define HEAP_SLACK (32 << 20)

/* Why initialisation failed, on stderr (the host shows it). */
static int init_failed(const char *what, PyStatus status) {
    fprintf(stderr, "bugrank_init: %s: %s\n", what, status.err_msg ? status.err_msg : "failed");
    return 1;
}

__attribute__((export_name("bugrank_init"))) int bugrank_init(void) {
    if (PyImport_AppendInittab("_bugrank_gen", gen_init) < 0) {
        fprintf(stderr, "bugrank_init: cannot add _bugrank_gen\n");
        return 1;
    }
    PyPreConfig preconfig;
    PyPreConfig_InitIsolatedConfig(&preconfig);
    preconfig.utf8_mode = 1; /* UTF-8 stdin and stdout whatever the (absent) locale */
    PyStatus status = Py_PreInitialize(&preconfig);
    if (PyStatus_Exception(status)) return init_failed("pre-initialisation", status);

    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    config.use_hash_seed = 1; /* same hashes, same set order, same fuel on every run */
    config.hash_seed = 0;
    config.write_bytecode = 0;
    config.install_signal_handlers = 0;
    config.pathconfig_warnings = 0;
    config.module_search_paths_set = 1;
    status = PyConfig_SetString(&config, &config.home, L"/usr/local");
    if (!PyStatus_Exception(status)) status = PyConfig_SetString(&config, &config.program_name, L"python3");
    if (!PyStatus_Exception(status))
        status = PyWideStringList_Append(&config.module_search_paths, L"/usr/local/lib/python313.zip");
    if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) return init_failed("initialisation", status);

    PyObject *module = PyImport_ImportModule("_bugrank");
    if (module) {
        compile_answer = PyObject_GetAttrString(module, "compile_answer");
        run_answer = PyObject_GetAttrString(module, "run_answer");
        prepare_answer = PyObject_GetAttrString(module, "prepare_answer");
        Py_DECREF(module);
    }
    if (!compile_answer || !run_answer || !prepare_answer) {
        PyErr_Print();
        return 1;
    }
    /* Free room at the top of the heap, in the snapshot's memory: a run's allocations
     * (its code, its objects, pymalloc's arenas) then take pages of the memory it starts
     * with, which the host resets in place after the run, instead of growing the memory
     * into pages that must be mapped again, one fault each, on every run. (wasi-libc's
     * malloc keeps what is freed: the memory cannot shrink.) */
    free(malloc(HEAP_SLACK));
    return 0;
}

__attribute__((export_name("bugrank_alloc"))) void *bugrank_alloc(int size) {
    return malloc(size > 0 ? (size_t)size : 1);
}

__attribute__((export_name("bugrank_message"))) const char *bugrank_message(void) {
    return message ? message : "";
}

/* Calls `function` with the request's bytes (freed here); its result is an int status,
 * or a (status, message) pair. */
static int call(PyObject *function, char *request, int size) {
    PyObject *bytes = PyBytes_FromStringAndSize(request, size);
    free(request);
    if (!bytes) {
        PyErr_Print();
        return 1;
    }
    PyObject *result = PyObject_CallOneArg(function, bytes);
    Py_DECREF(bytes);
    if (!result) {
        PyErr_Print();
        return 1;
    }
    int status = 1;
    PyObject *line = NULL;
    if (PyLong_Check(result)) {
        status = (int)PyLong_AsLong(result);
    } else if (PyArg_ParseTuple(result, "iU", &status, &line)) {
        Py_ssize_t length;
        const char *text = PyUnicode_AsUTF8AndSize(line, &length);
        free(message);
        message = text ? strndup(text, (size_t)length) : NULL;
    }
    Py_DECREF(result);
    if (PyErr_Occurred()) PyErr_Print();
    if (refused) {
        free(message);
        message = strdup(REFUSED);
        return -1;
    }
    return status;
}

__attribute__((export_name("bugrank_compile"))) int bugrank_compile(char *request, int size) {
    return call(compile_answer, request, size);
}

__attribute__((export_name("bugrank_run"))) int bugrank_run(char *request, int size) {
    return call(run_answer, request, size);
}

__attribute__((export_name("bugrank_prepare"))) int bugrank_prepare(char *request, int size) {
    return call(prepare_answer, request, size);
}

/* run_answer of an empty request: the program bugrank_prepare made ready (the request the
 * host writes is not read). */
__attribute__((export_name("bugrank_run_prepared"))) int bugrank_run_prepared(char *request, int size) {
    (void)size;
    return call(run_answer, request, 0);
}
