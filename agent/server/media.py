"""Images the server hands out for assembly tasks: manual steps and the initial observation, cached on disk."""

from __future__ import annotations

from pathlib import Path

from jarvis_sim.tasks.spec import TaskSpec


def manual_paths(task: TaskSpec, style: str) -> list[Path]:
    """PNG paths of the task's manual steps in a style (rendered once, then cached by the manuals module)."""
    from jarvis_sim.manuals import manual_png_paths

    return list(manual_png_paths(task, style))


def initial_observation_path(task: TaskSpec) -> Path:
    """PNG of the initial top-down observation (cached beside the manuals)."""
    from jarvis_sim.manuals import initial_observation_png

    return Path(initial_observation_png(task))
