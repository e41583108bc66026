"""A tiny in-memory scene with demo skills, for testing the sandbox CLI without a simulator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from skills.errors import SkillError


class DemoSceneError(SkillError):
    """A demo skill refused the request (unknown brick, empty gripper...)."""

    kind = "demo_scene_error"


class DemoScene:
    """A toy stand-in for the simulator: three bricks on a table and a gripper that can hold one."""

    def __init__(self) -> None:
        self.bricks: dict[str, str] = {"b1": "table", "b2": "table", "b3": "table"}
        self.held: str | None = None
        self.gripper_xyz = (0.4, 0.0, 0.3)
        self.gripper_open = True

    # task-oriented library
    def demo_observe(self) -> dict[str, Any]:
        """Where every brick is and what the gripper holds."""
        return {"bricks": dict(self.bricks), "held": self.held}

    def demo_pick(self, brick: str) -> dict[str, Any]:
        """Pick up a brick lying on the table or on another brick."""
        if brick not in self.bricks:
            raise DemoSceneError(f"no brick {brick!r}; bricks: {sorted(self.bricks)}")
        if self.held is not None:
            raise DemoSceneError(f"already holding {self.held!r}; place it first")
        self.held, self.bricks[brick] = brick, "gripper"
        return {"held": brick}

    def demo_place(self, target: str) -> dict[str, Any]:
        """Place the held brick on the table ("table") or on another brick."""
        if self.held is None:
            raise DemoSceneError("the gripper is empty; pick a brick first")
        if target != "table" and target not in self.bricks:
            raise DemoSceneError(f"unknown target {target!r}")
        brick, self.held = self.held, None
        self.bricks[brick] = target
        return {"placed": brick, "on": target}

    # generic low-level library
    def demo_move_to(self, x: float, y: float, z: float) -> dict[str, Any]:
        """Move the gripper to (x, y, z) in metres, world frame."""
        if not (0.0 <= z <= 1.0):
            raise DemoSceneError(f"z={z} m is outside the reachable 0..1 m")
        self.gripper_xyz = (x, y, z)
        return {"position": list(self.gripper_xyz)}

    def demo_set_gripper(self, opened: bool) -> dict[str, Any]:
        """Open (True) or close (False) the gripper."""
        self.gripper_open = opened
        return {"opened": opened}


def demo_methods(library: str, task_id: str = "") -> dict[str, Callable[..., Any]]:
    """The DEMO method provider: skills over a fresh toy scene, not the simulator."""
    scene = DemoScene()
    if library == "task":
        return {"observe": scene.demo_observe, "pick": scene.demo_pick, "place": scene.demo_place}
    return {"observe": scene.demo_observe, "move_to": scene.demo_move_to, "set_gripper": scene.demo_set_gripper}


