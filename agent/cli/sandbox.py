"""`jarvis sandbox check FILE.py`: run one agent program in the sandbox and print how it ended.

The skills a program may call come from a pluggable method provider. Until the skill registry is
wired in, the default provider serves a small in-memory DEMO scene (clearly not the simulator):
`set_method_provider` replaces it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import typer

from agent.sandbox import Sandbox, SandboxLimits, SandboxResult
from skills.errors import SkillError

Library = Literal["task", "generic"]
MethodProvider = Callable[[Library], Mapping[str, Callable[..., Any]]]


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


def demo_methods(library: Library) -> dict[str, Callable[..., Any]]:
    """The DEMO method provider: skills over a fresh toy scene, not the simulator."""
    scene = DemoScene()
    if library == "task":
        return {"observe": scene.demo_observe, "pick": scene.demo_pick, "place": scene.demo_place}
    return {"observe": scene.demo_observe, "move_to": scene.demo_move_to, "set_gripper": scene.demo_set_gripper}


_provider: MethodProvider = demo_methods


def set_method_provider(provider: MethodProvider) -> None:
    """Replace the demo skills by a real provider (the skill registry over a scene)."""
    global _provider
    _provider = provider


def check_program(code: str, library: Library = "task", limits: SandboxLimits | None = None) -> SandboxResult:
    """Run one program against the current method provider, cold, as an agent's program would run."""
    with Sandbox(limits, prestart=False) as sandbox:
        return sandbox.run(code, _provider(library))


def register(app: typer.Typer) -> None:
    """Add the `sandbox` command group."""
    group = typer.Typer(help="Run agent programs in the sandbox.", no_args_is_help=True)
    app.add_typer(group, name="sandbox")

    @group.command("check")
    def check(
        file: Path = typer.Argument(..., exists=True, dir_okay=False, help="Python program to run."),
        library: str = typer.Option("task", "--library", help="Skill library: task or generic."),
        wall_s: float = typer.Option(30.0, "--wall-s", help="Wall-clock limit of the program, seconds."),
    ) -> None:
        """Run FILE.py in the sandbox; print {"outcome", "line", "message", "stdout"} as JSON."""
        if library not in ("task", "generic"):
            raise typer.BadParameter(f"--library must be 'task' or 'generic', not {library!r}")
        code = file.read_text(encoding="utf-8", errors="replace")
        result = check_program(code, library, SandboxLimits(wall_s=wall_s))  # type: ignore[arg-type]
        print(json.dumps(result.agent_view()))
        if result.outcome != "ok":
            raise typer.Exit(1)

    @group.command("layers")
    def layers() -> None:
        """Print which isolation layers are active on this machine, and why any is missing."""
        with Sandbox(prestart=False) as sandbox:
            json.dump(sandbox.report.model_dump(), sys.stdout, indent=2)
            print()
