"""The sandbox child: confine itself, receive one program, check it, run it, report, exit.

Runs in a fresh interpreter (`python -I -S`) that the parent fed this package's sources through
stdin (see bootstrap.BOOTSTRAP), so the child needs no access to the project's files. Holds no
simulator state: the world is reachable only through skill stubs that speak JSON-RPC on fds 0/1.
Standard library only, plus pyseccomp from source handed over by the parent.
"""

from __future__ import annotations
import __future__

import ast
import json
import math
import os
import resource
import sys
import types
from collections.abc import Callable
from typing import Any, NoReturn

from agent.sandbox import builtins_table, policy, protocol, seccomp_filter

PROGRAM_FILENAME = "<program>"
MESSAGE_LIMIT_SLACK = 256  # bytes of envelope around a call's params


# What the program can hold of the child's own code: skill result records, SkillError and the skill
# stubs. They are built from this source in a namespace of their own, so even their __globals__
# (refused by the policy, and one formatter or exception route away from a program in the past)
# hold no module of the child: no os, no sys, no channel. The stubs reach the pipe only through
# the `forward` callable in their closure.
PROGRAM_FACING_SOURCE = '''
class Record(dict):
    """A skill result object: a dict whose keys also read as attributes (`r.position`)."""

    __slots__ = ()

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"result has no field {name!r}; fields: {sorted(self)}") from None


class SkillError(Exception):
    """Raised by a skill call that failed; `kind` says how (e.g. "grasp_failed"), `message` why."""

    def __init__(self, kind, message):
        Exception.__init__(self, message)
        self.kind = kind
        self.message = message


def make_stub(method, params, forward):
    """A plain function named like the skill that forwards its arguments by parameter name."""

    def stub(*args, **kwargs):
        if len(args) > len(params):
            raise TypeError(f"{method}() takes {len(params)} positional arguments but {len(args)} were given")
        named = dict(zip(params, args))
        for key, value in kwargs.items():
            if key in named:
                raise TypeError(f"{method}() got multiple values for argument {key!r}")
            named[key] = value
        return forward(method, named)

    stub.__name__ = stub.__qualname__ = method
    return stub


def make_print(forward):
    """The program's print(), forwarding to the runtime's capture."""

    def print(*args, sep=" ", end="\\n", flush=False):
        forward(*args, sep=sep, end=end)

    return print
'''


def _program_facing() -> dict[str, Any]:
    import builtins

    allowed = ("dict", "len", "zip", "sorted", "Exception", "AttributeError", "KeyError", "TypeError")
    table: dict[str, Any] = {name: getattr(builtins, name) for name in allowed}
    table["__build_class__"] = builtins.__build_class__
    namespace: dict[str, Any] = {"__builtins__": table, "__name__": "sandbox"}
    exec(compile(PROGRAM_FACING_SOURCE, "<sandbox>", "exec"), namespace)
    del table["__build_class__"]  # needed to define the two classes, never after
    return namespace


_FACING = _program_facing()
Record: type[dict[str, Any]] = _FACING["Record"]
SkillError: type[Exception] = _FACING["SkillError"]


class Channel:
    """Blocking line I/O on fds 0 (from the parent) and 1 (to the parent)."""

    def __init__(self, leftover: bytes) -> None:
        self._buf = leftover

    def send(self, message: dict[str, Any]) -> None:
        """Write one message; retries partial writes."""
        data = memoryview(protocol.encode(message))
        while data:
            n = os.write(1, data)
            data = data[n:]

    def receive(self) -> dict[str, Any]:
        """Read one message; exit quietly when the parent has gone."""
        while b"\n" not in self._buf:
            chunk = os.read(0, 1 << 16)
            if not chunk:
                os._exit(0)
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return protocol.decode(line, check_depth=False)  # the parent checked what it sends


class ChildRuntime:
    """Output capture, skill stubs and the program's end, for one program run."""

    def __init__(self, channel: Channel, max_stdout: int, max_message: int, token: str = "") -> None:
        self.channel = channel
        self.token = token  # quoted in "done", so the parent knows the end report is the runtime's
        self.max_stdout = max_stdout
        self.max_message = max_message
        self.stdout_total = 0
        self.pending: list[str] = []
        self.pending_size = 0
        self.next_id = 1
        self.finished = False

    # -- output ---------------------------------------------------------------------------------
    def print(self, *args: Any, sep: str | None = " ", end: str | None = "\n", flush: bool = False) -> None:
        """The program's print(): captured, capped, and sent to the parent in chunks."""
        room = self.max_stdout - self.stdout_total
        separator = " " if sep is None else str(sep)
        pieces: list[str] = []
        size = 0
        for i, arg in enumerate(args):  # stop converting once past the cap (print(*[1] * 10**7))
            piece = str(arg) if i == 0 else separator + str(arg)
            pieces.append(piece)
            size += len(piece)
            if size > room:
                break
        text = "".join(pieces) + ("\n" if end is None else str(end))
        if len(text) > room:
            self._queue(text[: max(room, 0)])
            self.finish("resource_limit", f"output exceeded the limit of {self.max_stdout} characters", None, None)
        self._queue(text)
        if self.pending_size >= 8192:
            self.flush()

    def _queue(self, text: str) -> None:
        if text:
            self.pending.append(text)
            self.pending_size += len(text)
            self.stdout_total += len(text)

    def flush(self) -> None:
        """Send buffered output to the parent."""
        if self.pending:
            self.channel.send(protocol.notification(protocol.STDOUT, {"text": "".join(self.pending)}))
            self.pending.clear()
            self.pending_size = 0

    # -- skill calls ----------------------------------------------------------------------------
    def call(self, method: str, params: dict[str, Any]) -> Any:
        """One blocking skill call over the pipe; raises SkillError for an error reply."""
        self.flush()
        call_id = self.next_id
        self.next_id += 1
        try:
            line = protocol.encode(protocol.request(call_id, method, params))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{method}(): arguments must be plain data (numbers, strings, lists, dicts): {exc}") from None
        if len(line) > self.max_message:
            self.finish(
                "resource_limit", f"{method}() call of {len(line)} bytes exceeds the {self.max_message}-byte limit",
                None, None,
            )
        os_write_all(line)
        reply = self.channel.receive()
        if reply.get("id") != call_id:
            self.finish("error", "sandbox protocol error: reply out of order", None, None)
        if "error" in reply:
            err = reply["error"]
            kind = str((err.get("data") or {}).get("kind", "skill_error"))
            raise SkillError(kind, str(err.get("message", "")))
        return _to_records(reply.get("result"))

    def make_stub(self, method: str, params: list[str]) -> Callable[..., Any]:
        """A plain function named like the skill that forwards its arguments by parameter name."""
        stub: Callable[..., Any] = _FACING["make_stub"](method, params, self.call)
        return stub

    # -- end ------------------------------------------------------------------------------------
    def finish(self, outcome: str, message: str, line: int | None, kind: str | None) -> NoReturn:
        """Report the outcome and exit at once (the program cannot catch this)."""
        if not self.finished:
            self.finished = True
            self.flush()
            self.channel.send(
                protocol.notification(
                    protocol.DONE, {"outcome": outcome, "message": message[:2000], "line": line, "kind": kind, "token": self.token}
                )
            )
        os._exit(0)


def os_write_all(data: bytes) -> None:
    """Write all of `data` to fd 1."""
    view = memoryview(data)
    while view:
        n = os.write(1, view)
        view = view[n:]


def _to_records(value: Any) -> Any:
    if isinstance(value, dict):
        return Record((k, _to_records(v)) for k, v in value.items())
    if isinstance(value, list):
        return [_to_records(v) for v in value]
    return value


def program_line(exc: BaseException) -> int | None:
    """The innermost line of the agent's program in an exception's traceback."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == PROGRAM_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def apply_rlimits(limits: dict[str, Any]) -> list[str]:
    """Lower this process's rlimits (hard and soft); return the names applied."""
    cpu = int(limits["cpu_s"])
    table = {
        "AS": (resource.RLIMIT_AS, int(limits["memory_bytes"]), int(limits["memory_bytes"])),
        "CPU": (resource.RLIMIT_CPU, cpu, cpu + 1),
        "NPROC": (resource.RLIMIT_NPROC, 0, 0),
        "FSIZE": (resource.RLIMIT_FSIZE, 0, 0),
        "NOFILE": (resource.RLIMIT_NOFILE, int(limits["max_open_files"]), int(limits["max_open_files"])),
        "CORE": (resource.RLIMIT_CORE, 0, 0),
    }
    applied = []
    for name, (which, soft, hard) in table.items():
        try:
            resource.setrlimit(which, (soft, hard))
            applied.append(name)
        except (ValueError, OSError):
            continue
    return applied


def load_pyseccomp(code: types.CodeType, libs: dict[str, str]) -> types.ModuleType:
    """Build the pyseccomp module from its compiled code, with library names the parent resolved.

    A stand-in `ctypes.util` answers find_library from `libs`: the real one imports subprocess and
    runs ldconfig, which costs start-up time and needs a shell inside the sandbox.
    """
    import ctypes

    stand_in = types.ModuleType("ctypes.util")
    stand_in.find_library = libs.get  # type: ignore[attr-defined]
    saved = sys.modules.get("ctypes.util")
    sys.modules["ctypes.util"] = stand_in
    ctypes.util = stand_in  # type: ignore[attr-defined]
    try:
        module = types.ModuleType("pyseccomp")
        exec(code, module.__dict__)
    finally:
        if saved is None:
            del sys.modules["ctypes.util"]
            del ctypes.util  # type: ignore[attr-defined]
        else:
            sys.modules["ctypes.util"] = saved
            ctypes.util = saved  # type: ignore[attr-defined]
    return module


def confine(config: dict[str, Any]) -> dict[str, Any]:
    """Apply rlimits then seccomp to this process; return what was applied, for the parent's report."""
    applied: dict[str, Any] = {"uid": os.getuid(), "pid": os.getpid()}
    seccomp_module = None
    if config["layers"]["seccomp"]:
        try:
            seccomp_module = load_pyseccomp(config["pyseccomp_code"], config["libs"])
        except Exception as exc:  # libseccomp missing or unloadable: report, do not hide it
            applied["seccomp_error"] = f"{type(exc).__name__}: {exc}"
    applied["rlimits"] = apply_rlimits(config["limits"]) if config["layers"]["rlimits"] else []
    applied["seccomp"] = False
    if seccomp_module is not None:
        try:
            applied["seccomp_rules"] = seccomp_filter.install(seccomp_module)
            applied["seccomp"] = True
        except Exception as exc:
            applied["seccomp_error"] = f"{type(exc).__name__}: {exc}"
    return applied


def run_program(runtime: ChildRuntime, order: dict[str, Any], config: dict[str, Any]) -> NoReturn:
    """Check, compile and execute the program the parent sent; report how it ended."""
    code = order["code"]
    layers = config["layers"]
    try:
        if layers["ast_policy"]:
            tree: ast.Module = policy.check_program(code, PROGRAM_FILENAME)
        else:
            tree = ast.parse(code, PROGRAM_FILENAME)
        # Postponed annotations: no annotation of the program is ever evaluated (`-> Pose` is fine).
        compiled = compile(tree, PROGRAM_FILENAME, "exec", flags=__future__.annotations.compiler_flag, dont_inherit=True)
    except policy.PolicyViolation as exc:
        runtime.finish("policy_violation", exc.message, exc.line or None, "policy_violation")
    except SyntaxError as exc:
        runtime.finish("error", f"SyntaxError: {exc.msg}", exc.lineno, "SyntaxError")
    except (MemoryError, RecursionError):
        runtime.finish("resource_limit", "program too large or too deeply nested to parse", None, "MemoryError")

    stubs = {name: runtime.make_stub(name, params) for name, params in order["methods"].items()}
    extra = {"SkillError": SkillError, **stubs}
    program_print = _FACING["make_print"](runtime.print)
    program_builtins = builtins_table.make_builtins(program_print, extra, full=not layers["restricted_builtins"])
    scope: dict[str, Any] = {"__builtins__": program_builtins, "__name__": "__main__", **stubs}
    ballast: bytearray | None = bytearray(1 << 20)  # freed on MemoryError so the report can be sent
    try:
        exec(compiled, scope)
    except SkillError as exc:
        # The program may raise SkillError itself with anything as kind and message: report text only.
        kind = getattr(exc, "kind", None)
        kind = kind if isinstance(kind, str) and protocol.valid_kind(kind) else "skill_error"
        message = _as_text(getattr(exc, "message", None))
        runtime.finish("skill_error", f"{kind}: {message}", program_line(exc), kind)
    except builtins_table.RefusedAttribute as exc:
        runtime.finish("policy_violation", str(exc), program_line(exc), "policy_violation")
    except MemoryError as exc:
        ballast = None
        scope.clear()
        runtime.finish("resource_limit", "MemoryError: the program ran out of memory", program_line(exc), "MemoryError")
    except Exception as exc:
        runtime.finish("error", f"{type(exc).__name__}: {exc}", program_line(exc), type(exc).__name__)
    except BaseException as exc:  # SystemExit / KeyboardInterrupt reached through full builtins
        runtime.finish("error", f"{type(exc).__name__}: {exc}", program_line(exc), type(exc).__name__)
    del ballast
    runtime.finish("ok", "", None, None)


def _as_text(value: Any) -> str:
    """str(value), cut short; a value whose str() fails (nested 300 deep, a raising __str__) names its type."""
    if isinstance(value, str):
        return value[:2000]
    try:
        return str(value)[:2000]
    except (Exception, RecursionError):
        return f"<{type(value).__name__} that cannot be shown>"


def main(config: dict[str, Any], leftover: bytes) -> NoReturn:
    """Child entry point, called by the bootstrap with the parent's configuration."""
    sys.setrecursionlimit(int(config["limits"]["max_recursion"]))
    channel = Channel(leftover)
    _warm_up()
    applied = confine(config)
    channel.send(protocol.notification(protocol.READY, applied))
    order = channel.receive()
    if order.get("method") != protocol.RUN:
        os._exit(2)
    limits = config["limits"]
    runtime = ChildRuntime(
        channel, int(limits["max_stdout_chars"]), int(limits["max_message_bytes"]), str(order["params"].get("token", ""))
    )
    run_program(runtime, order["params"], config)


def _warm_up() -> None:
    """Touch lazily imported machinery now, while imports still work (seccomp forbids them later)."""
    json.loads(json.dumps({"a": [1.5, "é", None, True]}))
    f"{1:>4}"
    builtins_table.format_call("{x}", "format", x=math.pi)
    compile("x = 1", PROGRAM_FILENAME, "exec")
    str(ValueError("x"))
    # Lazy imports inside the reviewed modules: Counter.most_common() imports heapq on first use.
    builtins_table.NAMESPACES["collections"].Counter("aab").most_common(1)
