"""The restricted builtins an agent program sees, and the checked str.format it is rewritten to use.

Standard library only: loaded inside the sandbox child before the seccomp filter is installed.
"""

from __future__ import annotations

import _string
import builtins
import contextlib
import importlib
import string
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agent.sandbox.modules import REVIEWED_MODULES
from agent.sandbox.policy import FORBIDDEN_ATTRIBUTES, FORMAT_METHODS, is_allowed_identifier

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



def _namespaces() -> dict[str, types.SimpleNamespace]:
    """One namespace per reviewed module with its listed names (those this interpreter has)."""
    out = {}
    for module, names in REVIEWED_MODULES.items():
        real = importlib.import_module(module)  # before seccomp: the child builds these at load time
        out[module] = types.SimpleNamespace(**{n: getattr(real, n) for n in names if hasattr(real, n)})
    return out


NAMESPACES = _namespaces()


def import_call(module: str, *names: str) -> Any:
    """What a program's reviewed import becomes: the module's namespace, or a tuple of its names."""
    namespace = NAMESPACES.get(module)
    if namespace is None:  # the policy refuses these first; a program without it gets the same answer
        raise ImportError(f"import of {module!r} is not allowed; robot programs may import only {', '.join(sorted(NAMESPACES))}")
    if not names:
        return namespace
    values = []
    for name in names:
        if name not in vars(namespace):
            raise ImportError(f"cannot import name {name!r} from {module!r} in the sandbox")
        values.append(vars(namespace)[name])
    return tuple(values)


class RefusedAttribute(ValueError):
    """An attribute a program named at run time that the AST policy would refuse as `x.name`."""


class FormatFieldError(RefusedAttribute):
    """A format field that reaches for a private attribute."""


def attribute_allowed(name: object) -> bool:
    """The AST policy's rule for `x.name`, for names that only exist at run time."""
    return (
        isinstance(name, str) and is_allowed_identifier(name) and name not in FORBIDDEN_ATTRIBUTES
        and name not in FORMAT_METHODS  # a bound str.format taken as a value would skip the checks
    )


_MISSING = object()


def checked_getattr(obj: Any, name: str, default: Any = _MISSING) -> Any:
    """getattr() for programs: only the names they could have written as `obj.name`."""
    if not attribute_allowed(name):
        raise RefusedAttribute(f"getattr(..., {name!r}) is not allowed: use an attribute a program may name")
    if default is _MISSING:
        return getattr(obj, name)
    return getattr(obj, name, default)


class _CheckedFormatter(string.Formatter):
    """str.format semantics, except that "{0.attr}" may name only what the AST policy lets a program
    write as `x.attr`: no '_' names, no frame/code/traceback attributes, only normalised spellings."""

    def get_field(self, field_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        _first, rest = _formatter_field_name_split(field_name)
        for is_attr, key in rest:
            if is_attr and not attribute_allowed(key):
                raise FormatFieldError(f"format field {field_name!r} names a forbidden attribute")
        return super().get_field(field_name, args, kwargs)


def _formatter_field_name_split(field_name: str) -> tuple[Any, list[tuple[bool, Any]]]:
    first, rest = _string.formatter_field_name_split(field_name)
    return first, list(rest)


_FORMATTER = _CheckedFormatter()


def format_call(target: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """What `target.format(...)` / `target.format_map(m)` become after the policy's rewrite.

    `str.format(template, ...)` (the method called unbound, on the class) is checked like
    `template.format(...)`: left to getattr it would reach the unchecked formatter.
    """
    if isinstance(target, type):
        if not issubclass(target, str):
            raise TypeError(f"{target.__name__}.{method}() is not a formatting method robot programs may call")
        if not args or not isinstance(args[0], str):
            raise TypeError(f"str.{method}() needs a string template as its first argument")
        target, args = args[0], args[1:]
    if isinstance(target, str):
        try:
            if method == "format_map":
                if len(args) != 1 or kwargs:
                    raise TypeError("format_map() takes exactly one mapping argument")
                return _FORMATTER.vformat(target, (), args[0])
            return _FORMATTER.vformat(target, args, kwargs)
        except FormatFieldError:
            raise
        except Exception as exc:
            # A lookup that failed half-way carries the object it stopped at (AttributeError.obj,
            # the traceback's frames): the program gets the message only, raised outside this
            # handler so that not even __context__ links back.
            plain = _plain_copy(exc)
        raise plain
    # Not a string (a skill result with a 'format' field, say): the field's own value is called.
    bound = getattr(target, method)
    return bound(*args, **kwargs)


def _plain_copy(exc: Exception) -> Exception:
    """A fresh exception of a safe builtin type with `exc`'s message and no link to live objects."""
    for kind in (KeyError, IndexError, AttributeError, TypeError, ValueError, OverflowError):
        if isinstance(exc, kind):
            return kind(str(exc))
    return ValueError(f"{type(exc).__name__}: {exc}")


_EXCEPTION_LINKS = ("__traceback__", "__context__", "__cause__")


def scrub_exception(exc: BaseException) -> BaseException:
    """Cut a caught exception's routes to live objects before the program's handler sees it.

    The policy already refuses `__traceback__` & co. as attribute names; this is the same rule one
    level deeper, for the routes that need no underscore: AttributeError.obj (the object a lookup
    stopped at) and NameError.name. Runs at the top of every `except ... as name:` body.
    """
    for link in _EXCEPTION_LINKS:
        with contextlib.suppress(AttributeError, TypeError):
            setattr(exc, link, None)
    exc.__suppress_context__ = True
    if isinstance(exc, AttributeError):
        exc.obj = None
    return exc


def make_builtins(
    print_fn: Callable[..., None], extra: Mapping[str, Any], full: bool = False
) -> dict[str, Any]:
    """The builtins dict for one program: safe names, `print`, `math`, plus `extra` (SkillError...)."""
    if full:
        # Only for layer tests that show the process layers hold without this one.
        table = dict(vars(builtins))
    else:
        table = {name: getattr(builtins, name) for name in SAFE_BUILTIN_NAMES}
        table["math"] = NAMESPACES["math"]  # usable without an import, as the prompt has always said
    table["print"] = print_fn
    table["_sandbox_format_call"] = format_call
    table["_sandbox_scrub"] = scrub_exception
    table["_sandbox_import"] = import_call
    if not full:
        table["getattr"] = checked_getattr
    table.update(extra)
    return table
