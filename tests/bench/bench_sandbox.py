"""`jarvis bench sandbox`: program start to first statement, and skill RPC round trip, with layers named.

Start-up is measured from `Sandbox.run()` being called to the parent receiving the program's first
statement (a skill call), cold (a new child per program) and warm (a child started ahead of time).
RPC round trip is the gap between consecutive skill calls of a tight loop in the program, so it
includes the child's encode/decode, both pipe hops and argument validation in the parent.

Also: a pre-started child that waited longer than its start-up deadline (a slow model) still runs
its program, and how fast; the benign corpus's false-refusal rate; the attack corpus's containment
with every layer on (outcome as labelled, no host evidence).
"""

from __future__ import annotations

import itertools
import statistics
import subprocess
import time
from typing import Any

from common import emit, machine

from agent.sandbox import Sandbox, SandboxLimits
from tests.agent.sandbox.harness import METHODS, host_probe, load_attacks
from tests.agent.sandbox.test_benign import CORPUS, is_false_refusal
from tests.fakes.skill_world import SkillWorld

STARTS = 15
CALLS = 2000
OBSERVATION = {f"brick_{i}": {"position": [0.1 * i, 0.2, 0.0096], "held": False} for i in range(20)}


def marks_appender(marks: list[float]) -> Any:
    """A skill that records when it was called."""

    def mark() -> None:
        marks.append(time.perf_counter())

    return mark


def _first_statement_ms(sandbox: Sandbox, settle_s: float) -> list[float]:
    samples: list[float] = []
    for _ in range(STARTS):
        time.sleep(settle_s)  # lets a pre-started child finish starting, as between agent rounds
        marks: list[float] = []
        started = time.perf_counter()
        result = sandbox.run("mark()\n", {"mark": marks_appender(marks)})
        if result.outcome != "ok" or not marks:
            raise RuntimeError(f"bench program failed: {result}")
        samples.append((marks[0] - started) * 1000.0)
    return samples


def _round_trip_us(sandbox: Sandbox, method: Any, program: str) -> list[float]:
    stamps: list[float] = []

    def timed() -> Any:
        stamps.append(time.perf_counter())
        return method()

    result = sandbox.run(program, {"skill": timed})
    if result.outcome != "ok":
        raise RuntimeError(f"bench program failed: {result}")
    return [(b - a) * 1e6 for a, b in itertools.pairwise(stamps)]


def _late_program_ms(limits: SandboxLimits, idle_s: float) -> tuple[float, str]:
    """A program arriving `idle_s` after the spare was started (past its start-up deadline)."""
    with Sandbox(limits.model_copy(update={"startup_s": idle_s / 2}), prestart=True) as sandbox:
        time.sleep(idle_s)
        marks: list[float] = []
        started = time.perf_counter()
        result = sandbox.run("mark()\n", {"mark": marks_appender(marks)})
    return ((marks[0] - started) * 1000.0 if marks else float("nan")), result.outcome


def _benign_corpus() -> tuple[int, int, int]:
    """(programs, false refusals, other failures) of the benign corpus."""
    programs = sorted(CORPUS.glob("*.py"))
    refused = failed = 0
    with Sandbox(SandboxLimits(wall_s=10.0, cpu_s=10, memory_bytes=512 << 20)) as sandbox:
        for path in programs:
            result = sandbox.run(path.read_text(encoding="utf-8"), SkillWorld().methods())
            refused += is_false_refusal(result)
            failed += result.outcome != "ok" and not is_false_refusal(result)
    return len(programs), refused, failed


def _attack_corpus() -> tuple[int, int, int]:
    """(programs, outcome as labelled, programs leaving host evidence) of the attack corpus."""
    from tests.agent.sandbox.harness import TEST_LIMITS

    attacks = load_attacks()
    as_labelled = escaped = 0
    with host_probe() as probe, Sandbox(TEST_LIMITS) as sandbox:
        for attack in attacks:
            result = sandbox.run(probe.render(attack.template), METHODS)
            as_labelled += result.outcome in attack.expect
            escaped += bool(probe.evidence(result.stdout))
    return len(attacks), as_labelled, escaped


def main() -> None:
    """Print the figures."""
    limits = SandboxLimits(max_calls=CALLS + 10)
    with Sandbox(limits, prestart=False) as cold:
        layers = cold.report.active_names()
        degraded = cold.report.degraded()
        cold_ms = _first_statement_ms(cold, 0.0)
    with Sandbox(limits, prestart=True) as warm:
        warm_ms = _first_statement_ms(warm, 0.5)
        ping_us = _round_trip_us(warm, lambda: None, f"for i in range({CALLS}):\n    skill()\n")
        obs_us = _round_trip_us(warm, lambda: OBSERVATION, f"for i in range({CALLS}):\n    skill()\n")

    bare_ms = []
    for _ in range(STARTS):
        t0 = time.perf_counter()
        subprocess.run([cold.support.interpreter, "-I", "-S", "-c", "pass"], check=True)
        bare_ms.append((time.perf_counter() - t0) * 1000.0)

    baseline = [0.0] * 200
    for i in range(len(baseline)):
        t0 = time.perf_counter()
        dict(OBSERVATION)
        baseline[i] = (time.perf_counter() - t0) * 1e6
    extra = {"layers": layers, "degraded": degraded, **machine()}
    emit("bare_interpreter_start_median", statistics.median(bare_ms), "ms", baseline_for="cold start", **extra)
    emit("sandbox_first_statement_cold_median", statistics.median(cold_ms), "ms", target=80,
         ratio_to_bare_interpreter=round(statistics.median(cold_ms) / statistics.median(bare_ms), 2), **extra)
    emit("sandbox_first_statement_cold_p90", statistics.quantiles(cold_ms, n=10)[-1], "ms", **extra)
    emit("sandbox_first_statement_warm_median", statistics.median(warm_ms), "ms", target=80, **extra)
    emit("sandbox_rpc_round_trip_ping_median", statistics.median(ping_us), "us", target=300, **extra)
    emit("sandbox_rpc_round_trip_observation_median", statistics.median(obs_us), "us", target=300,
         observation_keys=len(OBSERVATION), in_process_copy_us=statistics.median(baseline), **extra)
    late_ms, late_outcome = _late_program_ms(limits, 3.0)
    emit("sandbox_first_statement_after_idle_past_startup_deadline", late_ms, "ms", outcome=late_outcome,
         idle_s=3.0, startup_deadline_s=1.5, **extra)
    n, refused, failed = _benign_corpus()
    emit("benign_corpus_false_refusal_rate", refused / n, "fraction", target=0, programs=n,
         false_refusals=refused, other_failures=failed, **extra)
    n, as_labelled, escaped = _attack_corpus()
    emit("attack_corpus_contained", as_labelled / n, "fraction", programs=n, outcome_as_labelled=as_labelled,
         host_evidence=escaped, **extra)


if __name__ == "__main__":
    main()
