"""The AST allow-list: what robot programs may write, and what they may not (checked in-process)."""

from __future__ import annotations

import pytest

from agent.sandbox.builtins_table import FormatFieldError, format_call, make_builtins
from agent.sandbox.policy import PolicyViolation, check_program

ALLOWED = [
    "x = [i * 2 for i in range(3) if i]\ny = {k: v for k, v in zip('ab', x)}",
    "def f(a, b=2, *rest, c=3, **kw):\n    return a + b\nprint(f(1))",
    "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    print(e.args)\nfinally:\n    pass",
    "s = f'{3.14159:.2f} {\"x\"!r}'",
    "s = '{} and {name}'.format(1, name='b')",
    "s = '{0[1]}'.format([1, 2])",
    "n = (lambda v: v + 1)(2)\nassert n == 3",
    "while (n := 3) > 4:\n    break",
    "r.type, r.format_version",  # skill results may have fields named like builtins
    "for _ in range(3):\n    pass\nq, _ = divmod(7, 2)\nf = lambda _: 0",
    "import math\nimport itertools as it\nfrom math import atan2, degrees\nfrom typing import List, Optional",
    "from __future__ import annotations\nfrom math import *\nfrom collections import deque, defaultdict",
]


@pytest.mark.parametrize("code", ALLOWED)
def test_normal_robot_code_is_allowed(code: str) -> None:
    check_program(code)


REJECTED = {
    "import os": "import of 'os' is not allowed",
    "import math.fake": "import of 'math.fake' is not allowed",
    "from os import path": "import from 'os' is not allowed",
    "from math import system": "math.system is not available",
    "from math import pi as _p": "'_' are reserved",
    "from .math import pi": "relative imports",
    "from __future__ import braces": "__future__ import braces",
    "import numpy as np": "may import only collections, functools, itertools, json, math, time, typing",
    "x._": "'_' are reserved",
    "class A: pass": "class definition",
    "x.__class__": "'_' are reserved",
    "x._private": "'_' are reserved",
    "_hidden = 1": "'_' are reserved",
    "def f(_x): pass": "'_' are reserved",
    "f(_k=1)": "'_' are reserved",
    "eval('1')": "'eval' is not allowed",
    "setattr(x, 'y', 1)": "'setattr' is not allowed",
    "x = __name__\n__name__ = 'a'": "'_' are reserved",
    "def f():\n    global _x": "'_' are reserved",
    "g.gi_frame": "'gi_frame' is not allowed",
    "e.tb_frame": "'tb_frame' is not allowed",
    "f = s.format": "may only be called directly",
    "def g():\n    yield 1": "'yield'",
    "async def g(): pass": "async function",
    "with a as b: pass": "'with'",
    "match x:\n    case _: pass": "'match'",
    "@d\ndef g(): pass": "decorators",
    "ｅｖａｌ('1')": "'eval' is not allowed",
}


@pytest.mark.parametrize("code", sorted(REJECTED))
def test_forbidden_constructs_are_rejected_with_a_line(code: str) -> None:
    with pytest.raises(PolicyViolation) as info:
        check_program("pass\n" + code)
    assert REJECTED[code] in info.value.message
    assert info.value.line >= 2


def test_format_calls_are_rewritten_and_checked() -> None:
    assert format_call("{0.real}", "format", 3) == "3"
    assert format_call("{a}", "format_map", {"a": 1}) == "1"
    with pytest.raises(FormatFieldError):
        format_call("{0.__class__}", "format", 1)
    with pytest.raises(FormatFieldError):
        format_call("{0.＿＿class＿＿}", "format", 1)


def test_restricted_builtins_lack_the_dangerous_names() -> None:
    table = make_builtins(print, {})
    for name in ("open", "eval", "exec", "__import__", "type", "object", "compile", "vars", "globals"):
        assert name not in table
    assert table["getattr"] is not getattr  # the checked one
    assert table["math"].sqrt(4.0) == 2.0


def test_unbound_str_format_is_checked_like_the_bound_call() -> None:
    assert format_call(str, "format", "{0.real}", 3) == "3"
    assert format_call(str, "format_map", "{a}", {"a": 1}) == "1"
    for template in ("{0._}", "{0.__globals__}", "{0.gi_frame}", "{0.with_traceback}", "{0:{1.__class__}}"):
        with pytest.raises(FormatFieldError):
            format_call(str, "format", template, 1, 2)
    with pytest.raises(TypeError, match="not a formatting method"):
        format_call(int, "format", "{0.__class__}", 1)


def test_a_failed_format_lookup_carries_no_object() -> None:
    with pytest.raises(AttributeError) as info:
        format_call("{0.real.nope}", "format", 3)
    assert info.value.obj is None and info.value.__context__ is None


def test_every_named_exception_handler_is_scrubbed_first() -> None:
    import ast

    from agent.sandbox.builtins_table import scrub_exception

    tree = check_program("try:\n    pass\nexcept ValueError as e:\n    print(e)\nexcept KeyError:\n    pass\n")
    handlers = [n for n in ast.walk(tree) if isinstance(n, ast.ExceptHandler)]
    first = handlers[0].body[0]
    assert isinstance(first, ast.Expr) and ast.unparse(first) == "_sandbox_scrub(e)"
    assert ast.unparse(handlers[1].body[0]) == "pass"
    try:
        {}["x"]
    except KeyError as inner:
        try:
            print((1).nope)  # type: ignore[attr-defined]
        except AttributeError as exc:
            scrub_exception(exc)
            assert exc.obj is None and exc.__context__ is None and exc.__traceback__ is None
            assert inner is not None


def test_getattr_takes_only_names_a_program_could_write() -> None:
    from agent.sandbox.builtins_table import RefusedAttribute, checked_getattr

    assert checked_getattr(3, "real") == 3 and checked_getattr(3, "nope", None) is None
    for name in ("__class__", "gi_frame", "format", "_x", 5):
        with pytest.raises(RefusedAttribute):
            checked_getattr("s", name)  # type: ignore[arg-type]
