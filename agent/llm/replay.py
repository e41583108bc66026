"""Answering from a recording: the `replay:PATH` provider, and the recorder that writes such files.

A recording is JSONL, one answer a line: `{"text": "...", "model": "...", "usage": {"input_tokens": 1,
"output_tokens": 2}, "finish_reason": "stop", "request_hash": "..."}`; only `text` is required.
- Sequential: no line has `request_hash`; answers are served in file order, one per request.
- Keyed: every line has `request_hash` (ChatRequest.content_hash()); a request gets the answers recorded
  for its hash in order, and the last one again once they run out (a repeated identical request).
Mixing the two forms is an error, as is asking past the end of a sequential file.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from agent.llm.errors import ModelStringError, ReplayExhaustedError
from agent.llm.messages import ChatRequest, ChatResponse, Usage
from agent.llm.provider import ChatProvider, Completion, ModelSpec, ProviderSettings
from agent.llm.registry import register_provider


class RecordedAnswer(BaseModel):
    """One line of a recording."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    model: str = "replay"
    usage: Usage = Usage()
    finish_reason: str | None = None
    request_hash: str | None = None


def read_recording(path: Path) -> list[RecordedAnswer]:
    """Parse a recording; a bad line raises ValueError naming the file and line."""
    answers: list[RecordedAnswer] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ValueError(f"cannot read replay file {path}: {exc.strerror or exc}") from None
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            answers.append(RecordedAnswer.model_validate(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(x) for x in err["loc"]) or "line"
            raise ValueError(f"{path}:{lineno}: {where}: {err['msg']}") from None
    keyed = [a.request_hash is not None for a in answers]
    if any(keyed) and not all(keyed):
        first_odd = keyed.index(not keyed[0]) + 1
        raise ValueError(f"{path}: mixes keyed and sequential answers (answer {first_odd} differs from the first)")
    return answers


@register_provider("replay")
class ReplayProvider(ChatProvider):
    """Answers from a recording file instead of a model; costs nothing, needs no network."""

    free = True
    cacheable = False

    def __init__(self, spec: ModelSpec, settings: ProviderSettings):
        super().__init__(spec, settings)
        self.path = Path(spec.model)
        self._answers = read_recording(self.path)
        self.keyed = bool(self._answers) and self._answers[0].request_hash is not None
        self._next = 0
        self._by_hash: dict[str, list[RecordedAnswer]] = defaultdict(list)
        self._served: dict[str, int] = defaultdict(int)
        for answer in self._answers:
            if answer.request_hash is not None:
                self._by_hash[answer.request_hash].append(answer)

    @classmethod
    def parse_target(cls, target: str, model_string: str) -> ModelSpec:
        """The whole target is a path (it may contain colons)."""
        if not target.strip():
            raise ModelStringError(f"model string {model_string!r}: expected 'replay:PATH' to a JSONL recording")
        return ModelSpec(provider=cls.name, model=target.strip())

    def identity(self) -> str:
        """Replay answers are not cached, but the identity still names the file."""
        return f"replay|{self.path.resolve()}"

    def complete(self, request: ChatRequest) -> Completion:
        """The next recorded answer (sequential) or the one recorded for this request (keyed)."""
        if self.keyed:
            answer = self._keyed_answer(request.content_hash())
        else:
            if self._next >= len(self._answers):
                raise ReplayExhaustedError(
                    f"replay file {self.path} holds {len(self._answers)} answers; request {self._next + 1} asked for another"
                )
            answer = self._answers[self._next]
            self._next += 1
        return Completion(text=answer.text, usage=answer.usage, model=answer.model, finish_reason=answer.finish_reason)

    def _keyed_answer(self, request_hash: str) -> RecordedAnswer:
        recorded = self._by_hash.get(request_hash)
        if not recorded:
            raise ReplayExhaustedError(
                f"replay file {self.path} has no answer for request {request_hash[:16]}... "
                f"({len(self._by_hash)} requests recorded)"
            )
        index = min(self._served[request_hash], len(recorded) - 1)
        self._served[request_hash] += 1
        return recorded[index]


class ReplayRecorder:
    """Appends every answer a client returns to a keyed recording that `replay:PATH` can serve."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def record(self, request: ChatRequest, response: ChatResponse) -> None:
        """Append one line (flushed at once, so a crashed run keeps what it had)."""
        line: dict[str, Any] = RecordedAnswer(
            text=response.text,
            model=response.model,
            usage=response.usage,
            finish_reason=response.finish_reason,
            request_hash=request.content_hash(),
        ).model_dump(mode="json")
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
