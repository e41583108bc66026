"""The embedded MuJoCo backend (CPU): Franka Panda, LEGO bricks with clutch, offscreen cameras.

Importing this package chooses the offscreen GL platform before anything imports `mujoco`
(MuJoCo reads MUJOCO_GL once, at import): a value the user set is kept; otherwise EGL when its
library is present (Mesa's EGL renders headless on a CPU), else OSMesa.
"""

from __future__ import annotations

import ctypes.util
import os


def _choose_gl() -> None:
    if "MUJOCO_GL" in os.environ:
        os.environ.setdefault("PYOPENGL_PLATFORM", os.environ["MUJOCO_GL"])
        return
    choice = "egl" if ctypes.util.find_library("EGL") else "osmesa"
    os.environ["MUJOCO_GL"] = choice
    os.environ.setdefault("PYOPENGL_PLATFORM", choice)


_choose_gl()
