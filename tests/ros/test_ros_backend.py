"""`--backend ros`: the CLI's episodes run against a bridge over ROS 2 and score exactly as in-process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ros.bridge_process import ROOT, BridgeProcess

pytestmark = [pytest.mark.ros, pytest.mark.slow]

# The first jarvis-mini task (two action bricks): long enough to use pick, place_on, observe and go_home.
TASK = "lego/v7-00009-stairs/000"


def run_cli(out: Path, backend: str, namespace: str) -> list[dict[str, object]]:
    env = {**os.environ, "JARVIS_ROS_NAMESPACE": namespace}
    proc = subprocess.run(
        [sys.executable, "-m", "agent.cli.main", "run", "--task", TASK, "--agent", "oracle", "--seed", "3",
         "--workers", "0", "--backend", backend, "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines() if line.strip()]


def test_the_oracle_through_ros_scores_as_in_process(bridge: BridgeProcess, tmp_path: Path) -> None:
    local = run_cli(tmp_path / "local", "mujoco", bridge.namespace)
    remote = run_cli(tmp_path / "ros", "ros", bridge.namespace)
    assert len(local) == len(remote) == 1
    a, b = local[0], remote[0]
    assert a["status"] == b["status"] == "done", (a.get("error"), b.get("error"))
    assert a["scores"] == b["scores"] and a["scores"]["completion"] > 0  # the oracle built something
    calls_a = [(c["name"], c["args"], c["ok"], c["result"]) for r in a["rounds"] for c in r["skill_calls"]]
    calls_b = [(c["name"], c["args"], c["ok"], c["result"]) for r in b["rounds"] for c in r["skill_calls"]]
    assert calls_a == calls_b and len(calls_a) > 5
    assert a["final_state"] == b["final_state"]
    assert a["planner"] == b["planner"] and a["planner"]["name"] == "cartesian"  # the bridge planned as configured


def test_no_bridge_is_a_clear_error(tmp_path: Path) -> None:
    from jarvis_sim.backends.base import BackendError
    from jarvis_sim.backends.registry import make_backend

    with pytest.raises(BackendError, match="no jarvis bridge answers /jarvis_nobody/sim/load_task"):
        make_backend("ros", namespace="/jarvis_nobody", connect_s=1.0)


def test_parallel_workers_on_one_bridge_are_refused(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "agent.cli.main", "run", "--task", TASK, "--workers", "2", "--backend", "ros",
         "--out", str(tmp_path / "run")], cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode != 0 and "one bridge" in proc.stderr and not (tmp_path / "run").exists()


def test_the_generic_library_through_ros(bridge: BridgeProcess) -> None:
    """Skills without a typed action go through CallSkill; typed errors and captured images come back."""
    import numpy as np

    from jarvis_sim.backends.registry import make_backend
    from skills.context import SkillContext
    from skills.errors import SkillError
    from skills.libraries import bind
    from tests.fakes.lego_tasks import stack_task

    task = stack_task(2, 1)
    backend = make_backend("ros", namespace=bridge.namespace)
    try:
        backend.load(task, seed=0)
        saved: dict[str, np.ndarray] = {}

        def sink(kind: str, image: np.ndarray) -> str:
            saved[f"img{len(saved)}_{kind}"] = image
            return f"img{len(saved) - 1}_{kind}"

        ctx = SkillContext(backend=backend, workspace=task.workspace, image_sink=sink)
        skills = bind("generic", ctx)
        state = skills["get_joint_state"]()
        assert len(state["positions_rad"]) == 7
        pose = skills["move_ee"](450.0, 0.0, 150.0)
        assert abs(pose["x_mm"] - 450.0) < 2 and abs(pose["z_mm"] - 150.0) < 2
        with pytest.raises(SkillError) as err:
            skills["move_ee"](450.0, 0.0, -50.0)
        assert err.value.kind == "invalid_argument" and "z_mm must lie" in err.value.message
        names = skills["capture_images"]()
        assert names == {"rgb": "img0_rgb", "depth": "img1_depth"}
        assert saved["img0_rgb"].shape == (480, 640, 3) and saved["img1_depth"].shape == (480, 640)
        assert [c.name for c in ctx.calls] == ["get_joint_state", "move_ee", "move_ee", "capture_images"]
        assert [c.ok for c in ctx.calls] == [True, True, False, True] and ctx.calls[2].error_kind == "invalid_argument"
    finally:
        backend.close()


def test_the_episode_planner_reaches_the_bridge_and_comes_back_described(bridge: BridgeProcess) -> None:
    """load_task names the planner (AgentConfig.planner); the bridge answers with the description it moves with."""
    from jarvis_sim.backends.base import BackendError
    from jarvis_sim.backends.registry import make_backend
    from tests.fakes.lego_tasks import stack_task

    task = stack_task(2, 1)
    backend = make_backend("ros", namespace=bridge.namespace)
    try:
        for name in ("ompl", "moveit", "cumotion", "cartesian"):
            backend.planner = name  # type: ignore[attr-defined]
            backend.load(task, seed=0)
            info = backend.planner_info  # type: ignore[attr-defined]
            assert info is not None and info.name == name and info.version and info.settings
        backend.planner = "warp-drive"  # type: ignore[attr-defined]
        with pytest.raises(BackendError, match="unknown motion planner 'warp-drive'"):
            backend.load(task, seed=0)
    finally:
        backend.close()
