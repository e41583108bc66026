"""`jarvis sandbox check FILE.py`: run one agent program in the sandbox and print how it ended.

The skills a program may call come from a pluggable method provider: by default the skill registry
bound to a MuJoCo scene of an assembly task (`--task`), exactly as in an episode.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import typer

from agent.sandbox import Sandbox, SandboxLimits, SandboxResult

Library = Literal["task", "generic"]
MethodProvider = Callable[[Library, str], Mapping[str, Callable[..., Any]]]  # (library, task id)



def scene_methods(library: Library, task_id: str = "") -> Mapping[str, Callable[..., Any]]:
    """The skills of a library bound to a real MuJoCo scene of a task (default: the first jarvis-mini task)."""
    from jarvis_sim.backends.registry import make_backend
    from jarvis_sim.tasks.registry import load_task
    from jarvis_sim.tasks.spec import TaskSpec
    from jarvis_sim.tasks.suites import load_suite
    from skills.context import SkillContext
    from skills.libraries import bind

    task = load_task(task_id) if task_id else load_suite("jarvis-mini")[0]
    if not isinstance(task, TaskSpec):
        raise typer.BadParameter(f"task {task_id} is a question item, not an assembly task")
    backend = make_backend("mujoco")
    backend.load(task, seed=0)
    return bind(library, SkillContext(backend=backend, workspace=task.workspace))


_provider: MethodProvider = scene_methods


def set_method_provider(provider: MethodProvider) -> None:
    """Replace the demo skills by a real provider (the skill registry over a scene)."""
    global _provider
    _provider = provider


def check_program(code: str, library: Library = "task", limits: SandboxLimits | None = None,
                  task_id: str = "") -> SandboxResult:
    """Run one program against the current method provider, cold, as an agent's program would run."""
    methods = _provider(library, task_id)
    with Sandbox(limits, prestart=False) as sandbox:
        return sandbox.run(code, methods)


def register(app: typer.Typer) -> None:
    """Add the `sandbox` command group."""
    group = typer.Typer(help="Run agent programs in the sandbox.", no_args_is_help=True)
    app.add_typer(group, name="sandbox")

    @group.command("check")
    def check(
        file: Path = typer.Argument(..., exists=True, dir_okay=False, help="Python program to run."),
        library: str = typer.Option("task", "--library", help="Skill library: task or generic."),
        wall_s: float = typer.Option(120.0, "--wall-s", help="Wall-clock limit of the program, seconds."),
        task: str = typer.Option("", "--task", help="Assembly task whose scene the skills act on (default: first of jarvis-mini)."),
    ) -> None:
        """Run FILE.py in the sandbox; print {"outcome", "line", "message", "stdout"} as JSON."""
        if library not in ("task", "generic"):
            raise typer.BadParameter(f"--library must be 'task' or 'generic', not {library!r}")
        code = file.read_text(encoding="utf-8", errors="replace")
        result = check_program(code, library, SandboxLimits(wall_s=wall_s), task)  # type: ignore[arg-type]
        print(json.dumps(result.agent_view()))
        if result.outcome != "ok":
            raise typer.Exit(1)

    @group.command("layers")
    def layers() -> None:
        """Print which isolation layers are active on this machine, and why any is missing."""
        with Sandbox(prestart=False) as sandbox:
            json.dump(sandbox.report.model_dump(), sys.stdout, indent=2)
            print()
