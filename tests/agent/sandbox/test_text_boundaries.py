"""Text that is not text at the sandbox's boundaries: lone surrogates and NUL in programs, in a program's
output, in skill arguments, and end reports a program garbles on purpose. Clean outcomes, no crashes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.sandbox import Sandbox
from tests.agent.sandbox.harness import METHODS, TEST_LIMITS


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(TEST_LIMITS) as sb:
        yield sb


@pytest.mark.parametrize(("code", "what"), [
    ("x = '\ud800'\n", "a lone surrogate U+D800 at line 1"),
    ("x = 1\ny = 2\x00\n", "a NUL character at line 2"),
])
def test_a_program_that_is_not_valid_text_is_a_syntax_error(sandbox: Sandbox, code: str, what: str) -> None:
    result = sandbox.run(code, METHODS)
    assert (result.outcome, result.error_kind) == ("error", "SyntaxError"), result
    assert what in result.message and result.host_detail is None


def test_printing_a_lone_surrogate_is_output_not_a_crash(sandbox: Sandbox) -> None:
    result = sandbox.run("print('a' + chr(0xD800) + 'b')\nprint(chr(0))\n", METHODS)
    assert result.outcome == "ok", result
    assert result.stdout == "a\ufffdb\n\x00\n"
    result.model_dump_json()  # storable


def test_a_lone_surrogate_in_a_skill_argument_arrives_replaced(sandbox: Sandbox) -> None:
    result = sandbox.run("r = ping(chr(0xDC00) + 'x')\nprint(r.length)\n", METHODS)
    assert result.outcome == "ok" and result.stdout == "2\n"
    assert result.calls[0].args == {"payload": "\ufffdx"}


@pytest.mark.parametrize("raise_line", [
    "raise SkillError(nested, 'm')",           # a kind nested 300 deep
    "raise SkillError('not a kind!', nested)",  # a kind that is no identifier, a message str() cannot show
    "raise SkillError(chr(0xD800), chr(0xD800))",
])
def test_a_program_raising_a_garbled_skill_error_gets_a_skill_error_outcome(sandbox: Sandbox, raise_line: str) -> None:
    code = f"nested = []\nfor i in range(300):\n    nested = [nested]\n{raise_line}\n"
    result = sandbox.run(code, METHODS)
    assert (result.outcome, result.error_kind, result.line) == ("skill_error", "skill_error", 4), result
    result.model_dump_json()
