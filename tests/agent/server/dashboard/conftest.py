"""Run directories for the dashboard tests: crafted assembly records, a real quiz run, a real oracle episode."""

from __future__ import annotations

from pathlib import Path

import pytest

from jarvis_sim.records import EpisodeRecord, RoundRecord, SkillCallRecord, Timings, TokenAccount
from jarvis_sim.tasks.spec import TaskSpec
from tests.agent.server.conftest import quiz_plugin  # noqa: F401 (the server tests' fixture, used here too)
from tests.evaluator.runs import TASKS, standard_records, write_run

FAILING_PROGRAM = "go_home()\npick('p9')\nplace_at(1, 2, 0, 0)\n"


def failing_record() -> EpisodeRecord:
    """An LLM-like assembly episode whose program failed on line 2 with a typed skill error."""
    rounds = [
        RoundRecord(index=0, prompt_text="You are a robot. Build the model in the manual.", response="```python\n"
                    + FAILING_PROGRAM + "```", code=FAILING_PROGRAM, outcome="skill_error",
                    feedback="pick('p9') failed: no brick 'p9' is on the table",
                    skill_calls=[SkillCallRecord(name="go_home", ok=True, result="parked", line=1, wall_s=0.3),
                                 SkillCallRecord(name="pick", args={"brick": "p9"}, ok=False, error_kind="unknown_brick",
                                                 error="no brick 'p9' is on the table", line=2, wall_s=0.01)],
                    observation_images=["obs_000_rgb.png"]),
        RoundRecord(index=1, kind="reflective_step", prompt_text="Your program failed. Try again.", code="go_home()\n",
                    outcome="ok", skill_calls=[SkillCallRecord(name="go_home", ok=True, line=1)]),
    ]
    return EpisodeRecord(episode_id="ep-failing", task_id=TASKS["hard"].id, family="lego", difficulty="hard",
                         status="failed", error="budget exhausted after 2 rounds", rounds=rounds,
                         timings=Timings(wall_s=12.5), tokens=TokenAccount(input=1200, output=300, cost_usd=0.0123))


@pytest.fixture
def crafted_run(tmp_path: Path) -> Path:
    """Eight scored assembly episodes and one failed one with a program, a failed skill call and rounds."""
    # Distinct seeds: the dashboard, like the run's own report, keeps the latest record per (task, seed).
    records = [r.model_copy(update={"seed": k}) for k, r in enumerate([*standard_records(), failing_record()])]
    return write_run(tmp_path / "crafted", records,
                     config={"model": "fake-model", "tool_library": "task", "mode": "reflective",
                             "task_ids": [f"lego/test/{k}" for k in range(10)]})  # one task not run yet


@pytest.fixture(scope="session")
def oracle_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real `jarvis run` of the oracle on one two-brick jarvis-mini task (about 30 s: tests using it are slow)."""
    import os

    from typer.testing import CliRunner

    from agent.cli.main import app

    os.environ.setdefault("MUJOCO_GL", "osmesa")
    os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")
    out = tmp_path_factory.mktemp("oracle") / "oracle-mini"
    result = CliRunner().invoke(app, ["run", "--task", "lego/v7-00009-stairs/000", "--agent", "oracle",
                                      "--workers", "0", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def pictured_record(record: EpisodeRecord, task: TaskSpec, run_root: Path) -> EpisodeRecord:
    """The record with its end pictures (built and target, rendered as an episode's end renders them)."""
    from agent.episodes.final_views import built_and_target_views

    assert record.final_state is not None
    folder = run_root / "episodes" / record.task_id.replace("/", "_")
    folder.mkdir(parents=True, exist_ok=True)
    views = built_and_target_views(task, record.final_state, folder, size=(480, 360))
    return record.model_copy(update={"final_views": views, "artifacts_dir": f"episodes/{folder.name}"})


@pytest.fixture
def pictured_run(tmp_path: Path) -> Path:
    """One assembly episode with a brick 4 mm off and another turned, pictured at its end (about 1 s)."""
    from tests.evaluator.builders import perfect_state, shifted, turned
    from tests.evaluator.runs import lego_record

    task = TASKS["medium"]
    state = turned(shifted(perfect_state(task), "a1", dx=0.004), "a2", 0.35)
    root = tmp_path / "pictured"
    root.mkdir()
    record = pictured_record(lego_record(task, state, 0).model_copy(update={"episode_id": "ep-pictured"}), task, root)
    return write_run(root, [record], config={"model": "fake-model", "task_ids": [task.id]})


@pytest.fixture
def vsp_run(tmp_path: Path) -> Path:
    """A real `random` run over four generated VSP maze items (about 2 s: the set is generated once a machine)."""
    from agent.config import AgentConfig
    from agent.runs.batch import run_batch
    from agent.runs.run_store import RunConfig
    from jarvis_sim.tasks.registry import suite_task_ids

    out = tmp_path / "vsp-run"
    ids = suite_task_ids("vsp-gen-mini-maze-main")[:4]
    run_batch(RunConfig(task_ids=ids, agent=AgentConfig(name="random", seed=3)), out, workers=0)
    return out
