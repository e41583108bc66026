"""The prompts of an assembly episode, rendered from the templates in assets/prompts/.

What goes in: the skill API of the chosen library, the task's public view (never its targets) with
the build-area calibration place_on('ground', ...) needs, the manual pages, the current scene
(RGB, depth, or descriptors), prior-task lessons, the execution memory summary and, when reflecting,
the previous program and its feedback. Every round gets a fresh prompt: the memory summary, not a
growing chat history, carries what happened before.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agent.episodes.observation import LiveScene, SceneView, camera_calibration, descriptor_table
from agent.llm.prompts import Prompt, image_marker, load_template
from agent.sandbox.builtins_table import SAFE_BUILTIN_NAMES
from jarvis_sim.lego.catalog import part
from jarvis_sim.lego.colors import color
from jarvis_sim.tasks.spec import TaskSpec

MAX_PREVIOUS_CODE_CHARS = 6000


@dataclass(frozen=True)
class PreviousProgram:
    """The last program and what came back, shown when reflecting."""

    code: str
    feedback: str
    stdout: str


def _mm_range(lo: float, hi: float) -> str:
    return f"{lo * 1000:.0f} to {hi * 1000:.0f}"


def task_summary(view: dict[str, Any]) -> str:
    """The public view in words: what to add, in how many steps, within what time."""
    bricks = view["action_bricks"]
    lines = [
        f"Difficulty: {view['difficulty']}. The scene starts with {view['n_initial_bricks']} brick(s) already built"
        + (" on a baseplate." if view["baseplate"] else " on the table."),
        f"You must add {len(bricks)} brick(s), following the manual's {len(view['manual_steps'])} step(s):",
    ]
    for b in bricks:
        p = part(b["part"])
        lines.append(f"- {color(b['color']).name} {p.name.lower()} ({max(p.width, p.depth)}x{min(p.width, p.depth)} studs)")
    lines.append(
        f"Simulated-time budget: {view['time_budget_s']:.0f} s (one pick-and-place takes about 12 s); "
        "going over it lowers the score."
    )
    return "\n".join(lines)


class ShownEpisode(LiveScene, Protocol):
    """What the prompts show of an episode: the scene, the task's public view, the API and the manual."""

    @property
    def task(self) -> TaskSpec: ...

    def api_text(self) -> str: ...

    def manual_images(self, style: str | None = None) -> list[Path]: ...


class AssemblyPrompts:
    """Renders the system and user prompts of one assembly episode."""

    def __init__(self, episode: ShownEpisode, *, library: str, observation: str, manual_style: str,
                 experience: str | None = None):
        self.episode = episode
        self.library, self.observation_kind = library, observation
        self.system_template = load_template("assembly_system")
        self.task_template = load_template("assembly_task")
        self.instructions = load_template("assembly_instructions")
        self.system = self.system_template.render(
            library=library, api=episode.api_text(), builtins=", ".join(n for n in SAFE_BUILTIN_NAMES if n[0].islower())
        )
        self.experience = experience
        self.view = episode.task.public_view()  # the public view only: never the targets
        self.manual_pages = self._copy_manual(manual_style)
        needs_camera = library == "generic" or observation != "rgb"
        self.calibration = camera_calibration(episode) if needs_camera else ""

    def _copy_manual(self, style: str) -> list[str]:
        """Copy the manual pages into the episode directory, so the record's image paths are local."""
        names = []
        for k, src in enumerate(self.episode.manual_images(style), 1):
            name = f"manual_{k:02d}{Path(src).suffix or '.png'}"
            shutil.copyfile(src, self.episode.dir / name)
            names.append(name)
        return names

    def _workspace_values(self) -> dict[str, str]:
        ws = self.episode.ctx.workspace
        ox, oy, oz = (c * 1000 for c in ws.lattice_origin)
        return {
            "origin_x_mm": f"{ox:.1f}", "origin_y_mm": f"{oy:.1f}", "origin_z_mm": f"{oz:.1f}",
            "staging_x_mm": _mm_range(ws.staging_min[0], ws.staging_max[0]),
            "staging_y_mm": _mm_range(ws.staging_min[1], ws.staging_max[1]),
            "table_x_mm": _mm_range(ws.table_min[0], ws.table_max[0]),
            "table_y_mm": _mm_range(ws.table_min[1], ws.table_max[1]),
        }

    def _scene_text(self, scene: SceneView) -> str:
        parts = [f"{caption}\n{image_marker(name)}" for caption, name in scene.images]
        if scene.descriptors is not None:
            parts.append("Bricks perceived in this view (the observe() skill's output; ids valid for pick()):\n"
                         + descriptor_table(scene.descriptors))
        return "\n".join(parts)

    def render(self, *, scene: SceneView, instructions: str, instruction_tag: str, memory: str = "",
               previous: PreviousProgram | None = None) -> Prompt:
        """A complete prompt for one reasoning step."""
        n_pages = len(self.manual_pages)
        pages = "\n".join(f"Page {k} of {n_pages}:\n{image_marker(name)}" for k, name in enumerate(self.manual_pages, 1))
        experience = (
            f"\n## Lessons from earlier tasks\n{self.experience.strip()}\n" if self.experience and self.experience.strip() else ""
        )
        memory_text = f"\n## What happened so far\n{memory.strip()}\n" if memory.strip() else ""
        previous_text = ""
        if previous is not None:
            code = previous.code
            if len(code) > MAX_PREVIOUS_CODE_CHARS:
                code = code[:MAX_PREVIOUS_CODE_CHARS] + "\n# ... (cut)"
            stdout = f"\nPrinted output:\n{previous.stdout.strip()[-2000:]}\n" if previous.stdout.strip() else ""
            previous_text = (
                f"\n## Your previous program\n```python\n{code.rstrip()}\n```\n"
                f"\n## Its execution feedback\n{previous.feedback.strip()}\n{stdout}"
            )
        user = self.task_template.render(
            task_id=self.view["id"], task_summary=task_summary(self.view), **self._workspace_values(),
            camera_calibration=self.calibration,
            manual_intro=f"The manual has {n_pages} page(s); the last page shows the finished structure. "
            "Bricks added at a step are marked on its page.",
            manual_pages=pages, observation=self._scene_text(scene), experience=experience, memory=memory_text,
            previous=previous_text, instructions=instructions,
        )
        versions = [self.system_template.tag, self.task_template.tag, f"{self.instructions.tag}[{instruction_tag}]"]
        return Prompt(system=self.system, user=user, versions=versions, base_dir=self.episode.dir)

    def instruction(self, section: str, **values: object) -> str:
        """One section of the mode instructions, filled."""
        return self.instructions.render(section, **values)
