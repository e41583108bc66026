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


class ProtocolError(ValueError):
    """A line that is not a well-formed message of this protocol."""


def nesting_exceeds(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `value` nests lists/dicts deeper than `limit` (iterative: safe on any depth)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list | tuple) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list | tuple))
    return False


def encode(message: dict[str, Any]) -> bytes:
    """One message as a newline-terminated UTF-8 JSON line (newlines inside strings are escaped)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """Parse one line into a message object; raise ProtocolError naming what was wrong."""
    try:
        obj = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"not a JSON line: {exc}") from None
    except RecursionError:
        raise ProtocolError(f"message nested deeper than {MAX_DEPTH} levels") from None
    if not isinstance(obj, dict) or obj.get("jsonrpc") != "2.0":
        raise ProtocolError("not a JSON-RPC 2.0 object")
    # Brackets counted in C first: a line with few of them cannot nest deeply, so most skip the walk.
    if line.count(b"[") + line.count(b"{") > MAX_DEPTH and nesting_exceeds(obj):
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
