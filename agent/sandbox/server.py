"""The parent-side skill server: answers the child's JSON-RPC calls with registered typed functions.

It lives in the simulator's process. It accepts only the registered method names, validates each
call's arguments against the function's signature (pydantic), caps message size and call count,
and turns a skill's SkillError into an error reply the program can catch. Anything else a callable
raises is a host bug: the program is stopped and the traceback stays on the host.
"""

from __future__ import annotations

import inspect
import logging
import time
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError, to_jsonable_python

from agent.sandbox import protocol
from jarvis_sim.records import Outcome, SkillCallRecord
from skills.stored import clip

log = logging.getLogger(__name__)


class SandboxFault(Exception):
    """A condition that ends the program from the parent's side (limit, protocol abuse, host bug)."""

    def __init__(self, outcome: Outcome, message: str, kind: str, host_detail: str | None = None) -> None:
        super().__init__(message)
        self.outcome: Outcome = outcome
        self.message = message
        self.kind = kind
        self.host_detail = host_detail


@dataclass(frozen=True)
class _Method:
    name: str
    fn: Callable[..., Any]
    signature: inspect.Signature
    adapters: dict[str, TypeAdapter[Any]]
    positional: list[str]


def _skill_error_kind(exc: BaseException) -> str | None:
    """The `kind` of an agent-facing skill error (skills.errors.SkillError or any exception with a str kind)."""
    kind = getattr(exc, "kind", None)
    return kind if isinstance(kind, str) and kind else None


class SkillServer:
    """Dispatches skill calls from one sandboxed program to plain typed Python functions."""

    def __init__(
        self,
        methods: Mapping[str, Callable[..., Any]],
        *,
        max_calls: int = 2000,
        max_message_bytes: int = 1 << 20,
        max_argument_bytes: int = 64 * 1024,
        pause_after: Callable[[], str | None] | None = None,
    ) -> None:
        self._methods = {name: self._describe(name, fn) for name, fn in methods.items()}
        self.max_calls = max_calls
        self.max_message_bytes = max_message_bytes
        self.max_argument_bytes = max_argument_bytes
        # Asked after every answered call; a message ends the program there with outcome 'paused'.
        self.pause_after = pause_after
        self.calls: list[SkillCallRecord] = []

    @staticmethod
    def _describe(name: str, fn: Callable[..., Any]) -> _Method:
        if not name.isidentifier() or name.startswith("_"):
            raise ValueError(f"skill name {name!r} must be a public Python identifier")
        signature = inspect.signature(fn)
        try:
            hints = typing.get_type_hints(fn)
        except Exception as exc:
            raise ValueError(f"skill {name!r}: cannot resolve its type hints ({exc})") from None
        adapters: dict[str, TypeAdapter[Any]] = {}
        positional: list[str] = []
        for param in signature.parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
                raise ValueError(f"skill {name!r}: *args, **kwargs and positional-only parameters are not supported")
            if param.name.startswith("_"):
                raise ValueError(f"skill {name!r}: parameter {param.name!r} must not start with '_'")
            adapters[param.name] = TypeAdapter(hints.get(param.name, Any))
            if param.kind == param.POSITIONAL_OR_KEYWORD:
                positional.append(param.name)
        return _Method(name, fn, signature, adapters, positional)

    def stub_signatures(self) -> dict[str, list[str]]:
        """Method name -> positional parameter names, from which the child builds its stubs."""
        return {name: m.positional for name, m in self._methods.items()}

    def reset(self) -> None:
        """Forget the calls of the previous program."""
        self.calls = []

    def handle_line(self, line: bytes) -> bytes:
        """Answer one request line from the child; raise SandboxFault when the program must stop."""
        if len(line) > self.max_message_bytes:
            raise SandboxFault(
                "resource_limit", f"skill call message of {len(line)} bytes exceeds the limit", "message_size"
            )
        try:
            request = protocol.decode(line)
        except protocol.ProtocolError as exc:
            raise SandboxFault("policy_violation", f"malformed message from the sandbox: {exc}", "protocol") from None
        return self.answer(request, len(line))

    def answer(self, request: dict[str, Any], size: int = 0) -> bytes:
        """The reply line to one decoded request of `size` bytes; raise SandboxFault when the program must stop."""
        reply = self.handle(request, size)
        reason = self.pause_after() if self.pause_after is not None else None
        if reason:
            raise SandboxFault("paused", reason, "paused")
        try:
            line = protocol.encode(reply)
        except (ValueError, TypeError, RecursionError) as exc:  # NaN-free JSON is checked upstream; belt and braces
            log.error("reply to %s() could not be encoded: %s", request.get("method"), exc)
            raise SandboxFault("error", "a skill's reply could not be encoded", "internal_error", host_detail=str(exc)) from None
        if "result" in reply and protocol.too_deep(line, reply["result"]):
            record = self.calls[-1]
            record.ok, record.result = False, None
            message = f"{record.name}() returned a result nested deeper than {protocol.MAX_DEPTH} levels"
            line = protocol.encode(self._too_deep(record, reply["id"], message))
        if len(line) > self.max_message_bytes:
            raise SandboxFault(
                "resource_limit", f"the reply to {request.get('method')}() exceeds {self.max_message_bytes} bytes",
                "message_size",
            )
        return line

    def handle(self, request: dict[str, Any], size: int = 0) -> dict[str, Any]:
        """Answer one decoded JSON-RPC request (its line `size` bytes); raise SandboxFault when the program must stop.

        What is recorded of each call (`self.calls`) is bounded: a value above skills.stored's limit is
        kept as a marker, so a program's calls never hold more than a few KB each here.
        """
        call_id, method, params = request.get("id"), request.get("method"), request.get("params", {})
        if not isinstance(call_id, int) or not isinstance(params, dict):
            raise SandboxFault("policy_violation", "malformed skill call from the sandbox", "protocol")
        spec = self._methods.get(method) if isinstance(method, str) else None
        if spec is None:
            raise SandboxFault("policy_violation", f"{method!r} is not a skill", "unknown_method")
        if len(self.calls) >= self.max_calls:
            raise SandboxFault(
                "resource_limit", f"more than {self.max_calls} skill calls in one program", "max_calls"
            )
        started = time.perf_counter()
        record = SkillCallRecord(name=spec.name, args={str(k)[:100]: clip(v) for k, v in params.items()}, ok=False)
        self.calls.append(record)
        if size > self.max_argument_bytes:
            # Refused at the boundary: no skill (and no record) ever holds an argument this large.
            message = (f"{spec.name}(): the call's arguments are {size} bytes, above this sandbox's limit of "
                       f"{self.max_argument_bytes} bytes per skill call (max_argument_bytes)")
            record.error_kind, record.error = "argument_too_large", message
            return protocol.error(call_id, protocol.INVALID_PARAMS, message, "argument_too_large")
        try:
            kwargs = self._validate(spec, params)
        except _InvalidArguments as exc:
            record.error_kind, record.error = "invalid_arguments", str(exc)
            return protocol.error(call_id, protocol.INVALID_PARAMS, str(exc), "invalid_arguments")
        try:
            value = spec.fn(**kwargs)
        except Exception as exc:
            record.wall_s = time.perf_counter() - started
            kind = _skill_error_kind(exc)
            if kind is None:
                log.exception("skill %s raised a non-skill exception", spec.name)
                raise SandboxFault(
                    "error", f"skill {spec.name}() failed with an internal error", "internal_error",
                    host_detail=f"{type(exc).__name__}: {exc}",
                ) from exc
            record.error_kind, record.error = kind, clip(str(exc))
            return protocol.error(call_id, protocol.SKILL_ERROR, str(exc), kind)
        record.wall_s = time.perf_counter() - started
        too_deep = f"{spec.name}() returned a result nested deeper than {protocol.MAX_DEPTH} levels"
        try:
            payload = to_jsonable_python(value)
        except (PydanticSerializationError, ValueError, RecursionError) as exc:
            # pydantic-core reports its own depth cap as a bare ValueError
            if isinstance(exc, RecursionError) or "depth" in str(exc):
                return self._too_deep(record, call_id, too_deep)
            raise SandboxFault(
                "error", f"skill {spec.name}() returned a value that cannot be sent to the program",
                "internal_error", host_detail=str(exc),
            ) from None
        record.ok, record.result = True, clip(payload)
        return protocol.result(call_id, payload)

    @staticmethod
    def _too_deep(record: SkillCallRecord, call_id: int, message: str) -> dict[str, Any]:
        """A result the program could not walk safely, nor the episode record store: a typed error."""
        log.error("skill %s", message)
        record.error_kind, record.error = "result_too_deep", message
        return protocol.error(call_id, protocol.INTERNAL_ERROR, message, "result_too_deep")

    @staticmethod
    def _validate(spec: _Method, params: dict[str, Any]) -> dict[str, Any]:
        try:
            bound = spec.signature.bind(**params)
        except TypeError as exc:
            raise _InvalidArguments(f"{spec.name}(): {exc}") from None
        out: dict[str, Any] = {}
        for name, value in bound.arguments.items():
            try:
                out[name] = spec.adapters[name].validate_python(value)
            except ValidationError as exc:
                first = exc.errors()[0]
                raise _InvalidArguments(f"{spec.name}(): argument {name!r}: {first['msg']} (got {_short_repr(value)})") from None
        return out


def _short_repr(value: Any, chars: int = 80) -> str:
    """The start of repr(value), built from a prefix for strings (never a copy of a megabyte)."""
    if isinstance(value, str) and len(value) > chars:
        return repr(value[:chars]) + f"... ({len(value)} chars)"
    return f"{value!r:.{chars}}"


class _InvalidArguments(Exception):
    """Arguments that do not fit the skill's signature."""
