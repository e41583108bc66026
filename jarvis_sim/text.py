"""Text that can be stored and sent: no lone surrogates, and where asked, no NUL characters.

JSON's `\\ud800` escape and Python's `chr(0xD800)` make strings that UTF-8 cannot encode: one of
them in a REST body, a program, a program's output or a model's answer used to end in a 500 or a
failed episode when the record was written. NUL is valid text but not a valid path, source line or
PostgreSQL string. Every boundary that takes text from outside asks `text_problem` (and refuses
with the answer) or stores `storable(text)` (a lone surrogate replaced by U+FFFD).
"""

from __future__ import annotations

import re
from typing import Any

# After JSON or Python has joined every valid pair, a code point in this range stands alone.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_LONE_OR_NUL = re.compile("[\ud800-\udfff\x00]")
REPLACEMENT = "\ufffd"


def text_problem(text: str, *, nul: bool = True) -> str | None:
    """What makes `text` unusable (a lone surrogate, or with `nul` a NUL), with its line and column; or None."""
    found = (_LONE_OR_NUL if nul else _LONE_SURROGATE).search(text)
    if found is None:
        return None
    line = text.count("\n", 0, found.start()) + 1
    column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    what = "a NUL character" if found.group() == "\x00" else f"a lone surrogate U+{ord(found.group()):04X}"
    return f"{what} at line {line}, column {column}"


def storable(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (the same object when it has none)."""
    return _LONE_SURROGATE.sub(REPLACEMENT, text) if _LONE_SURROGATE.search(text) else text


def storable_json(value: Any) -> Any:
    """JSON data with `storable` applied to every string, keys included (containers rebuilt only if needed)."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, list | tuple):
        return [storable_json(v) for v in value]
    if isinstance(value, dict):
        return {storable(k) if isinstance(k, str) else k: storable_json(v) for k, v in value.items()}
    return value


def json_text_problem(value: Any, path: str = "") -> tuple[str, str] | None:
    """(where, what) of the first string in JSON data holding a lone surrogate or a NUL; None if clean."""
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            problem = text_problem(item)
            if problem is not None:
                return where or "body", problem
        elif isinstance(item, dict):
            for k, v in item.items():
                key_problem = text_problem(k) if isinstance(k, str) else None
                if key_problem is not None:  # where names the object, never the key that cannot be shown
                    return where or "body", f"a key with {key_problem}"
                stack.append((f"{where}.{k}" if where else str(k), v))
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(item))
    return None
