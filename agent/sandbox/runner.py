"""Start sandbox children, feed them a program, serve their skill calls, and end them on any limit.

`Sandbox` is the reusable form: it keeps one child started and confined ahead of time, so a program
only pays for sending its code. Every program still gets a fresh process; nothing carries over.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import secrets
import select
import signal
import subprocess
import time
import weakref
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agent.sandbox import protocol
from agent.sandbox.bootstrap import BOOTSTRAP, compiled_child, module_sources
from agent.sandbox.layers import HostSupport, LayerReport, detect
from agent.sandbox.limits import SandboxLayers, SandboxLimits
from agent.sandbox.reaper import reap_orphans
from agent.sandbox.result import SandboxResult
from agent.sandbox.server import SandboxFault, SkillServer
from jarvis_sim.records import Outcome
from jarvis_sim.text import storable, storable_json, text_problem

STDERR_TAIL = 4000
PIPE_BYTES = 256 * 1024  # the child's stdin pipe: the boot line (~100 KB) fits whole
OUTBOX_SLACK = 64 * 1024  # unsent bytes beyond one reply: a child that does not read its replies is ended
# JSON's escape for a surrogate code point (a lone one survives decoding; agent.sandbox.protocol.encode)
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
DONE_GRACE_S = 0.25  # after "done" the child must exit; anything it writes meanwhile is a forgery

log = logging.getLogger(__name__)


@dataclass
class _Child:
    """One started child process, what has been read from it, and what still waits to be written."""

    proc: subprocess.Popen[bytes]
    started: float
    stdout_buf: bytes = b""
    stderr_tail: bytes = b""
    ready: dict[str, Any] | None = None
    eof: bool = False
    messages: deque[bytes] = field(default_factory=deque)
    outbox: bytearray = field(default_factory=bytearray)  # bytes for the child's stdin not yet accepted


class Sandbox:
    """Runs agent programs, one fresh confined child each, against a skill server in this process."""

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        layers: SandboxLayers | None = None,
        *,
        prestart: bool = True,
    ) -> None:
        self.limits = limits or SandboxLimits()
        self.layers = layers or SandboxLayers()
        self.support: HostSupport = detect(self.layers)
        self.prestart = prestart
        self._boot_line = self._make_boot_line()
        self._spare: _Child | None = None
        self._live: set[int] = set()
        self._finalizer = weakref.finalize(self, Sandbox._kill_all, self._live)
        if prestart:
            self._spare = self._spawn()

    # -- public ---------------------------------------------------------------------------------
    @property
    def report(self) -> LayerReport:
        """Which layers this sandbox runs with (and why any requested one is missing)."""
        return self.support.report

    def run(
        self, code: str, methods: Mapping[str, Callable[..., Any]] | SkillServer, *, wall_s: float | None = None
    ) -> SandboxResult:
        """Run one program to its end and say how it ended; the host is never disturbed by it.

        The program's wall clock is `limits.wall_s`, or `wall_s` when that is shorter (what is left of
        an episode's budget). Time inside skill calls counts: a skill cannot be interrupted, so a
        program ends at the first message after its deadline, at most one skill call late.
        """
        started = time.perf_counter()
        wall = self.limits.wall_s if wall_s is None else min(self.limits.wall_s, wall_s)
        if not wall > 0:
            return self._result("timeout", started, message="no wall-clock time left for the program", kind="wall_clock")
        if self.support.subreaper:
            reap_orphans()  # bwrap's namespace init of the previous run may have become a zombie since
        server = methods if isinstance(methods, SkillServer) else SkillServer(
            methods, max_calls=self.limits.max_calls, max_message_bytes=self.limits.max_message_bytes,
            max_argument_bytes=self.limits.max_argument_bytes,
        )
        server.reset()
        problem = text_problem(code)
        if problem is not None:  # compile() cannot take it, and the pipe could not carry it
            return self._result("error", started, message=f"SyntaxError: the program holds {problem}, which is not "
                                "valid source text", kind="SyntaxError", layers=[])
        size = len(code.encode("utf-8", errors="replace"))
        if size > self.limits.max_code_bytes:
            return self._result(
                "resource_limit", started, message=f"program of {size} bytes exceeds the {self.limits.max_code_bytes}-byte limit",
                kind="code_size", layers=[],
            )
        child, self._spare = (self._spare or self._spawn()), None
        if child.proc.poll() is not None and not child.messages:
            # A spare that died while idle (killed from outside, say) must not cost the program its run.
            log.warning("pre-started sandbox child %d had exited (status %s); starting another",
                        child.proc.pid, child.proc.returncode)
            self._end(child)
            child = self._spawn()
        try:
            return self._run_in(child, code, server, started, wall)
        finally:
            self._end(child)
            if self.prestart:
                self._spare = self._spawn()

    def close(self) -> None:
        """End the spare child, if any."""
        if self._spare is not None:
            self._end(self._spare)
            self._spare = None

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- children -------------------------------------------------------------------------------
    def _make_boot_line(self) -> bytes:
        s = self.support
        config = {
            "limits": self.limits.model_dump(),
            "layers": {
                "ast_policy": self.layers.ast_policy,
                "restricted_builtins": self.layers.restricted_builtins,
                "seccomp": s.seccomp_libs is not None,
                "rlimits": self.layers.rlimits,
            },
            "libs": s.seccomp_libs or {},
        }
        sources = json.dumps(module_sources(s.pyseccomp_source))
        modules = compiled_child(s.interpreter, s.uid, s.gid, sources)
        return protocol.encode({"jsonrpc": "2.0", "modules": modules, "config": config})

    def _spawn(self) -> _Child:
        s = self.support
        argv = [*s.drop_argv, *s.bwrap_argv, s.interpreter, "-I", "-S", "-c", BOOTSTRAP]
        popen_drops = s.uid is not None and not s.drop_argv
        proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={}, cwd="/",
            start_new_session=True, close_fds=True, bufsize=0,
            user=s.uid if popen_drops else None, group=s.gid if popen_drops else None,
            extra_groups=[] if popen_drops else None,
        )
        self._live.add(proc.pid)
        child = _Child(proc=proc, started=time.perf_counter())
        assert proc.stdin is not None
        fd = proc.stdin.fileno()
        # Room for the whole boot line in the pipe: the spare then starts up on its own, and no
        # write to the child ever waits for it to read.
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, max(PIPE_BYTES, len(self._boot_line) + 4096))
        os.set_blocking(fd, False)
        self._write(child, self._boot_line)
        return child

    @staticmethod
    def _kill_all(pids: set[int]) -> None:
        for pid in list(pids):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)

    def _end(self, child: _Child) -> None:
        """Kill the child's process group, wait for it, and reap what bwrap leaves behind."""
        proc = child.proc
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        self._live.discard(proc.pid)
        if self.support.subreaper:
            reap_orphans()

    def _pump(self, child: _Child, timeout: float) -> None:
        """Wait up to `timeout` s for the child: send what the outbox holds as the pipe takes it, and
        split complete stdout lines into child.messages. Never blocks on the child."""
        proc = child.proc
        assert proc.stdout is not None and proc.stderr is not None and proc.stdin is not None
        fds = [proc.stdout.fileno()] if not child.eof else []
        fds.append(proc.stderr.fileno())
        writers = [proc.stdin.fileno()] if child.outbox and not proc.stdin.closed else []
        readable, writable, _ = select.select(fds, writers, [], max(timeout, 0.0))
        if writable:
            self._flush(child)
        for fd in readable:
            data = os.read(fd, 1 << 16)
            if fd == proc.stderr.fileno():
                child.stderr_tail = (child.stderr_tail + data)[-STDERR_TAIL:]
                continue
            if not data:
                child.eof = True
                continue
            child.stdout_buf += data
        while b"\n" in child.stdout_buf:
            line, _, child.stdout_buf = child.stdout_buf.partition(b"\n")
            if len(line) > self.limits.max_message_bytes:
                raise SandboxFault("resource_limit", "message from the program exceeds the size limit", "message_size")
            child.messages.append(line)
        if len(child.stdout_buf) > self.limits.max_message_bytes:
            raise SandboxFault("resource_limit", "message from the program exceeds the size limit", "message_size")

    def _write(self, child: _Child, data: bytes) -> None:
        """Queue `data` for the child and send as much as its pipe takes now."""
        child.outbox += data
        self._flush(child)

    def _flush(self, child: _Child) -> None:
        stdin = child.proc.stdin
        if stdin is None or stdin.closed:
            child.outbox.clear()
            return
        while child.outbox:
            try:
                n = os.write(stdin.fileno(), child.outbox)
            except BlockingIOError:
                return
            except OSError:  # the child is gone (EPIPE); its exit status will say how
                child.outbox.clear()
                return
            del child.outbox[:n]

    def _await_ready(self, child: _Child) -> dict[str, Any]:
        """The child's ready report. The deadline bounds start-up only: a child that reported ready
        long ago and then sat idle while the agent's model was thinking is ready, not late."""
        deadline = child.started + self.limits.startup_s
        self._pump(child, 0.0)  # what the child wrote while it waited counts, however long ago
        while child.ready is None:
            if child.messages:
                msg = protocol.decode(child.messages.popleft())
                params = msg.get("params")
                if msg.get("method") != protocol.READY or not isinstance(params, dict) or "id" in msg:
                    raise SandboxFault("error", "sandbox child misbehaved during start-up", "startup")
                child.ready = params
                break
            if child.eof or time.perf_counter() > deadline:
                child.proc.poll()
                raise SandboxFault(
                    "error", "the sandbox failed to start", "startup",
                    host_detail=f"exit status {child.proc.returncode}; stderr: {child.stderr_tail.decode(errors='replace')}",
                )
            self._pump(child, deadline - time.perf_counter())
        return child.ready

    def _active_layers(self, ready: dict[str, Any]) -> list[str]:
        active = dict(self.support.report.active)
        active["seccomp"] = ready.get("seccomp") is True
        active["rlimits"] = bool(ready.get("rlimits"))
        return [name for name, on in active.items() if on]

    def _run_in(self, child: _Child, code: str, server: SkillServer, started: float, wall: float) -> SandboxResult:
        layers: list[str] = []
        stdout: list[str] = []
        stdout_size = 0
        try:
            ready = self._await_ready(child)
            layers = self._active_layers(ready)
            # The child must quote this in its "done": a line the program forged without reaching the
            # runtime's memory (an escape that only found fd 1) is told apart from the real end.
            token = secrets.token_hex(8)
            order = protocol.notification(
                protocol.RUN, {"code": code, "methods": server.stub_signatures(), "token": token}
            )
            self._write(child, protocol.encode(order))
            deadline = time.perf_counter() + wall
            late = SandboxFault("timeout", f"the program ran longer than {wall:g} s (time inside skills counts)", "wall_clock")
            flood = SandboxFault("policy_violation", "the program sent skill calls without reading the replies", "flood")
            while True:
                while child.messages:
                    line = child.messages.popleft()
                    msg = protocol.decode(line)
                    if _ESCAPED_SURROGATE.search(line):  # text UTF-8 cannot hold: replaced before anyone stores it
                        msg = storable_json(msg)
                    kind = _message_kind(msg)
                    if kind == "request":
                        if child.outbox:
                            raise flood  # an honest child waits for each reply before its next call
                        if time.perf_counter() > deadline:
                            raise late  # no new skill call once the program's time is up
                        self._write(child, server.answer(msg, len(line)))
                        if len(child.outbox) > self.limits.max_message_bytes + OUTBOX_SLACK:
                            raise flood
                    elif kind == "stdout":
                        text = msg["params"]["text"]
                        stdout_size += len(text)
                        if stdout_size > self.limits.max_stdout_chars + 8192:
                            raise SandboxFault("resource_limit", "output exceeded the limit", "stdout")
                        stdout.append(text)
                    else:
                        p = _done_params(msg, token)
                        self._await_exit(child)
                        return self._result(
                            p["outcome"], started, message=p["message"], line=p["line"], kind=p["kind"],
                            stdout="".join(stdout)[: self.limits.max_stdout_chars], server=server, layers=layers,
                        )
                if child.eof:
                    return self._died(child, started, stdout, server, layers)
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    raise late
                self._pump(child, remaining)
        except SandboxFault as fault:
            return self._result(
                fault.outcome, started, message=fault.message, kind=fault.kind, stdout="".join(stdout),
                server=server, layers=layers, host_detail=fault.host_detail,
            )
        except protocol.ProtocolError as exc:
            return self._result(
                "policy_violation", started, message="malformed message from the sandbox", kind="protocol",
                stdout="".join(stdout), server=server, layers=layers, host_detail=str(exc),
            )

    def _await_exit(self, child: _Child) -> None:
        """After "done" the child only exits: any further output means the done was not the runtime's."""
        until = time.perf_counter() + DONE_GRACE_S
        while not child.eof and not child.messages and not child.stdout_buf:
            left = until - time.perf_counter()
            if left <= 0:
                return  # still alive but silent: it is killed next, nothing it does can count
            self._pump(child, left)
        if child.messages or child.stdout_buf:
            raise SandboxFault("policy_violation", "the program wrote to the protocol channel after its end", "forged_done")

    def _died(
        self, child: _Child, started: float, stdout: list[str], server: SkillServer, layers: list[str]
    ) -> SandboxResult:
        """The child ended without reporting: classify its exit status."""
        try:
            status = child.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            status = None
        sig = -status if status is not None and status < 0 else (status - 128 if status and status > 128 else 0)
        detail = f"exit status {status}; stderr: {child.stderr_tail.decode(errors='replace')}"
        if sig in (signal.SIGXCPU, signal.SIGKILL):
            outcome: Outcome = "timeout"
            message, kind = f"the program used more than {self.limits.cpu_s} s of CPU", "cpu_limit"
        elif sig == signal.SIGXFSZ:
            outcome, message, kind = "resource_limit", "the program tried to write a file", "file_size"
        else:
            outcome, message, kind = "error", "the sandbox process ended unexpectedly", "crashed"
        return self._result(
            outcome, started, message=message, kind=kind, stdout="".join(stdout), server=server, layers=layers,
            host_detail=detail,
        )

    def _result(
        self, outcome: Outcome, started: float, *, message: str = "", line: int | None = None,
        kind: str | None = None, stdout: str = "", server: SkillServer | None = None,
        layers: list[str] | None = None, host_detail: str | None = None,
    ) -> SandboxResult:
        if host_detail:  # crashes, protocol abuse and host bugs: the operator's log keeps the details
            log.warning("sandbox program ended %s (%s): %s", outcome, kind, host_detail[-2000:])
        return SandboxResult(
            outcome=outcome, line=line, message=message, error_kind=kind, stdout=stdout,
            calls=list(server.calls) if server is not None else [], wall_s=time.perf_counter() - started,
            layers=layers or [], host_detail=host_detail,
        )


_OUTCOMES: tuple[Outcome, ...] = ("ok", "policy_violation", "skill_error", "timeout", "resource_limit", "error")
_REQUEST_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
_NOTIFICATION_KEYS = frozenset({"jsonrpc", "method", "params"})
_DONE_KEYS = frozenset({"outcome", "message", "line", "kind", "token"})


def _message_kind(msg: dict[str, Any]) -> str:
    """"request", "stdout" or "done" for a well-formed child message; ProtocolError otherwise."""
    keys = msg.keys()
    params = msg.get("params")
    if "id" in msg:
        call_id = msg["id"]
        if (keys != _REQUEST_KEYS or not isinstance(call_id, int) or isinstance(call_id, bool)
                or not isinstance(msg["method"], str) or not isinstance(params, dict)):
            raise protocol.ProtocolError("skill call is not {jsonrpc, id: int, method: str, params: object}")
        return "request"
    if keys != _NOTIFICATION_KEYS or not isinstance(params, dict):
        raise protocol.ProtocolError("notification is not {jsonrpc, method, params: object}")
    method = msg["method"]
    if method == protocol.STDOUT:
        if params.keys() != {"text"} or not isinstance(params["text"], str):
            raise protocol.ProtocolError("sandbox.stdout params must be {text: str}")
        return "stdout"
    if method == protocol.DONE:
        return "done"
    raise protocol.ProtocolError(f"unexpected message {str(method)[:40]!r} from the sandbox")


def _done_params(msg: dict[str, Any], token: str) -> dict[str, Any]:
    """The checked fields of a "done" message; a wrong token or shape is a forgery."""
    p = msg["params"]
    if p.keys() != _DONE_KEYS or p["token"] != token:
        raise SandboxFault("policy_violation", "the program forged its end report", "forged_done")
    outcome, message, line, kind = p["outcome"], p["message"], p["line"], p["kind"]
    if (outcome not in _OUTCOMES or not isinstance(message, str)
            or not (line is None or (isinstance(line, int) and not isinstance(line, bool) and line >= 1))
            or not (kind is None or (isinstance(kind, str) and protocol.valid_kind(kind)))):
        raise protocol.ProtocolError("sandbox.done params have the wrong types (or a kind that is not an identifier)")
    return {"outcome": outcome, "message": storable(message[:2000]), "line": line, "kind": kind}


def run_program(
    code: str, methods: Mapping[str, Callable[..., Any]], limits: SandboxLimits | None = None,
    layers: SandboxLayers | None = None,
) -> SandboxResult:
    """Run one program in a fresh sandbox (cold start); use `Sandbox` to amortise start-up."""
    with Sandbox(limits, layers, prestart=False) as sandbox:
        return sandbox.run(code, methods)
