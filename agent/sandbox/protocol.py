"""Wire format between the sandbox child and its parent: one JSON-RPC 2.0 object per line, UTF-8.

Standard library only (loaded in the child). Skill calls are requests with an id; control traffic
(child ready, program output, program done; parent's run order) are notifications under `sandbox.*`.
"""

from __future__ import annotations

import json
from typing import Any

RUN = "sandbox.run"  # parent -> child: code, stub signatures
READY = "sandbox.ready"  # child -> parent: layers the child applied to itself
STDOUT = "sandbox.stdout"  # child -> parent: a chunk of the program's printed output
DONE = "sandbox.done"  # child -> parent: outcome, line, message, error kind

# JSON-RPC error codes: the spec's, plus one for errors a skill raises on purpose.
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SKILL_ERROR = -32000


# Deepest nesting of arrays/objects a message may have. Skill arguments and results are records of
# records at most a few levels deep; anything deeper is abuse (a 5,000-deep line would otherwise
# reach recursive code on the host: pydantic, the episode record's JSON).
MAX_DEPTH = 32


_KIND_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def valid_kind(kind: str) -> bool:
    """Whether `kind` can name an error kind in an end report: an identifier of at most 80 characters."""
    return 0 < len(kind) <= 80 and not kind[0].isdigit() and all(c in _KIND_CHARS for c in kind)


class ProtocolError(ValueError):
    """A line that is not a well-formed message of this protocol."""


def nesting_exceeds(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON data `value` nests lists/dicts deeper than `limit` (level by level: safe on any depth)."""
    level = [value]
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below = []
        for item in level:
            kind = type(item)
            if kind is not dict and kind is not list and kind is not tuple:
                continue
            for child in item.values() if kind is dict else item:
                below.append(child)
        level = [c for c in below if type(c) in _CONTAINERS]
    return False


_CONTAINERS = (dict, list, tuple)


def too_deep(line: bytes, value: Any) -> bool:
    """`nesting_exceeds` for data whose encoded line is at hand: brackets are counted in C first, and a
    line with few of them cannot nest deeply, so most messages skip the walk."""
    return line.count(b"[") + line.count(b"{") > MAX_DEPTH and nesting_exceeds(value)


def encode(message: dict[str, Any]) -> bytes:
    """One message as a newline-terminated UTF-8 JSON line (newlines inside strings are escaped).

    Text UTF-8 cannot encode (a program printing chr(0xD800)) travels as JSON's ASCII escapes; the
    parent replaces what stays a lone surrogate after decoding (agent.sandbox.runner).
    """
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


def decode(line: bytes, *, check_depth: bool = True) -> dict[str, Any]:
    """Parse one line into a message object; raise ProtocolError naming what was wrong.

    `check_depth=False` for lines from a trusted sender (the child reading its parent's replies,
    whose results the parent has checked already).
    """
    try:
        obj = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"not a JSON line: {exc}") from None
    except RecursionError:
        raise ProtocolError(f"message nested deeper than {MAX_DEPTH} levels") from None
    if not isinstance(obj, dict) or obj.get("jsonrpc") != "2.0":
        raise ProtocolError("not a JSON-RPC 2.0 object")
    if check_depth and too_deep(line, obj):
        raise ProtocolError(f"message nested deeper than {MAX_DEPTH} levels")
    return obj


def notification(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A JSON-RPC notification (no id, no reply expected)."""
    return {"jsonrpc": "2.0", "method": method, "params": params}


def request(call_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A JSON-RPC request for a skill call."""
    return {"jsonrpc": "2.0", "id": call_id, "method": method, "params": params}


def result(call_id: Any, value: Any) -> dict[str, Any]:
    """A successful JSON-RPC response."""
    return {"jsonrpc": "2.0", "id": call_id, "result": value}


def error(call_id: Any, code: int, message: str, kind: str) -> dict[str, Any]:
    """A JSON-RPC error response; `kind` travels in `data` so the program can branch on it."""
    return {"jsonrpc": "2.0", "id": call_id, "error": {"code": code, "message": message, "data": {"kind": kind}}}
