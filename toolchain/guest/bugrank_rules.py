"""bugrank's check of a Python hand-in against what its assignment forbids, by the syntax
tree: run by bugrank's CPython in the sandbox, never by the host.

Input (stdin): the rules, one a line, then a line `--`, then the hand-in's source. A rule
is a name, forbidding calls of it (`sorted(xs)`, `xs.sort()`, and the name passed as a
function, `key=sorted`), or `import M`, forbidding the module M and its submodules
(`import M`, `import M.sub as s`, `from M import f`, `__import__("M")`).

A name the hand-in binds itself (a function it defines, a variable, a parameter, an import
of another module as that name) is its own: using it breaks no rule, and a variable named
`sort` is not a call of `sort`. A method call `x.sort()` breaks the rule whatever `x` is.

A rule `require R` is the converse, a construct the hand-in must have: `require
recursion` (a function that calls itself, by its name or as `self.f`/`cls.f` in a method
`f`), `require def f` (a function or method `f` defined), `require class C` (a class `C`
defined), `require import M` (M or a submodule imported) or `require NAME` (NAME called).

Output (stdout): one JSON object a line, in the order of the source, for each use that
breaks a rule: {"rule": the rule as given, "line": its line, "code": that line's text};
then one for each requirement not met: {"rule": R, "line": 0, "code": "", "required":
true}.
Exit 2 with Python's message on stderr if the source does not parse (the compile says so
first: a hand-in that does not compile is never checked).

Natively: `printf 'sort\\n--\\nxs.sort()\\n' | python3 bugrank_rules.py`.
"""

import ast
import json
import sys


def read():
    text = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    head, _, source = text.partition("\n--\n")
    if head == "--":
        head, source = "", text[3:]
    rules = [line.strip() for line in head.split("\n") if line.strip()]
    return rules, source


def bound_names(tree):
    """The names the hand-in binds itself, anywhere: assigned, defined, imported, a
    parameter."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound.add(alias.asname or alias.name.split(".")[0])
    return bound


def in_module(name, module):
    return name == module or name.startswith(module + ".")


def breaks(tree, rules):
    """(line, rule) of each use that breaks one of `rules`."""
    names = {rule for rule in rules if not rule.startswith("import ")}
    modules = {rule[len("import "):].strip(): rule for rule in rules if rule.startswith("import ")}
    own = bound_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in names:
                found.append((node.lineno, func.attr))
            if isinstance(func, ast.Name) and func.id == "__import__" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.extend((node.lineno, rule) for module, rule in modules.items() if in_module(first.value, module))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names and node.id not in own:
            found.append((node.lineno, node.id))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                found.extend((node.lineno, rule) for module, rule in modules.items() if in_module(alias.name, module))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.extend((node.lineno, rule) for module, rule in modules.items() if in_module(node.module, module))
    return sorted(set(found))


def calls_itself(function):
    """Whether `function` (a def) calls itself in its body: `f(...)`, or `self.f(...)` /
    `cls.f(...)`."""
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == function.name:
                return True
            if (isinstance(func, ast.Attribute) and func.attr == function.name and isinstance(func.value, ast.Name)
                    and func.value.id in ("self", "cls")):
                return True
    return False


def met(tree, requirement):
    """Whether the source has the construct `requirement` (a rule after `require `)."""
    kind, _, name = requirement.partition(" ")
    nodes = list(ast.walk(tree))
    functions = [node for node in nodes if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if requirement == "recursion":
        return any(calls_itself(function) for function in functions)
    if kind == "def" and name:
        return any(function.name == name for function in functions)
    if kind == "class" and name:
        return any(isinstance(node, ast.ClassDef) and node.name == name for node in nodes)
    if kind == "import" and name:
        return bool(breaks(tree, ["import " + name]))
    return any(isinstance(node, ast.Call) and ((isinstance(node.func, ast.Name) and node.func.id == requirement)
               or (isinstance(node.func, ast.Attribute) and node.func.attr == requirement)) for node in nodes)


def main():
    rules, source = read()
    required = [rule[len("require "):].strip() for rule in rules if rule.startswith("require ")]
    rules = [rule for rule in rules if not rule.startswith("require ")]
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as error:
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        return 2
    lines = source.splitlines()
    for line, rule in breaks(tree, rules):
        code = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        print(json.dumps({"rule": rule, "line": line, "code": code}))
    for requirement in required:
        if not met(tree, requirement):
            print(json.dumps({"rule": requirement, "line": 0, "code": "", "required": True}))
    return 0


sys.exit(main())
