"""The restricted builtins an agent program sees, and the checked str.format it is rewritten to use.

Standard library only: loaded inside the sandbox child before the seccomp filter is installed.
"""

from __future__ import annotations

import _string
import builtins
import math
import string
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agent.sandbox.policy import is_allowed_identifier

# Pure functions and types with no route to the interpreter's internals (given the AST policy that
# forbids underscore attributes). Absent on purpose: type, object, getattr & co, open, exec, eval,
# compile, __import__, vars, globals, locals, dir, input, breakpoint, memoryview, super, classmethod.
SAFE_BUILTIN_NAMES: tuple[str, ...] = (
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "dict", "divmod",
    "enumerate", "filter", "float", "format", "frozenset", "hasattr", "hash", "hex", "int", "isinstance",
    "iter", "len", "list", "map", "max", "min", "next", "oct", "ord", "pow", "range", "repr", "reversed",
    "round", "set", "slice", "sorted", "str", "sum", "tuple", "zip",
    "ArithmeticError", "AssertionError", "AttributeError", "Exception", "IndexError", "KeyError",
    "LookupError", "NameError", "NotImplementedError", "OverflowError", "RecursionError", "RuntimeError",
    "StopIteration", "TypeError", "ValueError", "ZeroDivisionError", "MemoryError",
)

MATH_NAMES: tuple[str, ...] = (
    "pi", "e", "tau", "inf", "nan", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "hypot", "degrees", "radians", "floor", "ceil", "fabs", "isclose", "isfinite", "isnan", "exp", "log",
    "log10", "copysign", "fmod", "dist", "prod",
)


class FormatFieldError(ValueError):
    """A format field that reaches for a private attribute."""


class _CheckedFormatter(string.Formatter):
    """str.format semantics, except that "{0.attr}" may not name '_' or non-normalised attributes."""

    def get_field(self, field_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        _first, rest = _formatter_field_name_split(field_name)
        for is_attr, key in rest:
            if is_attr and not (isinstance(key, str) and is_allowed_identifier(key)):
                raise FormatFieldError(f"format field {field_name!r} names a forbidden attribute")
        return super().get_field(field_name, args, kwargs)


def _formatter_field_name_split(field_name: str) -> tuple[Any, list[tuple[bool, Any]]]:
    first, rest = _string.formatter_field_name_split(field_name)
    return first, list(rest)


_FORMATTER = _CheckedFormatter()


def format_call(target: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """What `target.format(...)` / `target.format_map(m)` become after the policy's rewrite."""
    if isinstance(target, str):
        if method == "format_map":
            if len(args) != 1 or kwargs:
                raise TypeError("format_map() takes exactly one mapping argument")
            return _FORMATTER.vformat(target, (), args[0])
        return _FORMATTER.vformat(target, args, kwargs)
    # Not a string (e.g. a user dict with a 'format' key has none): behave like the attribute call.
    bound = getattr(target, method)
    return bound(*args, **kwargs)


def make_builtins(
    print_fn: Callable[..., None], extra: Mapping[str, Any], full: bool = False
) -> dict[str, Any]:
    """The builtins dict for one program: safe names, `print`, `math`, plus `extra` (SkillError...)."""
    if full:
        # Only for layer tests that show the process layers hold without this one.
        table = dict(vars(builtins))
    else:
        table = {name: getattr(builtins, name) for name in SAFE_BUILTIN_NAMES}
        table["math"] = types.SimpleNamespace(**{n: getattr(math, n) for n in MATH_NAMES})
    table["print"] = print_fn
    table["_sandbox_format_call"] = format_call
    table.update(extra)
    return table
