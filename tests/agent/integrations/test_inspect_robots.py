"""JARVIS inside Inspect Robots (the real package from PyPI): the MuJoCo world as a conformant Franka-like
embodiment found through its entry point, JARVIS suites as tasks, and an `inspect-robots run` end to end
whose saved log re-scores to the same numbers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("inspect_robots", reason="needs the inspect extra: pip install 'jarvis[inspect]'")

from inspect_robots.conformance import assert_embodiment_conformant
from inspect_robots.registry import registered, resolve
from inspect_robots.scene import Scene
from inspect_robots.types import Action

from agent.integrations import robots_embodiment as E
from agent.integrations.robots_tasks import rescore_log, scene_for
from jarvis_sim.tasks.registry import suite_task_ids

MINI = suite_task_ids("jarvis-mini")


def test_the_franka_hand_opens_80_mm() -> None:
    # Franka Hand datasheet: maximum stroke 80 mm (2 x 40 mm per finger); the gripper slot is normalised by it.
    assert pytest.approx(0.080) == E.GRIPPER_MAX_M


def test_entry_points_register_every_plugin() -> None:
    assert isinstance(resolve("embodiment", "jarvis-mujoco"), E.JarvisEmbodiment)
    assert {"jarvis-mini", "jarvis-v2"} <= set(registered("task"))
    assert {"jarvis-hold", "jarvis-sweep"} <= set(registered("policy"))
    assert {"jarvis_assembly", "jarvis_complete"} <= set(registered("scorer"))


def test_the_embodiment_passes_inspect_robots_conformance_with_the_franka_contract() -> None:
    info = E.JarvisEmbodiment().info
    assert_embodiment_conformant(info)
    sem = info.action_space.semantics
    assert sem is not None and (sem.control_mode, sem.frame, sem.dim_labels) == (
        "joint_pos", "base", (*(f"joint{i}" for i in range(1, 8)), "gripper"))
    assert info.observation_space.state is not None
    assert {f.key: f.shape for f in info.observation_space.state.fields}["joint_pos"] == (8,)
    assert info.capabilities == {"seedable", "resettable", "renderable", "privileged_success"}
    assert info.is_simulated and "self_paced" not in info.capabilities


@pytest.mark.render
def test_seeded_reset_repeats_and_a_step_reports_ground_truth() -> None:
    emb = E.JarvisEmbodiment(cam_height=64, cam_width=80)
    try:
        scene = scene_for(MINI[0])
        a = emb.reset(scene, seed=7)
        b = emb.reset(scene, seed=7)
        assert set(a.images) == {"top", "side"} and a.images["top"].shape == (64, 80, 3)
        np.testing.assert_array_equal(a.state["joint_pos"], b.state["joint_pos"])
        np.testing.assert_array_equal(a.images["top"], b.images["top"])
        assert a.state["joint_pos"][7] == pytest.approx(1.0, abs=0.02)  # the hand starts open
        result = emb.step(Action(data=np.asarray(a.state["joint_pos"])))
        truth = result.info["jarvis"]
        assert truth["task_id"] == MINI[0] and truth["seed"] == 7 and not result.terminated
        assert 0.0 <= truth["soft_score"] <= 100.0 and "success" in result.info
        assert "jarvis" not in result.observation.extra  # ground truth never reaches the policy
        with pytest.raises(ValueError, match="8 finite numbers"):
            emb.step(Action(data=np.zeros(7)))
        with pytest.raises(ValueError, match="names no JARVIS task"):
            emb.reset(Scene(id="bare", instruction="build"), seed=0)
    finally:
        emb.close()


@pytest.mark.render
def test_inspect_robots_run_of_a_jarvis_task_writes_a_log_that_rescores(tmp_path: Path) -> None:
    from inspect_robots.cli import main

    for policy in ("jarvis-hold", "jarvis-sweep"):
        out = tmp_path / policy
        rc = main(["run", "--task", "jarvis-mini", "-T", "limit=1", "-T", "max_steps=40", "--policy", policy,
                   "--embodiment", "jarvis-mujoco", "-E", "cam_height=48", "-E", "cam_width=64",
                   "--log-dir", str(out), "--no-prompt", "--no-live-log", "--seed", "3"])
        assert rc == 0
        (log_path,) = out.glob("*.json")
        log = json.loads(log_path.read_text())
        assert log["status"] == "success" and log["eval"]["embodiment"] == "jarvis-mujoco"
        (sample,) = log["samples"]
        assert sample["scene_metadata"]["jarvis_task_id"] == MINI[0]
        assert len(sample["scene_metadata"]["manual_images"]) >= 1
        (again,) = rescore_log(log_path)
        assert again["soft_score"] == pytest.approx(sample["epochs"][0]["jarvis_assembly"])
        assert float(again["complete"]) == sample["epochs"][0]["jarvis_complete"]
        # the HTML report inspect-robots view renders from it
        html = tmp_path / f"{policy}.html"
        assert main(["view", str(log_path), "--out", str(html), "--no-video"]) == 0
        assert html.stat().st_size > 1000 and "jarvis-mini" in html.read_text()
