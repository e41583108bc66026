"""Step-by-step visual manuals of LEGO tasks, rendered offscreen with MuJoCo in several named styles.

Importing this package chooses MuJoCo's offscreen GL platform (MUJOCO_GL) when unset, so it must be
imported before `mujoco`; the renderer itself is imported only when a manual is rendered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jarvis_sim.manuals.gl import configure_offscreen_gl
from jarvis_sim.manuals.styles import ManualStyle, UnknownStyleError, get_style, manual_styles

configure_offscreen_gl()

if TYPE_CHECKING:
    from jarvis_sim.manuals.manual import ManualRenderer, render_manual, render_manual_images

__all__ = [
    "ManualRenderer",
    "ManualStyle",
    "UnknownStyleError",
    "configure_offscreen_gl",
    "get_style",
    "manual_styles",
    "render_manual",
    "render_manual_images",
]


def __getattr__(name: str) -> Any:
    # The renderer pulls in MuJoCo and a GL context: load it on first use, not on import.
    if name in ("ManualRenderer", "render_manual", "render_manual_images"):
        from jarvis_sim.manuals import manual

        return getattr(manual, name)
    raise AttributeError(f"module 'jarvis_sim.manuals' has no attribute {name!r}")
