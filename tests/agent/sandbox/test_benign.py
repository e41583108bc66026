"""The benign-program corpus: programs written the way current models write robot code must run.

A false refusal is the sandbox refusing what a model may fairly write: a policy violation, or a
NameError/ImportError for a builtin or reviewed module. The corpus runs against every skill of both
libraries under their real signatures (tests/fakes/skill_world.py); each program must end "ok".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.sandbox import Sandbox, SandboxLimits, SandboxResult
from tests.fakes.skill_world import SkillWorld

CORPUS = Path(__file__).parent / "corpus" / "benign"
PROGRAMS = sorted(CORPUS.glob("*.py"))
LIMITS = SandboxLimits(wall_s=10.0, cpu_s=10, memory_bytes=512 << 20)


def is_false_refusal(result: SandboxResult) -> bool:
    """Whether the sandbox, not the program, is why it did not run."""
    return result.outcome == "policy_violation" or (
        result.outcome == "error" and result.error_kind in ("NameError", "ImportError")
    )


def test_corpus_is_large_enough() -> None:
    assert len(PROGRAMS) >= 100


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(LIMITS) as sb:
        yield sb


@pytest.mark.slow
def test_no_benign_program_is_refused(sandbox: Sandbox) -> None:
    refused, failed = [], []
    for path in PROGRAMS:
        result = sandbox.run(path.read_text(encoding="utf-8"), SkillWorld().methods())
        if is_false_refusal(result):
            refused.append(f"{path.name}: {result.message} (line {result.line})")
        elif result.outcome != "ok":
            failed.append(f"{path.name}: {result.outcome} {result.message} (line {result.line})")
    rate = len(refused) / len(PROGRAMS)
    print(f"benign corpus: {len(PROGRAMS)} programs, false-refusal rate {rate:.3f}")
    assert refused == [], f"false-refusal rate {rate:.3f}: " + "; ".join(refused)
    assert failed == [], failed  # the corpus itself is correct against the scripted scene
