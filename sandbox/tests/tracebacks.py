"""Programs whose runs end in an exception, for sandbox/tests/interpreter.rs: for each, the
traceback _bugrank.quick_traceback writes must be the one the traceback module writes
(_bugrank.full_traceback, and format_exception_only's line), or it must decline (None).
Run in bugrank's CPython, it prints a line per case: its name and `same`, `declined`, or
`DIFFERENT` and both tracebacks."""

import linecache
import sys
import traceback

import _bugrank

CASES = {
 "index": "def search(x, seq):\n    k = 0\n    while k <= len(seq):\n        if seq[k] == x:\n            return k\n        k += 1\n    return -1\nsearch(5, (1, 2, 3))\n",
 "recursion": "def f(n):\n    return f(n + 1)\nf(0)\n",
 "mutual": "def f(n):\n    return g(n)\ndef g(n):\n    return f(n)\nf(0)\n",
 "four_repeats": "def f(n):\n    if n == 0:\n        return 1 // 0\n    return f(n - 1)\nf(4)\n",
 "three_repeats": "def f(n):\n    if n == 0:\n        return 1 // 0\n    return f(n - 1)\nf(2)\n",
 "five_repeats": "def f(n):\n    if n == 0:\n        return 1 // 0\n    return f(n - 1)\nf(5)\n",
 "nameerror_suggest": "def f(seq):\n    return len(sequ)\nf([1])\n",
 "nameerror_none": "def f(seq):\n    return zzzzzzzzzz\nf([1])\n",
 "nameerror_stdlib": "def f(x):\n    return math.sqrt(x)\nf(2)\n",
 "nameerror_stdlib_suggest": "def f(maths):\n    return math.sqrt(maths)\nf(2)\n",
 "attribute_suggest": "def f(seq):\n    return seq.appendd(1)\nf([1])\n",
 "attribute_find": "def f(seq):\n    return seq.find(1)\nf((1, 2))\n",
 "attribute_underscore": "class A:\n    def __init__(self):\n        self._secret = 1\nA()._secre\n",
 "import_from": "from math import sqr\n",
 "import_module": "import numpyy\n",
 "no_message": "raise ValueError()\n",
 "empty_message": "raise ValueError('')\n",
 "custom": "class Oops(Exception):\n    pass\ndef f():\n    raise Oops('bad', 2)\nf()\n",
 "str_fails": "class Bad(Exception):\n    def __str__(self):\n        raise RuntimeError\nraise Bad()\n",
 "multiline_call": "def f(a, b):\n    return a / b\nx = f(\n    1,\n    0,\n)\n",
 "multiline_first_blank": "x = (\n\n    1 / 0\n)\n",
 "lambda": "f = lambda x: x[3]\nf([1])\n",
 "comprehension": "def f(xs):\n    return [1 // x for x in xs]\nf([1, 0])\n",
 "generator": "def g():\n    yield 1\n    yield 1 // 0\nlist(g())\n",
 "keyerror": "d = {}\nd[(1, 'a')]\n",
 "int_parse": "int('12a')\n",
 "chained_context": "try:\n    1 // 0\nexcept ZeroDivisionError:\n    [][1]\n",
 "chained_cause": "try:\n    1 // 0\nexcept ZeroDivisionError as e:\n    raise ValueError('x') from e\n",
 "suppressed": "try:\n    1 // 0\nexcept ZeroDivisionError:\n    raise ValueError('x') from None\n",
 "notes": "e = ValueError('x')\ne.add_note('a note')\nraise e\n",
 "group": "raise ExceptionGroup('g', [ValueError(1), TypeError(2)])\n",
 "syntax": "exec('x = (')\n",
 "assert": "def f(x):\n    assert x > 0, 'positive'\nf(-1)\n",
 "assert_plain": "assert 1 == 2\n",
 "exit_in_function_typeerror": "def search(seq, x):\n    return seq.index(x)\nsearch(3, (1, 2))\n",
 "tab_indent": "def f():\n\treturn 1 // 0\nf()\n",
 "unicode": "def f():\n    ü = 'é'\n    return ü + 1\nf()\n",
 "long_line": "x = [" + ", ".join(str(i) for i in range(300)) + "][400]\n",
 "tracebacklimit": "import sys\nsys.tracebacklimit = 1\ndef f():\n    return 1 // 0\nf()\n",
 "overflow": "import math\nmath.exp(1000)\n",
 "recursion_20": "def f(n):\n    if n == 0:\n        return [][0]\n    return f(n - 1)\nf(30)\n",
 "semicolons": "x = 1; y = 0; z = x / y\n",
 "continuation": "x = 1 + \\\n    1 / 0\n",
}


def check_all(keep=_bugrank.TRACEBACK_CALLS):
    """Each case's result by name (its file is `name.py`, in linecache as a run's are)."""
    results = {}
    for name, source in CASES.items():
        filename = f"{name}.py"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        code = compile(source, filename, "exec")
        try:
            exec(code, {"__name__": "__main__"})
        except BaseException as error:
            tb = error.__traceback__.tb_next
            calls = []
            while tb is not None:
                calls.append(tb)
                tb = tb.tb_next
            first = calls[max(len(calls) - keep, 0)] if calls else None
            quick = _bugrank.quick_traceback(error, first, {filename})
            full = (_bugrank.full_traceback(error, first), traceback.format_exception_only(type(error), error)[-1])
            if hasattr(sys, "tracebacklimit"):  # (set by a case)
                del sys.tracebacklimit
            if quick is None:
                results[name] = "declined"
            elif quick == full:
                results[name] = "same"
            else:
                results[name] = f"DIFFERENT:\n{''.join(quick[0])}{quick[1]!r}\n---\n{''.join(full[0])}{full[1]!r}"
        else:
            results[name] = "NO EXCEPTION"
    return results


for name, result in check_all().items():
    print(name, result)
