"""The AST allow-list every agent program must pass before it runs (checked inside the sandbox child).

Only the standard library is imported here: the child process loads this module before its seccomp
filter closes the file system. Identifiers reach us already NFKC-normalised by the parser, so
fullwidth spellings of `exec` or `__class__` are caught like the ASCII ones.
"""

from __future__ import annotations

import ast
import unicodedata

from agent.sandbox.modules import FUTURE_FEATURES, REVIEWED_MODULES, reviewed_names

# Statement and expression nodes a robot program needs; anything else (class, async,
# yield, match, try/except*, with) is rejected by omission. global/nonlocal only rebind the
# program's own names, and are checked like any other name. Imports are allowed
# for the reviewed modules only (see modules.py) and rewritten into calls that bind their names.
ALLOWED_NODES: frozenset[type[ast.AST]] = frozenset(
    {
        ast.Module, ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.While, ast.If,
        ast.Break, ast.Continue, ast.Pass, ast.Return, ast.FunctionDef, ast.Lambda, ast.Try,
        ast.ExceptHandler, ast.Raise, ast.Assert, ast.Delete, ast.arguments, ast.arg, ast.keyword,
        ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.IfExp, ast.Dict, ast.Set, ast.List, ast.Tuple,
        ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.comprehension, ast.Compare,
        ast.Call, ast.Constant, ast.Attribute, ast.Subscript, ast.Starred, ast.Name, ast.Slice,
        ast.JoinedStr, ast.FormattedValue, ast.NamedExpr, ast.Import, ast.ImportFrom, ast.alias,
        ast.Global, ast.Nonlocal,
        ast.Load, ast.Store, ast.Del,
        ast.And, ast.Or, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
        ast.LShift, ast.RShift, ast.BitOr, ast.BitXor, ast.BitAnd, ast.MatMult,
        ast.Invert, ast.Not, ast.UAdd, ast.USub,
        ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn,
    }
)

# Names that would reopen the interpreter even though they are absent from the builtins table;
# rejecting them here gives the agent a clear message instead of a NameError.
FORBIDDEN_NAMES: frozenset[str] = frozenset(
    {
        "exec", "eval", "compile", "open", "setattr", "delattr", "vars", "globals",
        "locals", "dir", "breakpoint", "input", "help", "memoryview", "type", "object", "super",
        "classmethod", "staticmethod", "property", "exit", "quit", "copyright", "credits", "license",
        "id", "issubclass", "bytearray", "reload", "importlib", "sys", "os", "builtins",
    }
)

# Attribute names without underscores that still lead to frames, code objects or the class graph.
FORBIDDEN_ATTRIBUTES: frozenset[str] = frozenset(
    {
        "gi_frame", "gi_code", "gi_yieldfrom", "gi_running", "gi_suspended",
        "cr_frame", "cr_code", "cr_await", "cr_origin", "cr_running",
        "ag_frame", "ag_code", "ag_await", "ag_running",
        "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "f_trace", "f_lasti", "f_lineno",
        "tb_frame", "tb_next", "tb_lasti", "tb_lineno",
        "co_code", "co_consts", "co_names", "func_globals", "func_code", "mro", "with_traceback",
    }
)

# str.format / format_map resolve "{0.attr}" fields with getattr; calls to them are rewritten to a
# checked formatter (see SAFE_FORMAT_NAME) and any other use of the attribute is refused.
FORMAT_METHODS: frozenset[str] = frozenset({"format", "format_map"})
SAFE_FORMAT_NAME = "_sandbox_format_call"
# Called first in every `except E as name:` body: cuts the caught exception's links to live objects.
SCRUB_NAME = "_sandbox_scrub"
# `import math` becomes `math = _sandbox_import("math")`; `from math import pi` becomes
# `(pi,) = _sandbox_import("math", "pi")`.
IMPORT_NAME = "_sandbox_import"
# The throwaway name: `for _ in range(3)`, `q, _ = divmod(a, b)`. It names no internal.
THROWAWAY = "_"
# The one dunder a program may read: models end with `if __name__ == "__main__": main()`.
PROGRAM_NAME_VARIABLE = "__name__"

MAX_AST_NODES = 200_000


class PolicyViolation(Exception):
    """A program construct the sandbox refuses; `line` is 1-based in the agent's code (0 if unknown)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def _line(node: ast.AST) -> int:
    return int(getattr(node, "lineno", 0) or 0)


def is_allowed_identifier(name: str) -> bool:
    """False for private, dunder and non-normalised names; the child's formatter uses it too."""
    return bool(name) and not name.startswith("_") and unicodedata.normalize("NFKC", name) == name


def _check_identifier(name: str | None, node: ast.AST, what: str, binds_name: bool = True) -> None:
    """Reject private names everywhere, and forbidden builtins where the identifier is a variable."""
    if name is None:
        return
    if binds_name and name == THROWAWAY:
        return
    if not is_allowed_identifier(name):
        raise PolicyViolation(f"{what} {name!r} is not allowed: names starting with '_' are reserved", _line(node))
    if binds_name and name in FORBIDDEN_NAMES:
        raise PolicyViolation(f"{what} {name!r} is not allowed in robot programs", _line(node))


class _FormatRewriter(ast.NodeTransformer):
    """Turns `x.format(...)` into `_sandbox_format_call(x, "format", ...)` so fields are checked."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in FORMAT_METHODS:
            call = ast.Call(
                func=ast.Name(id=SAFE_FORMAT_NAME, ctx=ast.Load()),
                args=[func.value, ast.Constant(func.attr), *node.args],
                keywords=node.keywords,
            )
            return ast.copy_location(call, node)
        return node

    def visit_Import(self, node: ast.Import) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for alias in node.names:
            call = _import_call(alias.name, [])
            target = ast.Name(id=alias.asname or alias.name, ctx=ast.Store())
            out.append(ast.copy_location(ast.Assign(targets=[target], value=call), node))
        return out

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.stmt:
        if node.module == "__future__":
            return ast.copy_location(ast.Pass(), node)  # programs are compiled with postponed annotations
        module = node.module or ""
        names = [a.name for a in node.names]
        if names == ["*"]:
            names = list(REVIEWED_MODULES[module])
            bound = names
        else:
            bound = [a.asname or a.name for a in node.names]
        target = ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Store()) for n in bound], ctx=ast.Store())
        return ast.copy_location(ast.Assign(targets=[target], value=_import_call(module, names)), node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        self.generic_visit(node)
        if node.name is not None:
            scrub = ast.Expr(
                ast.Call(func=ast.Name(id=SCRUB_NAME, ctx=ast.Load()), args=[ast.Name(id=node.name, ctx=ast.Load())], keywords=[])
            )
            node.body.insert(0, ast.copy_location(scrub, node))
        return node


def _import_call(module: str, names: list[str]) -> ast.Call:
    args: list[ast.expr] = [ast.Constant(module), *(ast.Constant(n) for n in names)]
    return ast.Call(func=ast.Name(id=IMPORT_NAME, ctx=ast.Load()), args=args, keywords=[])


def _reviewed() -> str:
    return ", ".join(sorted(REVIEWED_MODULES))


def _check_import(node: ast.Import | ast.ImportFrom) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name not in REVIEWED_MODULES:
                raise PolicyViolation(
                    f"import of {alias.name!r} is not allowed; robot programs may import only {_reviewed()}", _line(node)
                )
            _check_identifier(alias.asname, node, "import alias")
        return
    if node.level:
        raise PolicyViolation("relative imports are not allowed in robot programs", _line(node))
    if node.module == "__future__":
        for alias in node.names:
            if alias.name not in FUTURE_FEATURES:
                raise PolicyViolation(f"'from __future__ import {alias.name}' is not allowed", _line(node))
        return
    module = node.module or ""
    allowed = reviewed_names(module)
    if allowed is None:
        raise PolicyViolation(
            f"import from {module!r} is not allowed; robot programs may import only {_reviewed()}", _line(node)
        )
    for alias in node.names:
        if alias.name != "*" and alias.name not in allowed:
            raise PolicyViolation(f"{module}.{alias.name} is not available in robot programs", _line(node))
        _check_identifier(alias.asname, node, "import alias")
        if alias.asname is None and alias.name != "*":
            _check_identifier(alias.name, node, "imported name")


def _check_node(node: ast.AST, format_calls: set[int]) -> None:
    kind = type(node)
    if kind not in ALLOWED_NODES:
        raise PolicyViolation(f"{_describe(node)} is not allowed in robot programs", _line(node))
    if isinstance(node, ast.Import | ast.ImportFrom):
        _check_import(node)
    elif isinstance(node, ast.alias):
        return  # checked with its import statement
    elif isinstance(node, ast.Global | ast.Nonlocal):
        for name in node.names:
            _check_identifier(name, node, "name")
    elif isinstance(node, ast.Name):
        if node.id == PROGRAM_NAME_VARIABLE and isinstance(node.ctx, ast.Load):
            return  # `if __name__ == "__main__":`, read only: the program's scope says "__main__"
        _check_identifier(node.id, node, "name")
    elif isinstance(node, ast.Attribute):
        _check_identifier(node.attr, node, "attribute", binds_name=False)
        if node.attr in FORBIDDEN_ATTRIBUTES:
            raise PolicyViolation(f"attribute {node.attr!r} is not allowed in robot programs", _line(node))
        if node.attr in FORMAT_METHODS and id(node) not in format_calls:
            raise PolicyViolation(
                f"'.{node.attr}' may only be called directly, e.g. \"{{}}\".format(x); or use an f-string",
                _line(node),
            )
    elif isinstance(node, ast.FunctionDef):
        _check_identifier(node.name, node, "function name")
        if node.decorator_list:
            raise PolicyViolation("decorators are not allowed in robot programs", _line(node))
    elif isinstance(node, ast.arg):
        _check_identifier(node.arg, node, "parameter")
    elif isinstance(node, ast.keyword):
        _check_identifier(node.arg, node, "keyword argument", binds_name=False)
    elif isinstance(node, ast.ExceptHandler):
        _check_identifier(node.name, node, "exception name")


_DESCRIPTIONS: dict[type[ast.AST], str] = {
    ast.Import: "import", ast.ImportFrom: "import", ast.ClassDef: "class definition",
    ast.Global: "'global'", ast.Nonlocal: "'nonlocal'", ast.AsyncFunctionDef: "async function",
    ast.Await: "'await'", ast.AsyncFor: "'async for'", ast.AsyncWith: "'async with'",
    ast.Yield: "'yield'", ast.YieldFrom: "'yield from'", ast.With: "'with'", ast.Match: "'match'",
    ast.TryStar: "'except*'",
}


def _describe(node: ast.AST) -> str:
    return _DESCRIPTIONS.get(type(node), f"syntax {type(node).__name__!r}")


class _AnnotationStripper(ast.NodeTransformer):
    """Drops type annotations before the check: they are never evaluated (programs are compiled with postponed
    annotations), so `Dict[str, object]` or `**extra: object` is text, not a use of `object`."""

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.returns = None
        self.generic_visit(node)
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.stmt:
        if node.value is None:  # `x: int` alone binds nothing
            return ast.copy_location(ast.Pass(), node)
        self.generic_visit(node)
        assert node.value is not None
        return ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)


def check_program(code: str, filename: str = "<program>") -> ast.Module:
    """Parse `code` and return its checked, rewritten AST; raise PolicyViolation or SyntaxError."""
    tree = _AnnotationStripper().visit(ast.parse(code, filename=filename, mode="exec"))
    assert isinstance(tree, ast.Module)
    format_calls = {
        id(n.func)
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in FORMAT_METHODS
    }
    for count, node in enumerate(ast.walk(tree), 1):
        if count > MAX_AST_NODES:
            raise PolicyViolation(f"program too large (more than {MAX_AST_NODES} syntax nodes)", 0)
        _check_node(node, format_calls)
    rewritten = _FormatRewriter().visit(tree)
    assert isinstance(rewritten, ast.Module)
    return ast.fix_missing_locations(rewritten)
