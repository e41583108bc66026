"""A content-addressed cache of model answers on disk, for reproducible reruns and free re-scoring.

The key is the SHA-256 of the provider's identity (name, endpoint, model) and the request's content hash
(system prompt, messages with image bytes, temperature, seed, max tokens). Entries are JSON files under
`root/ab/abcdef....json`, written to a temporary file and renamed into place, so a crash or a concurrent
writer never leaves a half-written entry. A corrupt entry is reported and treated as a miss.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from agent.llm.messages import ChatRequest, ChatResponse

log = logging.getLogger(__name__)

CACHE_FORMAT = 1

CacheMode = Literal["readwrite", "readonly", "off"]


def cache_key(identity: str, request: ChatRequest) -> str:
    """The hex key of `request` sent to the provider with `identity`."""
    blob = json.dumps({"format": CACHE_FORMAT, "identity": identity, "request": request.content_hash()})
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """Answers stored by cache key; `readonly` never writes (a miss is then the caller's business)."""

    def __init__(self, root: str | Path, mode: CacheMode = "readwrite"):
        if mode == "off":
            raise ValueError("a ResponseCache with mode 'off' makes no sense; pass no cache instead")
        self.root = Path(root)
        self.mode = mode

    def path_for(self, key: str) -> Path:
        """Where the entry for `key` lives."""
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> ChatResponse | None:
        """The stored answer for `key`, or None when absent or unreadable."""
        path = self.path_for(key)
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("response cache entry %s unreadable (%s); treating as a miss", path, exc)
            return None
        try:
            entry = json.loads(raw)
            if entry.get("format") != CACHE_FORMAT or entry.get("key") != key:
                raise ValueError(f"format {entry.get('format')!r} or key mismatch")
            return ChatResponse.model_validate(entry["response"])
        except (ValueError, KeyError, TypeError, AttributeError, ValidationError) as exc:
            log.warning("response cache entry %s is corrupt (%s); treating as a miss", path, str(exc)[:200])
            return None

    def put(self, key: str, identity: str, request: ChatRequest, response: ChatResponse) -> Path | None:
        """Store `response` atomically; returns the entry's path (None in read-only mode)."""
        if self.mode == "readonly":
            return None
        path = self.path_for(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = {
            "format": CACHE_FORMAT,
            "key": key,
            "identity": identity,
            # The request without image bytes (their hashes stand in), so entries stay small and readable.
            "request": request.canonical(),
            "response": response.model_dump(mode="json"),
        }
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(entry, fh, ensure_ascii=False, indent=1)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path
