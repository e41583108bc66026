"""The parent treats the child as hostile: it never blocks on it, and every message is checked.

These programs run with the Python layer off (no AST policy, full builtins), standing in for a
program that got past it: they write raw protocol lines to fd 1 the way an escape could.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest

from agent.sandbox import Sandbox, SandboxLayers, SandboxResult
from tests.agent.sandbox.harness import METHODS, TEST_LIMITS

PAST_PYTHON_LAYER = SandboxLayers(ast_policy=False, restricted_builtins=False)


@pytest.fixture(scope="module")
def raw() -> Iterator[Sandbox]:
    with Sandbox(TEST_LIMITS, PAST_PYTHON_LAYER) as sb:
        yield sb


def _run_raw(sandbox: Sandbox, body: str) -> SandboxResult:
    """Run `body` with `w(bytes)` writing straight to the protocol channel."""
    head = "import os\ndef w(b):\n    v = memoryview(b)\n    while v:\n        v = v[os.write(1, v):]\n"
    return sandbox.run(head + body, METHODS)


@pytest.mark.timeout(60)
def test_a_child_that_never_reads_its_replies_is_ended_not_waited_on(raw: Sandbox) -> None:
    """Thousands of calls and no reads: the replies would fill the pipe and block a blocking write."""
    body = (
        "req = b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"payload\":\"' + b'x' * 3000 + b'\"}}\\n'\n"
        "for i in range(100000):\n    w(req)\n"
    )
    t0 = time.perf_counter()
    result = _run_raw(raw, body)
    assert (result.outcome, result.error_kind) == ("policy_violation", "flood"), result
    assert time.perf_counter() - t0 < TEST_LIMITS.wall_s + 2
    assert raw.run("print(ping('ok').payload)", METHODS).stdout == "ok\n"


@pytest.mark.timeout(60)
def test_a_child_that_stops_reading_mid_reply_hits_the_wall_clock(raw: Sandbox) -> None:
    """One call whose reply is larger than the pipe, never read: the parent keeps its deadline."""
    body = (
        "req = b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"payload\":\"' + b'y' * 60000 + b'\"}}\\n'\n"
        "w(req)\nimport time\nwhile True:\n    pass\n"
    )
    result = _run_raw(raw, body)
    assert result.outcome == "timeout", result
    assert result.wall_s < TEST_LIMITS.wall_s + 1


def test_a_deeply_nested_line_is_a_protocol_error_not_a_recursion_error(raw: Sandbox) -> None:
    result = _run_raw(raw, "w(b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"payload\":' + b'[' * 5000 + b']' * 5000 + b'}}\\n')\n")
    assert (result.outcome, result.error_kind) == ("policy_violation", "protocol"), result
    shallow = _run_raw(raw, "w(b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"payload\":' + b'[' * 40 + b']' * 40 + b'}}\\n')\n")
    assert (shallow.outcome, shallow.error_kind) == ("policy_violation", "protocol"), shallow


FORGED_DONE = "w(b'{\"jsonrpc\":\"2.0\",\"method\":\"sandbox.done\",\"params\":{\"outcome\":\"ok\",\"message\":\"\",\"line\":null,\"kind\":null%s}}\\n')\n"


def test_a_forged_done_is_rejected(raw: Sandbox) -> None:
    """Without the run's token, or followed by more output, a "done" is not the runtime's."""
    no_token = _run_raw(raw, FORGED_DONE % "" + "while True:\n    pass\n")
    assert (no_token.outcome, no_token.error_kind) == ("policy_violation", "forged_done"), no_token
    wrong = _run_raw(raw, FORGED_DONE % ",\"token\":\"0123456789abcdef\"")
    assert (wrong.outcome, wrong.error_kind) == ("policy_violation", "forged_done"), wrong


def test_output_after_the_real_done_is_a_forgery(raw: Sandbox) -> None:
    """A program that reaches the runtime (here: its token through gc) and ends twice is caught."""
    body = (
        "import gc\nrt = next(o for o in gc.get_objects() if type(o).__name__ == 'ChildRuntime')\n"
        "tok = rt.token.encode()\n"
        "w(b'{\"jsonrpc\":\"2.0\",\"method\":\"sandbox.done\",\"params\":{\"outcome\":\"ok\",\"message\":\"\",\"line\":null,\"kind\":null,\"token\":\"' + tok + b'\"}}\\n')\n"
        "w(b'{\"jsonrpc\":\"2.0\",\"method\":\"sandbox.stdout\",\"params\":{\"text\":\"more\"}}\\n')\n"
        "while True:\n    pass\n"
    )
    result = _run_raw(raw, body)
    assert (result.outcome, result.error_kind) == ("policy_violation", "forged_done"), result


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc":"2.0","method":"sandbox.stdout","params":{"text":5}}',
        b'{"jsonrpc":"2.0","method":"sandbox.stdout","params":{"text":"a","extra":1}}',
        b'{"jsonrpc":"2.0","id":true,"method":"ping","params":{}}',
        b'{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}',
        b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{},"more":0}',
        b'{"jsonrpc":"2.0","method":"sandbox.ready","params":{}}',
        b'[1, 2]',
        b'\xff\xfe',
    ],
    ids=["stdout_text_int", "stdout_extra_key", "bool_id", "list_params", "extra_key", "second_ready", "array", "bad_utf8"],
)
def test_malformed_messages_end_the_program_with_a_protocol_error(raw: Sandbox, line: bytes) -> None:
    result = _run_raw(raw, "w(" + repr(line + b"\n") + ")\nwhile True:\n    pass\n")
    assert (result.outcome, result.error_kind) == ("policy_violation", "protocol"), result


def test_crash_details_reach_the_operator_log(raw: Sandbox, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="agent.sandbox.runner"):
        result = _run_raw(raw, "import sys\nsys.stderr.write('child stderr says boom')\nsys.stderr.flush()\nos._exit(7)\n")
    assert (result.outcome, result.error_kind) == ("error", "crashed"), result
    assert "boom" not in result.message  # the agent sees the outcome; the operator sees the details
    assert any("exit status 7" in r.getMessage() and "boom" in r.getMessage() for r in caplog.records)


def _nested(depth: int) -> list[object]:
    out: list[object] = []
    for _ in range(depth):
        out = [out]
    return out


@pytest.mark.parametrize("depth", [40, 5000], ids=["past_the_protocol_limit", "past_pydantic_limit"])
def test_a_deeply_nested_skill_result_is_a_typed_error_the_program_can_catch(depth: int) -> None:
    code = "try:\n    deep()\nexcept SkillError as e:\n    print(e.kind)\nprint(ping('after').length)\n"
    with Sandbox(TEST_LIMITS) as sb:
        result = sb.run(code, {**METHODS, "deep": lambda: _nested(depth)})
    assert result.outcome == "ok", result
    assert result.stdout == "result_too_deep\n5\n"
    assert result.calls[0].error_kind == "result_too_deep" and not result.calls[0].ok
    shallow = Sandbox(TEST_LIMITS, prestart=False).run("print(len(deep()))", {"deep": lambda: _nested(30)})
    assert shallow.outcome == "ok" and shallow.stdout == "1\n", shallow


def test_what_the_program_holds_reaches_no_module_of_the_child(raw: Sandbox) -> None:
    """Skill stubs, print, SkillError and result records live in a namespace of their own: past the Python
    layer, their __globals__ hold no os, sys or channel, and their builtins no __import__."""
    code = (
        "import types\n"
        "for g in (ping.__globals__, SkillError.__init__.__globals__, type(ping('x')).__getattr__.__globals__,\n"
        "          print.__globals__):\n"
        "    mods = [k for k, v in g.items() if isinstance(v, types.ModuleType)]\n"
        "    print(sorted(g['__builtins__']), mods, '__import__' in g['__builtins__'])\n"
    )
    result = raw.run(code, METHODS)
    assert result.outcome == "ok", result
    lines = result.stdout.splitlines()
    assert len(lines) == 4
    for line in lines:
        assert line.endswith("[] False"), line
        assert "open" not in line and "exec" not in line
