"""Choose MuJoCo's offscreen OpenGL platform (EGL, else OSMesa) before MuJoCo is first imported.

MuJoCo picks its GL context class once, when `mujoco` is imported, from MUJOCO_GL; an unset variable
means GLFW, which needs a display. So this module must run before anything imports `mujoco`.
"""

from __future__ import annotations

import ctypes.util
import os
import sys


def _default_platform() -> str:
    # EGL (Mesa's surfaceless platform, or a GPU driver) is faster than OSMesa; fall back when absent.
    if ctypes.util.find_library("EGL"):
        return "egl"
    if ctypes.util.find_library("OSMesa"):
        return "osmesa"
    return "egl"


def configure_offscreen_gl() -> str:
    """Set MUJOCO_GL (and PYOPENGL_PLATFORM to match) when unset; return the platform in use."""
    chosen = os.environ.get("MUJOCO_GL", "").strip().lower()
    if not chosen:
        if "mujoco" in sys.modules:
            # Too late to choose for this process; rendering would try GLFW and fail without a display.
            return ""
        chosen = _default_platform()
        os.environ["MUJOCO_GL"] = chosen
    if chosen in ("egl", "osmesa"):
        os.environ.setdefault("PYOPENGL_PLATFORM", chosen)
    return chosen


def require_offscreen_gl() -> None:
    """Raise a clear error when MuJoCo was imported without an offscreen GL platform."""
    if not configure_offscreen_gl():
        raise RuntimeError(
            "MuJoCo was imported before MUJOCO_GL was set, so it cannot render offscreen; "
            "set MUJOCO_GL=egl (or osmesa; apt-get install libegl1 / libosmesa6) before starting Python, "
            "or import jarvis_sim.manuals before mujoco"
        )
