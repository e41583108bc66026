"""End-to-end behaviour of sandboxed runs: results, output, limits, layers, and reuse."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from agent.sandbox import Sandbox, SandboxLayers, SandboxLimits, run_program
from agent.sandbox.layers import detect
from tests.agent.sandbox.harness import METHODS, TEST_LIMITS


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(TEST_LIMITS) as sb:
        yield sb


def test_results_read_as_records_and_calls_are_recorded(sandbox: Sandbox) -> None:
    code = "r = ping('abc')\nprint(r.length, r['payload'])\nping(payload='x')\n"
    result = sandbox.run(code, METHODS)
    assert result.outcome == "ok", result
    assert result.stdout == "3 abc\n"
    assert [c.args for c in result.calls] == [{"payload": "abc"}, {"payload": "x"}]
    assert result.agent_view() == {"outcome": "ok", "line": None, "message": "", "stdout": "3 abc\n"}


def test_caught_skill_error_lets_the_program_continue(sandbox: Sandbox) -> None:
    code = "try:\n    fail()\nexcept SkillError as e:\n    print(e.kind)\nprint('after')\n"
    result = sandbox.run(code, METHODS)
    assert (result.outcome, result.stdout) == ("ok", "demo_failure\nafter\n")


def test_errors_report_kind_line_and_message_only(sandbox: Sandbox) -> None:
    result = sandbox.run("x = 1\n\ny = {}['missing']\n", METHODS)
    assert (result.outcome, result.line, result.error_kind) == ("error", 3, "KeyError")
    assert result.message == "KeyError: 'missing'"
    syntax = sandbox.run("x = (\n", METHODS)
    assert syntax.outcome == "error" and syntax.error_kind == "SyntaxError" and syntax.line == 1


def test_output_before_a_timeout_is_kept(sandbox: Sandbox) -> None:
    result = sandbox.run("print('started')\nping()\nwhile True:\n    pass\n", METHODS)
    assert result.outcome == "timeout" and result.stdout == "started\n"


def test_code_size_limit_is_checked_before_starting_a_child(sandbox: Sandbox) -> None:
    result = sandbox.run("#" * (TEST_LIMITS.max_code_bytes + 1), METHODS)
    assert result.outcome == "resource_limit" and result.error_kind == "code_size"


def test_cpu_limit_ends_a_program_that_outlives_its_cpu_seconds() -> None:
    limits = SandboxLimits(wall_s=20, cpu_s=1, memory_bytes=256 << 20)
    result = run_program("while True:\n    pass\n", METHODS, limits)
    assert result.outcome == "timeout" and result.error_kind == "cpu_limit", result


def test_layers_are_reported_and_confirmed_by_the_child(sandbox: Sandbox) -> None:
    result = sandbox.run("pass", METHODS)
    report = sandbox.report
    assert set(result.layers) >= {"ast_policy", "restricted_builtins", "separate_process", "wall_clock_kill"}
    for layer in ("seccomp", "rlimits"):
        assert (layer in result.layers) == report.active[layer]
    for name in report.degraded():
        assert report.details.get(name) or not report.requested[name]


def test_child_runs_unprivileged_when_the_parent_is_root() -> None:
    layers = SandboxLayers(ast_policy=False, restricted_builtins=False)
    if "unprivileged_uid" in detect(layers).report.degraded():
        pytest.skip("no unprivileged account on this machine")
    # `os` is already loaded in the child, so this import needs no file access even under seccomp.
    result = run_program("print(__import__('os').getuid())", METHODS, TEST_LIMITS, layers)
    assert result.outcome == "ok", result
    assert int(result.stdout) != 0


def test_many_runs_do_not_accumulate_zombies(sandbox: Sandbox) -> None:
    """bwrap leaves its namespace init behind; the parent reaps it, so at most the last run's lingers."""
    for _ in range(6):
        assert sandbox.run("ping()", METHODS).outcome == "ok"
    zombies = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        head, _, tail = stat.rpartition(b")")
        fields = tail.split()
        # Only bwrap's are the sandbox's to reap: as a subreaper this process also adopts orphans of other tests'
        # programs (chromium's helpers after the dashboard's browser test), whose statuses are not its business.
        if fields[0] == b"Z" and int(fields[1]) == os.getpid() and head.partition(b"(")[2] == b"bwrap":
            zombies.append(stat[:40])
    assert len(zombies) <= 1, zombies


def test_a_prestarted_child_waits_for_its_program_past_the_startup_deadline() -> None:
    """A real model takes longer to answer than a child takes to start: the start-up deadline covers
    start-up only, so a program arriving long after the spare child became ready still runs."""
    import time

    limits = TEST_LIMITS.model_copy(update={"startup_s": 1.0})
    with Sandbox(limits) as sb:
        time.sleep(1.6)  # the agent's model is thinking
        result = sb.run("print(ping('late').length)", METHODS)
        assert result.outcome == "ok", result
        assert result.stdout == "4\n"
        time.sleep(1.6)  # and the next spare, started after that run, waits as well
        assert sb.run("ping()", METHODS).outcome == "ok"


def test_a_spare_child_that_died_while_idle_is_replaced() -> None:
    with Sandbox(TEST_LIMITS) as sb:
        spare = sb._spare
        assert spare is not None
        os.killpg(spare.proc.pid, 9)
        spare.proc.wait(timeout=5)
        result = sb.run("print(ping('x').length)", METHODS)
    assert result.outcome == "ok", result


def _slow_step(seconds: float = 0.4) -> dict[str, float]:
    """A skill that takes wall time, like a motion in the simulator."""
    import time

    time.sleep(seconds)
    return {"slept": seconds}


def test_time_inside_skills_counts_toward_the_wall_clock(sandbox: Sandbox) -> None:
    """wall_s 1.5 s and a program of ten 0.4 s skill calls: it is stopped after about four, not at 4 s."""
    methods = {**METHODS, "step": _slow_step}
    result = sandbox.run("for i in range(10):\n    step()\n", methods)
    assert (result.outcome, result.error_kind) == ("timeout", "wall_clock"), result
    assert "time inside skills counts" in result.message
    assert 3 <= len(result.calls) <= 5
    assert result.wall_s < TEST_LIMITS.wall_s + 0.4 + 0.5  # at most one skill call late


def test_a_shorter_wall_limit_per_run_wins(sandbox: Sandbox) -> None:
    result = sandbox.run("while True:\n    pass\n", METHODS, wall_s=0.3)
    assert (result.outcome, result.error_kind) == ("timeout", "wall_clock")
    assert "0.3 s" in result.message and result.wall_s < 1.2
    spent = sandbox.run("ping()", METHODS, wall_s=0.0)
    assert spent.outcome == "timeout" and spent.calls == []
