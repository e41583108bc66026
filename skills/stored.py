"""What an episode's record keeps of the values agents make: bounded per value and per episode.

Skill arguments, skill results, error messages, printed output and model answers are the agent's
to size. Kept whole, 380 legal calls with a 1 MB argument each became a 410 MB record, a 410 MB REST
response and a 1.9 GB server. Here each value is kept whole up to `value_bytes` and replaced by a
marker above it (its size and first characters), and once the episode has kept `episode_bytes` in
all, every further value is a marker: the record grows by a few hundred bytes per call at most.
Nothing is multiplied: the marker is built from a prefix, never from a copy of the whole value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

VALUE_BYTES = 16 * 1024  # one argument, result or error message kept whole up to this
TEXT_BYTES = 256 * 1024  # a text field (a model answer, printed output) kept up to this, then cut with a marker
EPISODE_BYTES = 16 * 1024 * 1024  # Budget.record_bytes' default: the agent-made bytes one record keeps
HEAD_CHARS = 160  # characters of a clipped value shown in its marker
MARKER = "[not stored:"  # every marker starts so; a reader can tell a clipped value from a real one


def json_size(value: Any) -> int:
    """Bytes of `value` as compact UTF-8 JSON (strings counted without encoding a copy)."""
    if isinstance(value, str):
        return len(value) + 2  # chars, not bytes: an upper bound on work, a lower bound on non-ASCII size
    if value is None or isinstance(value, bool | int | float):
        return 8
    try:
        return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str))
    except (TypeError, ValueError, RecursionError):
        return len(repr(value))


def marker(size: int, head: str, why: str) -> str:
    """The text that stands for a value the record does not keep."""
    shown = head[:HEAD_CHARS].encode("utf-8", "backslashreplace").decode("utf-8")
    return f"{MARKER} {size} bytes, {why}; starts {shown!r}]"


def _head(value: Any) -> str:
    if isinstance(value, str):
        return value[:HEAD_CHARS]
    try:
        return json.dumps(value, ensure_ascii=False, default=str)[:HEAD_CHARS]
    except (TypeError, ValueError, RecursionError):
        return repr(value)[:HEAD_CHARS]


def clip(value: Any, limit: int = VALUE_BYTES) -> Any:
    """`value` itself when its JSON fits in `limit` bytes, else a marker naming its size and the limit."""
    size = json_size(value)
    if size <= limit:
        return value
    return marker(size, _head(value), f"above the {limit}-byte limit per stored value")


@dataclass
class StoredBytes:
    """The agent-made bytes one episode's record has kept so far, against its budget (Budget.record_bytes)."""

    episode_bytes: int = EPISODE_BYTES
    value_bytes: int = VALUE_BYTES
    kept: int = 0
    clipped: int = 0  # values replaced by a marker

    def keep(self, value: Any) -> Any:
        """What the record stores for `value`: itself, or a marker (too large, or the budget is spent)."""
        if value is None or isinstance(value, bool | int | float):
            return value
        size = json_size(value)
        if size > self.value_bytes:
            why = f"above the {self.value_bytes}-byte limit per stored value"
        elif self.kept + size > self.episode_bytes:
            why = f"the episode's record budget of {self.episode_bytes} bytes (budget.record_bytes) is spent"
        else:
            self.kept += size
            return value
        self.clipped += 1
        kept = marker(size, _head(value), why)
        self.kept += len(kept)
        return kept

    def keep_text(self, text: str, limit: int = TEXT_BYTES) -> str:
        """A text field (a model answer, printed output): its head up to `limit` and what the episode's
        budget has left, then a marker saying how much was cut."""
        room = max(0, min(limit, self.episode_bytes - self.kept))
        if len(text) <= room:
            self.kept += len(text)
            return text
        self.clipped += 1
        why = (f"above the {limit}-character limit per text" if room == limit else
               f"the episode's record budget of {self.episode_bytes} bytes (budget.record_bytes) is spent")
        cut = text[:room] + f"\n{MARKER} {len(text) - room} more characters, {why}]"
        self.kept += len(cut)
        return cut

    def keep_args(self, args: dict[str, Any]) -> dict[str, Any]:
        """A call's arguments, each kept or replaced by its marker."""
        return {str(k)[:100]: self.keep(v) for k, v in args.items()}
