"""`jarvis render TASK_ID --style NAME --out DIR`: write a task's manual pages and initial observation as PNG."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import typer

from jarvis_sim.manuals import configure_offscreen_gl  # before anything imports mujoco
from jarvis_sim.tasks.spec import TaskSpec

configure_offscreen_gl()


@dataclass(frozen=True)
class RenderResult:
    """What `render_task` wrote: the manual pages, the initial observation and how it was made."""

    pages: list[Path]
    observation: Path
    observation_source: str  # "mujoco backend top camera" or "bricks-only scene, top-down"


def resolve_task(task: str) -> TaskSpec:
    """A TaskSpec from a task id (any registered suite) or from a path to a TaskSpec JSON file."""
    path = Path(task)
    if path.suffix == ".json" or path.is_file():
        if not path.is_file():
            raise FileNotFoundError(f"no TaskSpec file at {path}")
        try:
            return TaskSpec.model_validate_json(path.read_text())
        except ValueError as exc:
            raise ValueError(f"{path}: not a valid TaskSpec: {exc}") from exc
    from jarvis_sim.tasks.registry import load_task

    loaded = load_task(task)
    if not isinstance(loaded, TaskSpec):
        raise ValueError(f"task {task!r} is a {type(loaded).__name__}, not a LEGO assembly task: it has no manual")
    return loaded


def render_task(task: TaskSpec, style: str, out_dir: Path, size: tuple[int, int] = (800, 600)) -> RenderResult:
    """Render (or fetch from the cache) a task's manual in a style and copy it to out_dir with the observation."""
    from jarvis_sim.manuals import render_manual

    out_dir.mkdir(parents=True, exist_ok=True)
    pages = []
    for k, src in enumerate(render_manual(task, style, size), start=1):
        dst = out_dir / f"manual_{style}_step{k:02d}.png"
        shutil.copyfile(src, dst)
        pages.append(dst)
    from jarvis_sim.manuals.observation import write_initial_observation

    obs = out_dir / "initial_observation.png"
    source = write_initial_observation(task, obs)
    return RenderResult(pages, obs, source)


def register(app: typer.Typer) -> None:
    """Add the `render` command."""

    @app.command("render", help="Write a LEGO task's manual pages (one PNG per step) and its initial observation.")
    def render(
        task: str = typer.Argument(..., help="Task id (e.g. lego/v7-00020-stairs/001) or a TaskSpec JSON file."),
        style: str = typer.Option("booklet", "--style", help="Manual style: booklet, shaded or photo."),
        out: Path = typer.Option(Path("manual"), "--out", help="Folder to write the PNG files into."),
        width: int = typer.Option(800, help="Page width in pixels."),
        height: int = typer.Option(600, help="Page height in pixels."),
    ) -> None:
        from jarvis_sim.manuals import UnknownStyleError, get_style

        try:
            get_style(style)
            spec = resolve_task(task)
        except (UnknownStyleError, KeyError, ValueError, FileNotFoundError) as exc:
            raise typer.BadParameter(str(exc)) from exc
        result = render_task(spec, style, out, (width, height))
        typer.echo(
            json.dumps(
                {
                    "task": spec.id,
                    "style": style,
                    "pages": [str(p) for p in result.pages],
                    "observation": str(result.observation),
                    "observation_source": result.observation_source,
                },
                indent=1,
            )
        )
